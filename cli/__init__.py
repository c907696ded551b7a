"""The command line (``brigadier``): every command of the README's table, asking the rules and
storage as the window does, and the terminal's answers to the Trigger Windows a march or a charge
opens. It imports Qt only to draw pictures and PDFs (through :mod:`gui.export` and the report
printers), never for a command that plays or reads a game."""
