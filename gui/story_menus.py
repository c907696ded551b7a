"""File > Export after-action report and File > Export replay, each everything or as one side
knew it. The menus are made with the window; what they write (:mod:`gui.aar`,
:mod:`gui.replay_export`, and the reports and charts they draw on) is imported when first asked
for, not while the window opens.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMenu


def _insert_after(window: Any, menu: QMenu, after: Any) -> None:
    file_menu = window.menus["file"]
    acts = file_menu.actions()
    anchor = after.menuAction() if after is not None else window.export_summary_action
    i = acts.index(anchor) if anchor in acts else len(acts) - 1
    if i + 1 < len(acts):
        file_menu.insertMenu(acts[i + 1], menu)
    else:
        file_menu.addMenu(menu)


def export_aar(window: Any, side: str | None) -> Any:
    from gui.aar import export_aar as export

    return export(window, side)


def export_replay(window: Any, side: str | None) -> Any:
    from gui.replay_export import export_replay as export

    return export(window, side)


def _menu(window: Any, title: str, key: str, after: Any, verb: str, export: Any) -> QMenu:
    menu = QMenu(title, window)
    _insert_after(window, menu, after)
    window.menus[key] = menu

    def fill() -> None:
        menu.clear()
        b = window.controller.battle
        if b is None:
            menu.addAction("(no game open)").setEnabled(False)
            return
        menu.addAction("&Everything (the umpire's)…", lambda: export(window, None))
        for s in b.oob.sides:
            menu.addAction(f"As the {s.name} side {verb} it…", lambda sid=s.id: export(window, sid))

    menu.aboutToShow.connect(fill)
    fill()
    return menu


def install(window: Any) -> None:
    """Add File > Export after-action report and File > Export replay (animated) to a main window,
    after File > Export side report."""
    aar = _menu(
        window, "Export &after-action report", "aar", window.menus.get("side_reports"), "knew", export_aar
    )
    _menu(window, "Export re&play (animated)", "replay", aar, "saw", export_replay)
