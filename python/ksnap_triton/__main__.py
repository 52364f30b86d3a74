"""``python -m ksnap_triton``: see cli.py."""

import sys

from .cli import main

sys.exit(main())
