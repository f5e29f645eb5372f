"""``python -m workers.replay ...``: see :mod:`workers.replay.cli`."""

import sys

from workers.replay.cli import main

if __name__ == "__main__":
    sys.exit(main())
