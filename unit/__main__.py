"""``python -m unit``: the same as the ``monopoly-city`` command."""

import sys

from unit.cli import main

sys.exit(main())
