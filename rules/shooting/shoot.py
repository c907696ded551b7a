"""Phase 3 Ranged Combat on the table: a volley measured as the table shows it (range, arc, sight,
enfilade, cover and the stands with a clear view), the table's inputs to a reaction's volley, and
the Shoot action, one unit's Phase 3 volley. The volley itself is planned and resolved by
:mod:`rules.shooting.volleys`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.battle.battle import Battle
from rules.battle.unit import Unit
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.shooting.volleys import (
    CoverClass,
    FireKind,
    Volley,
    check_enfilade_side,
    phase_3_refusal,
    resolve_volley,
)
from rules.tables import RuleTables

_FENCES = ("split_rail_fence", "hedge")  # light cover that enfilade denies (RULE-03-5.7, RULE-03-2.3)


def measure_volley(
    battle: Battle,
    firer_id: str,
    target_id: str,
    tables: RuleTables,
    *,
    kind: FireKind = FireKind.PHASE_3,
    charging: tuple[str, ...] = (),
) -> Volley:
    """The volley as the table shows it, measured by :mod:`rules.battlefield.geometry` and
    :mod:`rules.battlefield.field`.

    Range from the firer's colour stand (RULE-03-5.2), the stands with a clear view and whether it
    fires through its own skirmish screen (RULE-03-5.3, RULE-03-5.4), enfilade (RULE-03-5.7, none against a
    garrison, RULE-03-3.1) and the target's cover against this firer. The target must be in the
    firer's forward arc and in sight; in Phase 3 it must also be one the firer may choose
    (RULE-03-5.6; ``charging`` names enemies charging the firer, which must be fired on), and not
    one on the forward slope of the hill whose crest the firer stands more than 1.0" behind
    (RULE-03-4.3, Firing Prohibition).
    Raises :class:`IllegalAction` naming the rule when the volley may not be fired.
    """
    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import distance_in

    firer, target = battle.unit(firer_id), battle.unit(target_id)
    for u in (firer, target):
        if not u.in_play:
            raise IllegalAction(f"{u.name} has been destroyed")
    kind = FireKind.parse(kind)
    bf = Battlefield(battle, tables)
    if not bf.in_arc(firer, target):
        raise IllegalAction(f"{target.name} is not in {firer.name}'s 45 degree forward arc", "RULE-03-5.1")
    sight = bf.line_of_sight(firer, target)
    if not sight.visible:
        raise IllegalAction(f"{firer.name} cannot see {target.name}: {sight.reason}", sight.rule)
    if kind == FireKind.PHASE_3:
        for opt in bf.legal_targets(firer, charging):
            if opt.unit_id == target.id and not opt.allowed:
                raise IllegalAction(f"{firer.name} may not fire at {target.name}: {opt.why}", opt.rule)
    raked = bf.enfilade(firer, target)
    return Volley(
        firer.id,
        target.id,
        distance_in(firer, target, tables),
        kind=kind,
        enfilade=raked is not None,
        enfilade_side=raked,
        through_own_screen=sight.through_own_screen,
        **_cover_and_view(bf, battle, firer, target, sight.clear_stands),
    )


def _cover_and_view(bf, battle: Battle, firer: Unit, target: Unit, clear_stands: int) -> dict:
    cover = bf.cover_for(target, firer)
    fence = cover.feature_id is not None and battle.feature(cover.feature_id).type.value in _FENCES
    return {"cover": CoverClass.parse(cover.kind), "fence_cover": fence, "clear_stands": clear_stands}


def fire_inputs(battle: Battle, firer_id: str, target_id: str, tables: RuleTables) -> dict:
    """The table's inputs to a reaction's volley: the target's cover against the firer and the
    firer's stands with a clear view (``cover``, ``fence_cover``, ``clear_stands``), as keyword
    arguments for :func:`rules.reactions.declare.closing_volley` and
    :func:`rules.reactions.declare.opportunity_fire`.

    The arc and range were checked when the window opened; a target out of sight is refused.
    """
    from rules.battlefield.field import Battlefield

    firer, target = battle.unit(firer_id), battle.unit(target_id)
    bf = Battlefield(battle, tables)
    sight = bf.line_of_sight(firer, target)
    if not sight.visible:
        raise IllegalAction(f"{firer.name} cannot see {target.name}: {sight.reason}", sight.rule)
    return _cover_and_view(bf, battle, firer, target, sight.clear_stands)


# -- the Phase 3 action ----------------------------------------------------------------------


@action_type("shoot")
@dataclass(frozen=True)
class Shoot(Action):
    """Phase 3 Ranged Combat: one unit's volley, with what the table shows about it (see :class:`Volley`)."""

    firer_id: str
    target_id: str
    distance_in: float
    clear_stands: int | None = None
    enfilade: bool = False
    through_own_screen: bool = False
    cover: str = "none"
    fence_cover: bool = False
    # which flank of the target the fire rakes ("left", "right", "rear"); None in saves made
    # before it was recorded, which any refused flank then denies (see Volley)
    enfilade_side: str | None = None
    # whether the volley is refused from dead ground at an enemy on the forward slope (RULE-03-4.3,
    # Firing Prohibition); saves made before it was checked replay as they were played
    dead_ground_checked: bool = added_field(True, saved_before=False)

    @classmethod
    def on_table(cls, battle: Battle, firer_id: str, target_id: str, tables: RuleTables) -> Shoot:
        """The Phase 3 volley as :func:`measure_volley` finds it on the table."""
        v = measure_volley(battle, firer_id, target_id, tables)
        return cls(
            firer_id,
            target_id,
            v.distance_in,
            clear_stands=v.clear_stands,
            enfilade=v.enfilade,
            through_own_screen=v.through_own_screen,
            cover=v.cover.value,
            fence_cover=v.fence_cover,
            enfilade_side=v.enfilade_side,
        )

    def volley(self) -> Volley:
        return Volley(
            self.firer_id,
            self.target_id,
            self.distance_in,
            kind=FireKind.PHASE_3,
            clear_stands=self.clear_stands,
            enfilade=bool(self.enfilade),
            through_own_screen=bool(self.through_own_screen),
            cover=CoverClass.parse(self.cover),
            fence_cover=bool(self.fence_cover),
            enfilade_side=check_enfilade_side(self.enfilade_side),
        )


@resolver(Shoot)
def _resolve_shoot(battle: Battle, a: Shoot, dice: DiceSource, tables: RuleTables) -> Resolved:
    firer = battle.unit(a.firer_id)
    refusal = phase_3_refusal(battle, firer)
    if refusal is not None:
        raise refusal
    if a.dead_ground_checked:
        from rules.battlefield.field import Battlefield

        dead = Battlefield(battle, tables).dead_ground_prohibits(firer, battle.unit(a.target_id))
        if dead is not None:
            raise IllegalAction(dead, "RULE-03-4.3")
    out = resolve_volley(battle, a.volley(), dice, tables)
    t = out.plan.target
    summary = (
        f"{firer.name} fires at {t.name}: {out.hits} hit{'s' if out.hits != 1 else ''}, "
        f"{out.stands_lost} stand{'s' if out.stands_lost != 1 else ''} lost"
        + (", Disordered" if out.disorder_inflicted and not out.target_destroyed else "")
    )
    return Resolved(out.battle, list(out.steps), summary)
