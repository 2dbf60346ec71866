"""`python -m conformance`: a shim over `wpc`'s suite verbs (`wpc.suite_cli`).

The verbs and their applications (launching, preflight, bench, differential, diff,
qualify, history) live in `wpc`; this name stays so the README, the Makefile and CI
keep working, with the program name they have always printed.
"""

from __future__ import annotations

import sys

from wpc import suite_cli

if __name__ == "__main__":
    sys.exit(suite_cli.main())
