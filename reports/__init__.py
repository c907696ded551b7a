"""The reports' contents, built from a saved game without Qt: the turn summary, a side's summary
(the turn as that side knew it) and the roster sheets. The window and the command line print them
(:mod:`gui.report`, :mod:`gui.side_report`, :mod:`gui.roster_print`)."""
