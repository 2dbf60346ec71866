"""The pytest plugin, in rooms layered bottom to top.

What a run is (`state`), which tests run and in which order (`selection`), what one test
gets while it runs (`items`), what the reporting process shows and writes (`reporting`),
and the hooks pytest calls, the entry point `wpc` (`hooks`, `hookspecs`).
"""

from __future__ import annotations
