"""``python -m gui``: the same as the ``brigadier`` command."""

import sys

from gui.cli import main

sys.exit(main())
