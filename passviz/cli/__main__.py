"""``python -m passviz.cli``."""

import sys

from passviz.cli import main

sys.exit(main())
