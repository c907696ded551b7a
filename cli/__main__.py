"""``python -m cli``: the same as the ``brigadier`` command."""

import sys

from cli.main import main

sys.exit(main())
