from __future__ import annotations

import sys

from clusters.cli import main

sys.exit(main())
