"""`python -m reference_impl.executor` is `argoexec` (the bundle's entry point).

The launcher (`launching`) puts its own arguments first; they are taken off here.
"""

from __future__ import annotations

import os
import sys

from reference_impl.executor import cli
from reference_impl.executor import launching

if __name__ == "__main__":
    launch = launching.adopt(sys.argv[1:], os.environ)
    sys.exit(cli.main(launch.argv, executable=launch.launcher))
