"""Where the names on the map go: each by its unit, clear of one another, of the units (their
stands, markers and health glyphs) and of linear obstacles; the terrain's names by their features.

A name sits by its unit; where every place beside it is taken, a full name tries its short form,
and then the name moves aside, ring by ring round its unit, as near as it can, with a leader line
to its unit. No two names overlap and no name covers a unit: those are hard limits of the placing,
not preferences. The names themselves are the items of :mod:`gui.canvas.labels`; the grids the
places are looked for on, :mod:`gui.canvas.label_grids`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

from PySide6.QtCore import QLineF, QPointF, QRectF, QTimer
from PySide6.QtWidgets import QGraphicsItem

from gui.canvas.label_grids import _Bits
from gui.canvas.style import feature_anchor


class LabelLayout:
    """The placing of the names, for :class:`~gui.canvas.scene.BattlefieldScene` (its ``units``,
    ``terrain`` and ``table_rect``, the zoom of its first view)."""

    #: Pixels an inch from which units are named in full; below it, by their short names.
    FULL_NAMES_PX = 9.0
    #: Below this the whole table is a few hundred pixels across: the names are not placed at all.
    MIN_LABEL_SCALE = 2.5
    #: How many rings round its unit a name that had to move aside may try, and how far it may go
    #: (a name further than that from its unit would read as a unit's over there: it is left off,
    #: and shows on hover).
    MAX_RINGS, MAX_LEADER_IN = 24, 12.0
    #: The rings a name left off for want of room is tried on again after a move near it.
    NEAR_RINGS = 4

    def label_scale(self) -> float:
        """Pixels an inch that the names were last placed for."""
        return self._label_scale

    def label_rect(self, label: QGraphicsItem) -> QRectF:
        """The table area (inches) a name drawn at a fixed size covers at the zoom it was placed for."""
        k = 1.0 / self._label_scale
        lb = label.boundingRect()
        p = label.scenePos()
        return QRectF(p.x() + lb.left() * k, p.y() + lb.top() * k, lb.width() * k, lb.height() * k)

    def name_detail(self, scale: float) -> str:
        """The level of detail of the names at ``scale`` pixels an inch: "full" or "short"."""
        return "full" if scale >= self.FULL_NAMES_PX else "short"

    def layout_labels(self, scale: float | None = None, only: Iterable[str] | None = None) -> None:
        """Place every name by its unit, clear of the other names, of every unit and of walls and
        streams.

        Names are drawn at a fixed size in pixels, so their size in inches depends on the zoom
        (``scale``: pixels an inch; the first view's zoom when not given), and so does their level
        of detail (:meth:`name_detail`). A unit's name is tried behind it (relative to its facing),
        then beside it and in front; where all of those are taken, a full name tries its short
        form there; then the name moves aside, ring by ring, to the nearest free place, and a
        leader line joins it to its unit. A place is free when it is on the table and covers no
        other name, no stand, marker or health glyph of any unit; among the free places of a ring,
        the one that covers least of the walls, fences, roads and streams is taken. A name with no
        free place within reach is left off (it shows on hover) rather than laid over another.
        Terrain names go at their feature's centre or beside it where that is free, and are left
        off where it is not.

        With ``only`` (unit ids, at the same zoom), just those units' names are placed again, and
        the names that their units now cover: a move does not shift names across the table. A
        name with no room beside its unit that has moved aside before, its unit facing as it did
        then, goes back where it last was by its unit while that place is free, before the rings
        are searched.
        """
        for u in self._place_names(scale, only):
            it = self.units.get(u)
            if it is not None:
                it.place_changed = False

    def _place_names(self, scale: float | None, only: Iterable[str] | None) -> Iterable[str]:
        """:meth:`layout_labels`; the units whose names it placed (or left off)."""
        if scale is None:
            views = self.views()
            scale = views[0].transform().m11() if views else self._label_scale
        if not scale or scale <= 0:
            return ()
        self._label_scale = scale
        k = 1.0 / scale  # inches a pixel
        table = self.table_rect
        detail = self.name_detail(scale)
        incremental = only is not None and abs(scale - self._placed_scale) < 1e-9
        # a grid a pixel or so fine (a quarter of an inch at most) over the table, kept from one
        # placing to the next at the same zoom: a move re-marks only the units it moved
        area = table.adjusted(-1, -1, 1, 1)
        cell = min(max(1.5 * k, 0.05), 0.25)
        pad = 1.0 * k
        key = (scale, area.getRect(), cell)
        grids = getattr(self, "_label_grids", None)
        if not incremental or grids is None or grids[0] != key:
            incremental = False
            units = [it for it in self.units.values() if it.isVisible()]
            solid = _Bits(area, cell)  # stands, markers and health glyphs: what a name may never cover
            mark = solid.add_boxes
            for it in units:
                it.set_glyph_scale(scale)
                # each box with a pixel of room round it
                mark(
                    [(x - pad, y - pad, w + pad + pad, h + pad + pad) for x, y, w, h in it.solid_boxes()],
                    it.unit_id,
                )
            lines = _Bits(area, cell, owned=False)  # walls, fences, hedges, streams, roads
            for t in self.terrain.values():
                lines.add_boxes(_obstacle_boxes(t))
            taken = _Bits(area, cell)  # names placed already
            self._label_grids = (key, solid, lines, taken)
        else:
            _key, solid, lines, taken = grids
        # what was taken before the change, in the rows a mark was taken off: a cell it frees may
        # make room for a name left off (elsewhere marks were only added)
        before: dict[int, int] = {}
        placed_again: set[object] = set()
        if incremental:
            # a unit whose place, look and name are as they were when its name was placed (an
            # umpire's ruling on its micro-hits) leaves its name where it is
            moved = {u for u in only or () if u not in self.units or self.units[u].place_changed}
            if not moved:
                return ()
            solid_rows, taken_rows = solid.rows, taken.rows

            def keep(grid: _Bits, owner: object) -> None:
                for _m, j0, j1 in grid._spans.get(owner, ()):
                    for j in range(j0, j1 + 1):
                        if j not in before:
                            before[j] = solid_rows[j] | taken_rows[j]

            for u in moved:  # where they stood, and their names there, are free now
                keep(solid, u)
                keep(taken, u)
                solid.remove(u)
                taken.remove(u)
            marks: list[tuple[float, float, float, float, str]] = []
            for u in moved:
                it = self.units.get(u)
                if it is None or not it.isVisible():
                    continue
                it.set_glyph_scale(scale)
                for x, y, w, h in it.solid_boxes():
                    marks.append((x - pad, y - pad, w + pad + pad, h + pad + pad, u))
            # the names whose cells the units' new places cover are placed again (terrain names too)
            covered = taken.owners_meeting_spans([solid.span(x, y, x + w, y + h) for x, y, w, h, _u in marks])
            for key in covered:
                keep(taken, key)
            for x, y, w, h, u in marks:
                solid.add_box(x, y, w, h, u)
            for key in covered:
                taken.remove(key)
            placed_again = moved | covered
            laid = placed_again
            named = [it for u, it in self.units.items() if u in placed_again and it.named and it.isVisible()]
            terrain_labels = [
                t
                for fid, t in self.terrain.items()
                if ("terrain", fid) in covered
                and (t.name_label.isVisible() or getattr(t, "_name_crowded", False))
            ]
        else:
            laid = self.units.keys()
            named = [it for it in units if it.named]
            terrain_labels = [
                t
                for t in self.terrain.values()
                if t.name_label.isVisible() or getattr(t, "_name_crowded", False)
            ]
        # the detail each name is shown with once placed: weighed (its size) before it is shown
        want = {}
        for it in named:
            want[it] = detail
            it.label.setScale(k)  # its size on screen at this zoom (shown on hover where left off)
        self._placed_scale = scale
        if scale < self.MIN_LABEL_SCALE:
            for it in named:
                it.label.set_detail(detail)
                it.show_name(False)
            return laid

        tx0, ty0, tx1, ty1 = table.left(), table.top(), table.right(), table.bottom()

        gx0, gy0, inv = solid.x0, solid.y0, 1.0 / solid.cell
        last_i, last_j = solid.nx - 1, len(solid.rows) - 1
        solid_rows, taken_rows = solid.rows, taken.rows
        floor, ceil = math.floor, math.ceil

        def best(cands: list[tuple[float, float]], w: float, h: float) -> QRectF | None:
            """The free place among ``cands`` (centres) that covers least of the linear
            obstacles, the first of them where several cover none."""
            found, found_cost = None, math.inf
            hw, hh = w / 2, h / 2
            for cx, cy in cands:
                x0, y0, x1, y1 = cx - hw, cy - hh, cx + hw, cy + hh
                if x0 < tx0 or y0 < ty0 or x1 > tx1 or y1 > ty1:
                    continue
                # the cells it touches, worked out here rather than by a call: every candidate
                # place goes through this loop
                i0 = floor((x0 - gx0) * inv)
                i1 = ceil((x1 - gx0) * inv) - 1
                if i1 > last_i:
                    i1 = last_i
                j0 = floor((y0 - gy0) * inv)
                j1 = ceil((y1 - gy0) * inv) - 1
                if j1 > last_j:
                    j1 = last_j
                mask = ((1 << (i1 - i0 + 1)) - 1) << i0
                clear = True
                for j in range(j0, j1 + 1):
                    if (solid_rows[j] | taken_rows[j]) & mask:
                        clear = False
                        break
                if not clear:
                    continue
                c = lines.count((mask, j0, j1))
                if c < found_cost:
                    found, found_cost = QRectF(x0, y0, w, h), c
                    if c == 0:
                        break
            return found

        def settle(it, r: QRectF, leader: bool) -> None:
            taken.add(r, it.unit_id)
            label = it.label
            label.set_detail(want.get(it, label.detail))
            off = it.pos()
            lb = label.boundingRect()
            label.setPos(r.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))
            if leader:
                a, b = _leader_ends(it, r)
                it.leader.setLine(QLineF(a - off, b - off))
            it.show_name(True, leader)
            if leader:  # where it went from its unit's centre (see step 3)
                fp = it.footprint
                c = r.center()
                it.aside = (
                    c.x() - fp.centre[0] - off.x(),
                    c.y() - fp.centre[1] - off.y(),
                    _size_key(r.width(), r.height()),
                    fp.facing_deg,
                )

        def size(it) -> tuple[float, float]:
            label = it.label
            pw, ph = label.size_px_as(want.get(it, label.detail))
            return pw * k, ph * k

        def places(cands: list[tuple[float, float]], w: float, h: float) -> list[tuple]:
            """The places among ``cands`` (centres) on the table, each with the cells it covers:
            (left, top, row mask, first row, last row)."""
            out = []
            hw, hh = w / 2, h / 2
            for cx, cy in cands:
                x0, y0, x1, y1 = cx - hw, cy - hh, cx + hw, cy + hh
                if x0 < tx0 or y0 < ty0 or x1 > tx1 or y1 > ty1:
                    continue
                i0 = floor((x0 - gx0) * inv)
                i1 = ceil((x1 - gx0) * inv) - 1
                if i1 > last_i:
                    i1 = last_i
                j1 = ceil((y1 - gy0) * inv) - 1
                if j1 > last_j:
                    j1 = last_j
                out.append((x0, y0, ((1 << (i1 - i0 + 1)) - 1) << i0, floor((y0 - gy0) * inv), j1))
            return out

        def best_of(spots: list[tuple], w: float, h: float) -> QRectF | None:
            """:func:`best` of places worked out by :func:`places`."""
            found, found_cost = None, math.inf
            for x0, y0, mask, j0, j1 in spots:
                for j in range(j0, j1 + 1):
                    if (solid_rows[j] | taken_rows[j]) & mask:
                        break
                else:
                    c = lines.count((mask, j0, j1))
                    if c < found_cost:
                        found, found_cost = QRectF(x0, y0, w, h), c
                        if c == 0:
                            break
            return found

        beside: dict = {}  # each unit's places beside it, worked out once for steps 1 and its order

        def room(it) -> int:
            """How many of the places beside a unit no unit covers: the fewest are placed first."""
            w, h = size(it)
            spots = beside[it] = places(_beside(it, w, h), w, h)
            n = 0
            for _x0, _y0, mask, j0, j1 in spots:
                for j in range(j0, j1 + 1):
                    if solid_rows[j] & mask:
                        break
                else:
                    n += 1
            return n

        # 1: each name beside its unit, full or short as the zoom has it; the units with the least
        # room beside them first, so that a unit with room to spare does not take another's only place
        left = []
        for it in sorted(named, key=room):
            w, h = size(it)
            r = best_of(beside[it], w, h)
            if r is None:
                left.append(it)
            else:
                settle(it, r, False)
        # 2: a full name with no room beside its unit tries its short name there
        still = []
        for it in left:
            if want[it] == "full":  # (the short name is always another text, or another size)
                want[it] = "short"
                w, h = size(it)
                r = best(_beside(it, w, h), w, h)
                if r is not None:
                    settle(it, r, False)
                    continue
            still.append(it)
        # 3: a name that has moved aside before, its unit moved facing as it did, goes where it
        # last was by its unit while that place is free: a unit nudged, or a ruling that widens
        # its glyph, does not send its name round it again
        if incremental and still:
            rest = []
            for it in still:
                if it.aside is not None:  # (every name here was placed again: its unit changed)
                    w, h = size(it)
                    ox, oy, was, facing = it.aside
                    fp = it.footprint
                    if was == _size_key(w, h) and facing == fp.facing_deg:
                        p = it.pos()
                        r = best([(fp.centre[0] + p.x() + ox, fp.centre[1] + p.y() + oy)], w, h)
                        if r is not None:
                            settle(it, r, True)
                            continue
                rest.append(it)
            still = rest
        # 4: the rest move aside, ring by ring, each to the nearest free place, with a leader line
        for ring in range(1, self.MAX_RINGS + 1):
            if not still:
                break
            later = []
            for it in still:
                w, h = size(it)
                cands = _ring(it, w, h, ring, self.MAX_LEADER_IN)
                r = best(cands, w, h) if cands else None
                if r is None:
                    later.append(it)
                else:
                    settle(it, r, True)
            still = later
        # 5: no free place within reach (a very crowded table at this zoom): the name is left off
        for it in still:
            it.show_name(False)
        for it, d in want.items():  # each name as it was weighed (shown on hover where left off)
            it.label.set_detail(d)
        # 6: after a change, a name left off is tried again near its unit where the change freed
        # cells within its reach (nothing else there has changed: it would find no room)
        freed = {j: b & ~(solid_rows[j] | taken_rows[j]) for j, b in before.items()}
        freed = {j: f for j, f in freed.items() if f}
        if freed:
            # the names left off before the change, and those moved aside from their units (the
            # names of the units it changed were placed again already)
            retry = [
                it
                for u, it in self.units.items()
                if (not it.name_placed or it.leader.isVisible())
                and u not in placed_again
                and it.named
                and it.isVisible()
            ]
            freed_any, freed_j0, freed_j1 = 0, min(freed), max(freed)
            for f in freed.values():
                freed_any |= f
            for it in retry:
                w, h = size(it)
                fp = it.footprint
                p = it.pos()
                cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
                reach = _ring_reach(it, w, h, self.NEAR_RINGS) + max(w, h)
                span = solid.span(cx - reach, cy - reach, cx + reach, cy + reach)
                if span is None:
                    continue
                mask, j0, j1 = span
                if j1 < freed_j0 or j0 > freed_j1 or not freed_any & mask:
                    continue
                if not any(f & mask for j, f in freed.items() if j0 <= j <= j1):
                    continue
                if it.name_placed:  # moved aside: back beside its unit where there is room now
                    away = self.label_rect(it.label)
                    taken.remove(it.unit_id)
                    r = best(_beside(it, w, h), w, h)
                    if r is None:
                        taken.add(away, it.unit_id)
                    else:
                        settle(it, r, False)
                        it.aside = None
                    continue
                r = best(_beside(it, w, h), w, h)
                if r is not None:
                    settle(it, r, False)
                    continue
                for ring in range(1, self.NEAR_RINGS + 1):
                    r = best(_ring(it, w, h, ring, self.MAX_LEADER_IN), w, h)
                    if r is not None:
                        settle(it, r, True)
                        break
        for t in terrain_labels:
            lab = t.name_label
            pw, ph = lab.size_px()
            w, h = pw * k, ph * k
            a = feature_anchor(t.feature)
            if t.feature.is_linear:
                cands = [
                    a + QPointF(0, -h),
                    a + QPointF(0, h),
                    a + QPointF(w / 2, -h),
                    a + QPointF(-w / 2, h),
                ]
            else:
                cands = [
                    a,
                    a + QPointF(0, -1.5 * h),
                    a + QPointF(0, 1.5 * h),
                    a + QPointF(-w / 2, 0),
                    a + QPointF(w / 2, 0),
                ]
            r = best([(c.x(), c.y()) for c in cands], w, h)
            t._name_crowded = r is None
            taken.remove(("terrain", t.feature.id))
            if r is None:
                lab.setVisible(False)
                continue
            taken.add(r, ("terrain", t.feature.id))
            parent = lab.parentItem()
            off = parent.pos() if parent is not None else QPointF()
            lb = lab.boundingRect()
            if lab.placed:
                lab.setScale(k)
            lab.setPos(r.topLeft() - off - QPointF(lb.left() * k, lb.top() * k))
            lab.setVisible(True)
        return laid

    def _labels_need_layout(self) -> None:
        if not self._label_pending:
            self._label_pending = True
            QTimer.singleShot(0, self._deferred_layout)

    def _deferred_layout(self) -> None:
        self._label_pending = False
        self.layout_labels()


def _obstacle_boxes(t) -> list[tuple[float, float, float, float]]:
    """A terrain item's ``obstacle_rects`` as (x, y, width, height), kept while they stand."""
    rects = t.obstacle_rects
    kept = getattr(t, "_obstacle_boxes", None)
    if kept is None or kept[0] is not rects:
        kept = t._obstacle_boxes = (rects, [(r.x(), r.y(), r.width(), r.height()) for r in rects])
    return kept[1]


def _beside(it, w: float, h: float) -> list[tuple[float, float]]:
    """Where a name of ``w`` x ``h`` inches may go right beside its unit (centres, scene inches):
    behind it (relative to its facing), further behind, beside it, and in front."""
    fp = it.footprint
    fx, fy = fp.forward
    rx, ry = fp.right
    p = it.pos()
    cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
    # half the name's reach along the facing (a name is drawn level: w across, h up and down)
    along_f = (abs(fx) * w + abs(fy) * h) / 2
    along_r = (abs(rx) * w + abs(ry) * h) / 2
    back = fp.depth / 2 + (1.05 if it._marker_list else 0.3) + along_f
    side = fp.frontage_in / 2 + 0.3 + along_r
    front = fp.depth / 2 + 0.35 + along_f
    # (steps back along the facing, steps right): behind, further behind, beside, in front
    places = (
        (back, 0.0),
        (back, -w / 3),
        (back, w / 3),
        (back + h + 0.1, 0.0),
        (0.0, side),
        (0.0, -side),
        (back, side),
        (back, -side),
        (back + 2 * h + 0.2, 0.0),
        (-front, 0.0),
    )
    return [(cx - fx * b + rx * r, cy - fy * b + ry * r) for b, r in places]


# the turns (degrees from straight behind the unit) a name moving aside tries, behind first
_TURNS = (0, 20, -20, 45, -45, 70, -70, 90, -90, 115, -115, 140, -140, 160, -160, 180)


def _ring(it, w: float, h: float, ring: int, reach_in: float) -> list[tuple[float, float]]:
    """The places (centres, scene inches) of the ``ring``-th ring round a unit: the distance from
    the unit's centre grows by about a name's height a ring, and each ring is tried from behind
    the unit round to its front. Empty once the ring is more than ``reach_in`` out."""
    fp = it.footprint
    p = it.pos()
    cx, cy = fp.centre[0] + p.x(), fp.centre[1] + p.y()
    step = max(h * 1.1, 0.5)
    base = math.hypot(fp.frontage_in, fp.depth) / 2 + min(w, h) / 2
    out = ring * step
    if ring > 1 and out > reach_in:
        return []
    reach = base + out
    back = math.atan2(-fp.forward[1], -fp.forward[0])
    # far out, more places round the ring, so that they stay about a name's height apart
    cb, sb = math.cos(back), math.sin(back)
    return [  # each turn's (cos, sin), turned by the unit's "behind"
        (cx + (ca * cb - sa * sb) * reach, cy + (sa * cb + ca * sb) * reach)
        for ca, sa in _turns(int(2 * math.pi * reach / max(h, 0.3)))
    ]


def _ring_reach(it, w: float, h: float, ring: int) -> float:
    """How far from its unit's centre the ``ring``-th ring of a name of ``w`` x ``h`` goes."""
    fp = it.footprint
    return math.hypot(fp.frontage_in, fp.depth) / 2 + min(w, h) / 2 + ring * max(h * 1.1, 0.5)


@lru_cache(maxsize=256)
def _turns(n: int) -> tuple[tuple[float, float], ...]:
    """``n`` turns from straight behind (at least :data:`_TURNS`), nearest behind first, as their
    (cos, sin)."""
    if n <= len(_TURNS):
        angles = [math.radians(t) for t in _TURNS]
    else:
        angles = sorted(
            (2 * math.pi * i / n for i in range(n)), key=lambda a: abs(math.remainder(a, 2 * math.pi))
        )
    return tuple((math.cos(a), math.sin(a)) for a in angles)


def _size_key(w: float, h: float) -> tuple[float, float]:
    """A name box's size, as kept to know the same name at the same zoom again."""
    return round(w, 9), round(h, 9)


def _leader_ends(it, r: QRectF) -> tuple[QPointF, QPointF]:
    """A leader line's ends (scene inches): the unit's anchor nearest the name (its front corners,
    the middle of its front or rear edge), and the point of the name's box nearest to that."""
    fp = it.footprint
    off = it.pos()
    anchors = [QPointF(*p) + off for p in (fp.centre_front, fp.left_front, fp.right_front)]
    cx, cy = fp.centre
    fx, fy = fp.forward
    anchors.append(QPointF(cx - fx * fp.depth / 2, cy - fy * fp.depth / 2) + off)
    centre = r.center()
    unit_end = min(anchors, key=lambda p: (p.x() - centre.x()) ** 2 + (p.y() - centre.y()) ** 2)
    x = min(max(unit_end.x(), r.left()), r.right())
    y = min(max(unit_end.y(), r.top()), r.bottom())
    return unit_end, QPointF(x, y)
