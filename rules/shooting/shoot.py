"""Phase 3 Ranged Combat on the table: a volley measured as the table shows it (range, arc, sight,
enfilade, cover and the stands with a clear view), the table's inputs to a reaction's volley, and
the Shoot action, one unit's Phase 3 volley. The volley itself is planned and resolved by
:mod:`rules.shooting.volleys`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.action_base import Action, Resolved, action_type, added_field, resolver
from rules.battle.battle import Battle
from rules.battle.unit import Unit
from rules.dice import DiceSource
from rules.errors import IllegalAction
from rules.shooting.volleys import (
    CoverClass,
    FireKind,
    Volley,
    apply_volley,
    check_enfilade_side,
    dice_pool,
    phase_3_refusal,
    plan_volley,
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
    chosen: bool = False,
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
    ``chosen``: the target is one :func:`rules.legality.shoot_targets` has just allowed (its arc
    and priority are not asked again; its sight is, for the stands that see it).
    """
    from rules.battlefield.field import Battlefield
    from rules.battlefield.geometry import distance_in

    firer, target = battle.unit(firer_id), battle.unit(target_id)
    for u in (firer, target):
        if not u.in_play:
            raise IllegalAction(f"{u.name} {u.absent_words}")
    kind = FireKind.parse(kind)
    bf = Battlefield(battle, tables)
    if not chosen and not bf.in_arc(firer, target):
        raise IllegalAction(f"{target.name} is not in {firer.name}'s 45 degree forward arc", "RULE-03-5.1")
    sight = bf.line_of_sight(firer, target)
    if not sight.visible:
        raise IllegalAction(f"{firer.name} cannot see {target.name}: {sight.reason}", sight.rule)
    if kind == FireKind.PHASE_3 and not chosen:
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


_PART_FIELDS = (
    "target_id",
    "distance_in",
    "dice",
    "clear_stands",
    "enfilade",
    "through_own_screen",
    "cover",
    "fence_cover",
    "enfilade_side",
)


@action_type("shoot")
@dataclass(frozen=True)
class Shoot(Action):
    """Phase 3 Ranged Combat: one unit's volley, with what the table shows about it (see :class:`Volley`).

    A garrison may split its dice across the faces of its building (RULE-03-3.1, All-Around Fire):
    ``dice`` is then the share fired at ``target_id`` and ``split`` holds the other parts, each a
    volley at another target with its share (the fields of :data:`_PART_FIELDS`). The parts are
    resolved in order, each with its own dice, as one action. Saves made before it was added have
    neither, and fire the whole pool at one target as they were played.
    """

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
    dice: int | None = added_field(None, saved_before=None)
    split: tuple[Mapping[str, Any], ...] = added_field((), saved_before=())

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

    @classmethod
    def split_on_table(
        cls, battle: Battle, firer_id: str, shares: Mapping[str, int], tables: RuleTables
    ) -> Shoot:
        """A garrison's fire split across the faces of its building (RULE-03-3.1): ``shares`` gives
        the dice fired at each target, in the order they are fired, each volley measured on the
        table by :func:`measure_volley`."""
        if not shares:
            raise IllegalAction(f"{battle.unit(firer_id).name} splits its fire among no target")
        parts = []
        for target_id, n in shares.items():
            v = measure_volley(battle, firer_id, target_id, tables)
            parts.append(
                {
                    "target_id": target_id,
                    "distance_in": v.distance_in,
                    "dice": n,
                    "clear_stands": v.clear_stands,
                    "enfilade": v.enfilade,
                    "through_own_screen": v.through_own_screen,
                    "cover": v.cover.value,
                    "fence_cover": v.fence_cover,
                    "enfilade_side": v.enfilade_side,
                }
            )
        first, *rest = parts
        shot = cls(firer_id, **first, split=tuple(rest))
        shot.volleys()  # a malformed part is refused now, not when it is resolved
        return shot

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
            dice=self.dice,
        )

    def volleys(self) -> tuple[Volley, ...]:
        """The volley, and each part of a split fire after it."""
        out = [self.volley()]
        for part in self.split:
            unknown = set(part) - set(_PART_FIELDS)
            if unknown or "target_id" not in part or "distance_in" not in part or "dice" not in part:
                raise IllegalAction(
                    f"a part of a split fire has a target_id, a distance_in, its dice and what the table "
                    f"shows ({', '.join(_PART_FIELDS[3:])}), not {sorted(part)}"
                )
            kw = {k: part[k] for k in _PART_FIELDS[3:] if k in part}
            if "cover" in kw:
                kw["cover"] = CoverClass.parse(kw["cover"])
            kw["enfilade_side"] = check_enfilade_side(kw.get("enfilade_side"))
            target, far = str(part["target_id"]), part["distance_in"]
            out.append(Volley(self.firer_id, target, far, dice=part["dice"], **kw))
        return tuple(out)


def _split_refusal(battle: Battle, firer: Unit, volleys: tuple[Volley, ...], tables: RuleTables) -> None:
    """Refuse a split fire that is not a garrison's, fires twice at one target or more dice than
    the garrison has (RULE-03-3.1)."""
    from rules.battlefield.field import Battlefield

    if Battlefield(battle, tables).building_of(firer) is None:
        raise IllegalAction(
            f"{firer.name} garrisons no building: only a garrison splits its fire across its faces",
            "RULE-03-3.1",
        )
    targets = [v.target for v in volleys]
    if len(set(targets)) != len(targets):
        raise IllegalAction(f"{firer.name} splits its fire among distinct targets, once each", "RULE-03-3.1")
    pool = dice_pool(firer, tables)
    total = sum(v.dice or 0 for v in volleys)
    if any(v.dice is None for v in volleys) or total > pool:
        raise IllegalAction(
            f"{firer.name} has {pool} dice to split; each part fires a share of them, {total} in all here",
            "RULE-03-3.1",
        )


@resolver(Shoot)
def _resolve_shoot(battle: Battle, a: Shoot, dice: DiceSource, tables: RuleTables) -> Resolved:
    firer = battle.unit(a.firer_id)
    refusal = phase_3_refusal(battle, firer)
    if refusal is not None:
        raise refusal
    volleys = a.volleys()
    if len(volleys) > 1 or a.dice is not None:
        _split_refusal(battle, firer, volleys, tables)
    if a.dead_ground_checked:
        from rules.battlefield.field import Battlefield

        bf = Battlefield(battle, tables)
        for v in volleys:
            dead = bf.dead_ground_prohibits(firer, battle.unit(v.target))
            if dead is not None:
                raise IllegalAction(dead, "RULE-03-4.3")
    # every part is checked before any die is rolled; each is then fired with its own dice
    plans = [plan_volley(battle, v, tables) for v in volleys]
    steps: list = []
    said = []
    after = battle
    for i, plan in enumerate(plans):
        out = apply_volley(after, plan, dice, tables, mark_firer=i == len(plans) - 1)
        after = out.battle
        steps.extend(out.steps)
        said.append(
            f"{plan.target.name}: {out.hits} hit{'s' if out.hits != 1 else ''}, "
            f"{out.stands_lost} stand{'s' if out.stands_lost != 1 else ''} lost"
            + (", Disordered" if out.disorder_inflicted and not out.target_destroyed else "")
        )
    summary = f"{firer.name} fires at " + "; at ".join(said)
    if len(plans) > 1:
        shares = "/".join(str(v.dice) for v in volleys)
        summary += f" (its fire split across the faces of its building, {shares} dice)"
    return Resolved(after, steps, summary)
