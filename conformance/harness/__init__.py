"""The harness: what a scenario uses to act on a cluster and observe it.

Scenarios (`conformance/tests/`) import only this package and
`conformance.contract`. The names below are the everyday ones; the modules
(`kube`, `workflows`, `pods`, `executing`, `recording`, `watching`,
`injecting`, ...) hold the rest, one job each.
"""

from __future__ import annotations

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.harness.controllers import Controller
from conformance.harness.layouts import Instance
from conformance.harness.watching import until
from conformance.harness.watching import watch_until
from plumbing.waiting import NotYet

__all__ = [
    "Controller",
    "HarnessError",
    "Instance",
    "NotYet",
    "WaitTimeout",
    "until",
    "watch_until",
]
