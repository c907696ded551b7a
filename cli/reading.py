"""The commands that read a game without changing it: ``info``, ``log``, ``pending``, ``verify``
and ``sight``.
"""

from __future__ import annotations

import argparse

from cli.common import EXIT_OK, check_turn, open_game, print_event
from rules.battle.words import plural


def print_info(game) -> None:
    from rules.turn.sequence import phase_title

    b = game.battle
    print(f"Battle: {b.name}")
    print(f"{phase_title(b)}")
    print(
        f"Journal: {game.last_seq} events" + (f", {len(game.redo_events())} undone" if game.can_redo else "")
    )
    print("(ids in brackets: the unit, brigade and side ids that move, shoot and override take)")
    for side in b.oob.sides:
        print(f"{side.name} [{side.id}]: {b.oob.stands(side=side.id)} stands")
        for br in b.oob.brigades_of(side.id):
            reserved = f", {br.staff_pips_reserved} reserved" if br.staff_pips_reserved else ""
            print(
                f"  {br.name} [{br.id}] ({br.brigadier.name or 'no Brigadier'}, {br.state.value}): "
                f"{plural(b.oob.stands(brigade=br.id), 'stand')}, {plural(br.staff_pips, 'Staff Pip')}{reserved}"
            )
            for u in b.oob.units_of_brigade(br.id):
                marks = f" ({', '.join(sorted(m.value for m in u.markers))})" if u.markers else ""
                late = f"; not on the table yet: arrives {u.arrives.words()}" if u.arrives is not None else ""
                print(
                    f"    {u.name} [{u.id}]: {u.stands}/{u.stands_start} stands, {u.health.value}, "
                    f"{u.formation.label.lower()}{marks}{late}"
                )


def cmd_info(args: argparse.Namespace) -> int:
    with open_game(args.game) as game:
        print_info(game)
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    with open_game(args.game) as game:
        if args.turn is not None:
            check_turn(game, args.turn)
        events = game.events(turn=args.turn)
        if not events:
            print(
                "Nothing has been done yet." if args.turn is None else f"Turn {args.turn} has no events yet."
            )
        for ev in events:
            print_event(ev, f"{ev.seq:>5}  turn {ev.turn} {ev.side} {ev.phase}: ", "         ")
    return EXIT_OK


def cmd_pending(args: argparse.Namespace) -> int:
    """What is still open in the phase (or, with --end-turn, in the rest of the side's turn), as the
    Checklist dock lists it: each item with its rule and the ids of the units it concerns."""
    from rules.battle.words import Phase as _Phase
    from rules.turn.sequence import phase_title
    from storage.checklist import left_open_items, open_items

    with open_game(args.game) as game:
        items = left_open_items(game, True) if args.end_turn else open_items(game)
        print(phase_title(game.battle))
        if not items:
            where = "the side's turn" if args.end_turn else "this phase"
            print(f"Nothing is left to do in {where}.")
        for phase in dict.fromkeys(i.phase for i in items):
            if args.end_turn:
                print(_Phase.title_of(phase))
            for i in (x for x in items if x.phase == phase):
                ids = " ".join(i.units) or i.brigade_id or ""
                block = "  (blocks the end of the phase)" if i.blocks else ""
                print(f"  {i.kind:<13} {ids:<16} {i}{block}")
        if items:
            print(f"{plural(len(items), 'item')} left; next-phase and end-turn log them as left undone.")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from storage.replay import has_chain, verify

    with open_game(args.game) as game:
        n = verify(game)
        chained = has_chain(game)
    print(
        f"{args.game}: all {n} events replay to the saved game"
        + (
            ", and the journal is as it was written."
            if chained
            else " (a save of a format before the journal's hash chain: it is read here, not brought up to date)."
        )
    )
    return EXIT_OK


def cmd_sight(args: argparse.Namespace) -> int:
    """What a side sees of the enemy now, and why it does not see the rest (for the umpire)."""
    from rules.sight.spotting import check_side, spot
    from storage.sightings import Sightings

    with open_game(args.game) as game:
        b = game.battle
        side = check_side(b, args.side)
        s = spot(b, side, game.tables)
        name, enemy = b.oob.side_name(side), b.oob.side_name(b.oob.enemy_of(side))
        total = len(s.seen_by) + len(s.unseen)
        print(
            f"The {name} side sees {len(s.seen_by)} of the {enemy} side's {plural(total, 'unit')} on the table."
        )
        for uid, by in sorted(s.seen_by.items(), key=lambda kv: b.unit(kv[0]).name):
            print(f"  seen: {b.unit(uid).name} [{uid}], by {', '.join(b.unit(v).name for v in by)}")
        for uid, why in sorted(s.unseen.items(), key=lambda kv: b.unit(kv[0]).name):
            rule = f" [{why.rule}]" if why.rule else ""
            print(f"  not seen: {b.unit(uid).name} [{uid}]: {why.reason}{rule}")
        sightings = Sightings.of(game)
        sightings.update()
        for uid, last in sorted(sightings.knowledge(side).ghosts().items(), key=lambda kv: kv[1].unit.name):
            u = last.unit
            print(f"  last seen turn {last.turn}: {u.name} [{uid}] at ({u.x:g}, {u.y:g})")
    return EXIT_OK
