"""The stable name of a report item, for files that outlive node IDs.

A node ID carries the test file's path, which moves when the suite is
reorganised and differs between checkouts; the durations file
(`conformance.report.runs.durations`) and the shard assignment
(`conformance.plugin.state.scheduling`) key items by this name instead:
`ShortName[layout]::test_function`. One function, so the report's own item
identity can replace it in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.report.items.records import scenario_of


def item_key(*, short_name: str, nodeid: str, layout: str) -> str:
    """`ShortName[layout]::test_name` (other parameters kept after the test name)."""
    test = scenario_of(nodeid, layout).partition("::")[2] or nodeid
    return f"{short_name}[{layout}]::{test}"


def key_of_test(test: Mapping[str, Any]) -> str:
    """The key of one `tests` entry of a ConformanceReport."""
    return item_key(
        short_name=str(test["shortName"]),
        nodeid=str(test["nodeid"]),
        layout=str(test["layout"]),
    )
