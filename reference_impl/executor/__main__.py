"""`python -m reference_impl.executor` is `argoexec` (the packaged binary's entry point)."""

from __future__ import annotations

import sys

from reference_impl.executor import cli

if __name__ == "__main__":
    sys.exit(cli.main())
