"""`python -m clusters`: a shim over `wpc cluster`, kept for the README, the Makefile and CI."""

from __future__ import annotations

import sys

from wpc import cli

if __name__ == "__main__":
    sys.exit(cli.cluster(sys.argv[1:], prog="python -m clusters"))
