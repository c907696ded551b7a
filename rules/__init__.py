"""The Brigadier rules core: pure Python, no Qt and no SQLite.

The order of battle (:mod:`rules.battle.order_of_battle`), the rule tables (:mod:`rules.tables`) and the dice
(:mod:`rules.dice`) are the foundation the geometry, reactions, shooting and melee stand on.
"""
