"""`python -m conformance.tools contexts`: print `<ref> <context-dir>` for load-images."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conformance.tools import TAG
from conformance.tools import prepare_context


def main() -> int:
    """Prepare the tools image context; the cache dir comes from WPC_CACHE_DIR."""
    if sys.argv[1:] != ["contexts"]:
        sys.stderr.write("usage: python -m conformance.tools contexts\n")
        return 2
    cache = Path(os.environ.get("WPC_CACHE_DIR", Path.home() / ".cache" / "wpc"))
    sys.stdout.write(f"{TAG} {prepare_context(cache)}\n")
    return 0


sys.exit(main())
