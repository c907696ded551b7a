"""The combat dialogs, one module each: shooting (Phase 3), declaring a charge with its odds, melee
(Phase 4), and a building's garrison (Phase 2) and bombardment (Phase 3).

* :class:`ShootDialog` (:mod:`.shoot`): a firer that may fire now, every enemy as a possible target
  with the reason it may or may not be fired on (target priority, arc, range, line of sight,
  RULE-03-5.1, RULE-03-5.2, RULE-03-5.3, RULE-03-5.4, RULE-03-5.5, RULE-03-5.6, RULE-03-5.7), the volley's numbers (dice pool of the stands with a clear view, to-hit with its
  modifiers, the target's cover save) and its exact odds, the dice, and the result before it is
  applied.
* :class:`ChargeDialog` (:mod:`.charge`): the charger and its target (the nearest it may charge
  first), every unmet condition of the declaration with its rule id, the charge path, and the exact
  odds of the charge as a bar chart (:func:`OddsChart`, :mod:`.odds_chart`: stall, win, lose, tie
  ...) with the expected stands lost each side.
* :class:`MeleeDialog` (:mod:`.melee`): the melees the charges of Phase 2 left pending
  (RULE-06-1.1), one of which is chosen, or a melee set up by hand; both sides' shock scores built
  up line by line (die, engaged stands, each modifier with its rule), the dice, the outcome and its
  aftermath (retreat, consolidation, a Tactical Breakthrough, the Leader Loss roll, a tie left
  pending).
* :class:`GarrisonDialog` (:mod:`.garrison`) and :class:`BombardDialog` (:mod:`.bombard`), on the
  building dialog of :mod:`.buildings`.

What a unit may do (the firers, the targets, the charges, who may garrison, the locked melees) the
dialogs ask of the rules (:mod:`rules.legality`); they keep no rule of their own.
"""

from __future__ import annotations

from gui.buildings.bombard import BombardDialog
from gui.buildings.garrison import GarrisonDialog
from gui.combat_dialogs.charge import ChargeDialog
from gui.combat_dialogs.melee import MeleeDialog
from gui.combat_dialogs.odds_chart import OddsChart
from gui.combat_dialogs.shoot import ShootDialog

__all__ = [
    "BombardDialog",
    "ChargeDialog",
    "GarrisonDialog",
    "MeleeDialog",
    "OddsChart",
    "ShootDialog",
]
