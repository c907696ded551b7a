"""Chapter 06, the melee: the score of each side, the outcome, and the melee as an action."""
