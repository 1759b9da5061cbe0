"""``python -m inkcrawl``: the same as the ``inkcrawl`` command."""

import sys

from inkcrawl.cli import main

sys.exit(main())
