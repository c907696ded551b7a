"""The umpire's rulings and edits: an override of any value with its reason, the order of battle
and the terrain edited, and the rule tables changed during a game. Each is an action like any other,
logged with its reason and taken back by one Undo."""
