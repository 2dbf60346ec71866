"""What a run found, as plain data, in rooms layered bottom to top.

One item (`items`) and the suite's scores (`scores`), the whole run's document
(`runs`), its renderings (`rendering`), shard reports merged into one (`merging`).
"""

from __future__ import annotations
