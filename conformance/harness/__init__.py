"""The harness: what a scenario uses to act on a cluster and observe it.

Scenarios (`conformance/tests/`) import only this package and
`conformance.contract`. The names below are the everyday ones; the rooms hold
the rest, one job each: `cluster` (clients, timeouts, waits), `instances`
(layouts, the controller), `stage` (namespace, secrets, servers, the webhook),
`workload` (workflows, pods, observations), `inspecting` (exec, recording,
evidence).
"""

from __future__ import annotations

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.harness.cluster.watching import until
from conformance.harness.cluster.watching import watch_until
from conformance.harness.instances.controllers import Controller
from conformance.harness.instances.layouts import Instance
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
