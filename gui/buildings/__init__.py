"""The building dialogs: a unit garrisons a building it touches (Phase 2, RULE-03-3.1), and a
battery bombards one (Phase 3, RULE-03-3.3), with what the two share."""
