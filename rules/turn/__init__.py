"""The turn: its sequence of phases, and the checklist of what each phase leaves open."""
