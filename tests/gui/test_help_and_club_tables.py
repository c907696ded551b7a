"""The rules reference and the club tables in Preferences.

The reference has an entry for every rule id, in Brigadier's own words, with the numbers each takes
from the tables in force; F1 opens it on a fresh install; every rule cited in the log and in the
dialogs is a link to it, and, where the club set its copy of the chapters, to that copy too.
Preferences edits the tables as a table, checking each edit with the loader, keeps fixed rows
read-only, saves edits as a club file, and changes the open game's tables with a logged reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QLabel, QTextBrowser

from gui import help as rules_help
from gui import rule_links
from gui.preferences import COL_KEY, COL_VALUE, PreferencesDialog, club_files, parse_value
from rules.actions import NextPhase, SpendPip
from rules.tables import load_tables
from storage.game import Game
from storage.scenario import load_demo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def window(qtbot, game):
    from gui.app import make_main_window

    path = str(game.path)
    game.close()
    win = make_main_window(path)
    qtbot.addWidget(win)
    yield win
    win.controller.close()


CHAPTERS = ROOT.parent / "shared" / "rulebook"


def cited_ids() -> set[str]:
    """Every rule id the program cites: in its code and in its tables."""
    out: set[str] = set()
    for folder in ("rules", "gui", "storage", "resources/rules"):
        for p in (ROOT / folder).rglob("*"):
            if p.suffix in (".py", ".toml"):
                out |= set(rules_help.RULE_ID.findall(p.read_text(encoding="utf-8")))
    return out


def test_the_reference_has_an_entry_for_every_rule_id():
    ids = [e.id for e in rules_help.entries()]
    assert len(ids) == len(set(ids))
    assert cited_ids() <= set(ids)
    if CHAPTERS.is_dir():  # and every rule of the chapters
        in_chapters = set()
        for p in CHAPTERS.glob("*.txt"):
            in_chapters |= set(re.findall(r"\[(RULE-0\d-\d+\.\d+)\]", p.read_text(encoding="utf-8")))
        assert in_chapters <= set(ids)
    for e in rules_help.entries():
        assert e.title and len(e.governs) > 30 and len(e.applies) > 30, e.id


@pytest.mark.skipif(not CHAPTERS.is_dir(), reason="the chapters are not beside this copy of Brigadier")
def test_the_reference_is_in_brigadiers_own_words_not_the_chapters():
    """No run of eight words of the chapters is copied into the reference."""

    def words(text: str) -> list[str]:
        return re.findall(r"[a-z0-9]+", text.lower())

    chapter_runs = set()
    for p in CHAPTERS.glob("*.txt"):
        w = words(p.read_text(encoding="utf-8"))
        chapter_runs |= {" ".join(w[i : i + 8]) for i in range(len(w) - 7)}
    for e in rules_help.entries():
        w = words(f"{e.governs} {e.applies}")
        copied = [" ".join(w[i : i + 8]) for i in range(len(w) - 7) if " ".join(w[i : i + 8]) in chapter_runs]
        assert copied == [], (e.id, copied[:2])


def test_each_entry_lists_the_numbers_it_takes_from_the_tables_in_force():
    tables = load_tables()
    page = rules_help.reference_html(tables)
    assert "<a name='RULE-04-2.3'></a>" in page
    nums = {n.key: n for n in rules_help.numbers_of("RULE-04-2.3", tables)}
    assert nums["shooting.to_hit.short.rifled_musket"].value == 4
    # a club default that stands in for a rule is listed with it, as a club default
    flank = rules_help.numbers_of("RULE-04-5.1", tables)
    assert any(n.club_default for n in flank)
    # a club's value shows as the club's
    club = tables.with_values({"shooting.to_hit.short.rifled_musket": 5})
    assert "set by your club" in rules_help.reference_html(club, search="rifled_musket")


def test_f1_opens_the_reference_on_a_fresh_install(qtbot, window, monkeypatch):
    monkeypatch.delenv("BRIGADIER_RULEBOOK", raising=False)
    monkeypatch.setattr(rules_help, "rulebook_folder", lambda: None)  # no copy of the chapters
    QSettings().remove(rules_help.SETTING)
    assert window.reference_action.shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)
    window.reference_action.trigger()
    ref = rules_help.reference_window(window)
    assert ref.isVisible()
    text = ref.page.toPlainText()
    assert "RULE-03-4.3 — Reverse slopes and dead ground" in text
    assert "No copy of the chapters is set" in ref.source.text()
    ref.search.setText("dead ground")
    assert "RULE-03-4.3" in ref.page.toPlainText() and "RULE-06-5.1" not in ref.page.toPlainText()
    ref.show_rule("RULE-06-5.1")  # a citation opens it whole, at its rule
    assert ref.search.text() == "" and ref.current == "RULE-06-5.1"
    ref.close()


def test_a_citation_in_the_log_opens_the_reference_at_its_rule(qtbot, window):
    from rules.actions import ChangeTables

    c = window.controller
    # a club default standing in for RULE-04-2.3, which does not list carbines: its reason cites it
    ev = c.run(ChangeTables({"shooting.to_hit.short.breechloading_carbine": 5}, reason="a wet day"))
    log = window.log
    log.select_seq(ev.seq)
    page = log.detail.toHtml()
    assert "RULE-04-2.3" in log.detail.toPlainText() and 'href="rule:RULE-04-2.3"' in page
    log.detail.anchorClicked.emit(rules_help.QUrl("rule:RULE-04-2.3"))
    ref = rules_help.reference_window(window)
    assert ref.isVisible() and ref.current == "RULE-04-2.3"
    # the reference gives the numbers of the tables in force: the game's changed value
    assert "set by your club" in ref.page.toHtml()
    ref.close()


def test_every_rule_cited_in_a_dialog_is_a_link_to_the_reference(qtbot, window, answer):
    from gui import play

    c = window.controller
    cited: list[tuple[str, str]] = []

    def look(dlg: QDialog):
        if isinstance(dlg, PreferencesDialog):  # an entry selected: its rule, in full, below the table
            rows = {dlg.table.item(r, COL_KEY).text(): r for r in range(dlg.table.rowCount())}
            dlg.table.selectRow(rows["shooting.to_hit.short.rifled_musket"])
        dlg.grab()  # painted, as on screen: the labels' words are linked as they are drawn
        for w in dlg.findChildren(QLabel):
            for rid in rules_help.RULE_ID.findall(w.text()):
                assert f'href="rule:{rid}"' in w.text(), (type(dlg).__name__, w.text()[:80])
                assert w.textInteractionFlags() & Qt.TextInteractionFlag.LinksAccessibleByMouse
                cited.append((type(dlg).__name__, rid))
        for w in dlg.findChildren(QTextBrowser):
            page = w.toHtml()
            for rid in rules_help.RULE_ID.findall(w.toPlainText()):
                assert f'href="rule:{rid}"' in page, (type(dlg).__name__, rid)
                cited.append((type(dlg).__name__, rid))
        return QDialog.DialogCode.Rejected

    answer.dialog(look)
    c.run(SpendPip("stonewall") if "stonewall" in c.battle.brigades else NextPhase())
    window.preferences()
    play.declare_charge(c, window)
    play.shoot(c, window)
    kinds = {k for k, _ in cited}
    assert "PreferencesDialog" in kinds and len(cited) >= 3
    # a link clicked in a dialog opens the reference at the rule
    label = QLabel(rules_help.linkify("see RULE-06-1.3"), window)
    rule_links.connect_links(label, now=True)
    label.linkActivated.emit("rule:RULE-06-1.3")
    assert rules_help.reference_window(window).current == "RULE-06-1.3"


def test_the_clubs_copy_of_the_chapters_set_in_preferences_opens_at_the_rule(qtbot, window, tmp_path, answer):
    copy = tmp_path / "chapters"
    copy.mkdir()
    (copy / "ch06.txt").write_text(
        "06. Our club's chapter\n\n• [RULE-06-1.2] Our words on pips for an assault.\n\n• [RULE-06-1.3] Eligibility.\n",
        encoding="utf-8",
    )

    def choose(dlg):
        dlg.set_rulebook(str(copy))
        return QDialog.DialogCode.Accepted

    answer.dialog(choose)
    window.preferences()
    assert rules_help.rulebook_folder() == copy
    ref = rules_help.open_rule("RULE-06-1.2", window)
    assert "chapter:RULE-06-1.2" in ref.page.toHtml()  # the entry offers the club's copy
    assert ref.show_chapter("RULE-06-1.2")
    assert "Our words on pips for an assault" in ref.page.toPlainText()
    assert not ref.show_chapter("RULE-03-1.1")  # not in this copy
    ref.close()
    QSettings().remove(rules_help.SETTING)


# -- club tables in Preferences ----------------------------------------------------------------------


def test_an_edit_is_checked_as_it_is_made_by_the_loader_and_a_rule_row_is_read_only(qtbot):
    dlg = PreferencesDialog(load_tables())
    qtbot.addWidget(dlg)
    key = "shooting.max_range.smoothbore_musket"  # a club default: chapter 05 is not here
    assert dlg.edit_value(key, "15")
    assert dlg.edits[dlg.NEW_GAMES] == {key: 15.0}
    assert not dlg.edit_value(key, "500")  # the loader's range check
    assert dlg.error.text() == f"{key} not changed: {key} is 500.0, outside 0 to 200"
    rows = {dlg.table.item(r, COL_KEY).text(): r for r in range(dlg.table.rowCount())}
    assert dlg.table.item(rows[key], COL_VALUE).text() == "15"  # the cell went back
    assert dlg.table.item(rows[key], COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable
    assert not dlg.edit_value("command.staff_pips.per_brigade_per_turn", "two")
    assert "not a whole number" in dlg.error.text()
    # a number a chapter gives is read-only, and the loader refuses it as it refuses a club's copy
    given = "shooting.to_hit.short.rifled_musket"
    assert not dlg.table.item(rows[given], COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable
    assert "Given by RULE-04-2.3" in dlg.table.item(rows[given], COL_VALUE).toolTip()
    assert not dlg.edit_value(given, "5")
    assert (
        "by RULE-04-2.3, a number the chapters give: a club copy changes club defaults only"
        in dlg.error.text()
    )
    fixed = rows["units.health.fresh_above_percent"]
    assert not dlg.table.item(fixed, COL_VALUE).flags() & Qt.ItemFlag.ItemIsEditable
    assert not dlg.edit_value("units.health.fresh_above_percent", "80")
    assert "fixed by RULE-06-3.3" in dlg.error.text()
    assert dlg.edits[dlg.NEW_GAMES] == {key: 15.0}  # nothing refused was kept
    assert parse_value("yes", True) is True and parse_value("line, skirmish", ["line"]) == [
        "line",
        "skirmish",
    ]


def test_edits_are_saved_as_a_club_file_that_new_games_use(qtbot, tmp_path, window, answer):
    folder = tmp_path / "our club"

    def edit_and_save(dlg):
        dlg.view.setCurrentIndex(dlg.view.findData(dlg.NEW_GAMES))
        assert dlg.edit_value("movement.rate.assault_column", "5")
        assert dlg.save_club(str(folder))
        return QDialog.DialogCode.Accepted

    answer.dialog(edit_and_save)
    window.preferences()
    saved = load_tables(folder)
    assert saved.value("movement.rate.assault_column") == 5.0
    assert (folder / "movement.toml").is_file() and not (folder / "shooting.toml").exists()
    assert window.club_tables_path == str(folder)
    assert window.club_tables().value("movement.rate.assault_column") == 5.0
    # the file reads as a club's copy: the value, as a club default with its reason
    text = (folder / "movement.toml").read_text()
    assert "assault_column = { value = 5.0, club_default = true, reason = " in text and "[rate]" in text
    assert (
        club_files(load_tables(), {"melee.modifier.fresh": 2})["melee.toml"].count('rule = "RULE-06-3.3"')
        == 1
    )


def test_a_table_changed_mid_game_is_logged_with_its_reason_and_undone(qtbot, tmp_path, answer):
    from gui.app import make_main_window

    path = tmp_path / "demo.sqlite"
    Game.create(path, load_demo(), seed=3).close()
    win = make_main_window(str(path))
    qtbot.addWidget(win)
    try:
        c = win.controller
        c.run(NextPhase())
        answer.reason("the club reads smoothbores at 15 inches")

        def edit(dlg):
            assert dlg.showing == dlg.GAME
            assert dlg.edit_value("shooting.max_range.smoothbore_musket", "15")
            dlg._accept()
            return dlg.result()

        answer.dialog(edit)
        win.preferences()
        ev = c.events()[-1]
        assert ev.action.type == "change_tables"
        assert ev.action.reason == "the club reads smoothbores at 15 inches" and "15 inches" in ev.summary
        assert c.tables.value("shooting.max_range.smoothbore_musket") == 15.0
        win.log.select_seq(ev.seq)  # in the log, with its reason
        assert "the club reads smoothbores at 15 inches" in win.log.detail.toPlainText()
        c.undo()
        assert c.tables.value("shooting.max_range.smoothbore_musket") == 12.0
    finally:
        win.controller.close()


@pytest.mark.parametrize("room", [(1366, 768), (1280, 690)], ids=["laptop", "desktop-150%"])
def test_preferences_show_each_entry_in_words_and_what_it_means_wrapped(qtbot, monkeypatch, room):
    """Each entry by its words, its key only in its tooltip and in a column the umpire may show;
    what an entry means wraps within its column, which keeps the room to be read, on a 1366 x 768
    laptop and on a 1920 x 1080 desktop at 150% (1280 x 690 logical pixels less a task bar)."""
    from PySide6.QtCore import QRect

    from gui import screens
    from gui.preferences import COL_ENTRY, COL_MEANING
    from gui.table_words import entry_label

    monkeypatch.setattr(screens, "available", lambda widget=None: QRect(0, 0, *room))
    t = load_tables()
    dlg = PreferencesDialog(t)
    qtbot.addWidget(dlg)
    screens.fit_dialog(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.wait(20)
    assert dlg.width() <= room[0] and dlg.height() <= room[1]
    table = dlg.table
    assert table.horizontalHeaderItem(COL_ENTRY).text() == "Entry"
    assert table.isColumnHidden(COL_KEY)
    shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
    keys = {e.key for e in t}
    for r, e in enumerate(t):
        label = table.item(r, COL_ENTRY).text()
        assert label == entry_label(e.key) and label not in keys
        assert all(table.item(r, c).text() != e.key for c in shown)
        assert e.key in table.item(r, COL_ENTRY).toolTip()
    assert entry_label("melee.modifier.flank_or_rear") == "Melee modifier: flank or rear"
    assert entry_label("shooting.to_hit.short.rifled_musket") == "To hit, short range: rifled musket"
    # what it means: a column with room, every reason whole in its wrapped lines, in view
    width = table.columnWidth(COL_MEANING)
    assert width >= 300
    right = table.columnViewportPosition(COL_MEANING) + width
    assert right <= table.viewport().width()
    fm = table.fontMetrics()
    for r, e in enumerate(t):
        if e.reason:
            need = fm.boundingRect(QRect(0, 0, width - 8, 10_000), Qt.TextFlag.TextWordWrap, e.reason)
            assert need.height() <= table.rowHeight(r), (e.key, need.height(), table.rowHeight(r))
    # the keys on demand, and found by the filter
    dlg.show_keys.setChecked(True)
    assert not table.isColumnHidden(COL_KEY)
    dlg.search.setText("terrain.spotting.hidden_in")
    visible = [r for r in range(table.rowCount()) if not table.isRowHidden(r)]
    assert [table.item(r, COL_KEY).text() for r in visible] == ["terrain.spotting.hidden_in"]
