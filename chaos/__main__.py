"""`python -m chaos`: a shim over `wpc chaos`, kept for the README, the Makefile and CI."""

from __future__ import annotations

import sys

from wpc import cli

if __name__ == "__main__":
    sys.exit(cli.chaos(sys.argv[1:], prog="python -m chaos"))
