from __future__ import annotations

import sys

from wpc.cli import main

sys.exit(main())
