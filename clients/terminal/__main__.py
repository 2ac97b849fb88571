"""``python -m clients.terminal``: the same as ``croupier play``."""

import sys

from clients.terminal import main

sys.exit(main())
