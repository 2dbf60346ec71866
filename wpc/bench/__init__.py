"""`make bench`: pod startup by phase and throughput of any implementation, per layout.

Run as ``python -m conformance bench [--implementation reference|argo-workflows|PATH]
[--layout both] [--workflows 50] [--inflight 5]``. Like the suite, it loads the
implementation's profile, checks the cluster's marker and runs the profile's
`prepare` commands; then, per layout, it installs an instance of its own
(`wpc-bench-<layout>`) with the profile's `install` command, submits
`workflows` one-pod workflows to it in a fresh labelled namespace, keeping
`inflight` of them in flight, uninstalls the instance and deletes the
namespace (and waits). It prints a table and writes
`reports/bench-<implementation>.yaml` (a `BenchResult`, shape in
`bench.schema.json`); ``python -m conformance bench-compare A.yaml B.yaml``
prints two runs side by side with A / B ratios.

The method is black-box: nothing but what the API reports about pods and
workflows (timestamps, conditions, container states, watch events stamped on
arrival) and what the user command prints about its own clock (`markers`),
so the same numbers mean the same thing for every implementation. How each
startup phase is bounded is in `samples` and `moments`. The boot-clock
marker needs the node to be this host (the local provider); on another node
the run fails with ClockError rather than print numbers that mean nothing.
"""

from __future__ import annotations

from wpc.bench.running import run
from wpc.bench.settings import BenchSettings

__all__ = ["BenchSettings", "run"]
