"""`make bench`: pod startup and throughput of the reference implementation, per layout.

Run as ``python -m reference_impl.bench --cluster wpc [--count 50]
[--layouts legacy,initless] [--kubeconfig PATH]``. For each layout it submits
`count` one-pod workflows to the controller instance serving that layout, keeping
`concurrency` (default 5) in flight, and prints a table; `reports/bench.json`
holds the figures, the load the run shared the machine with, and every sample.

Method (black-box: only what the cluster reports and what the pod prints):

- **Pod created** is when a pod watch on this host delivers the pod's first
  event, stamped with CLOCK_BOOTTIME on arrival (sub-millisecond resolution;
  late by the watch latency, so startup is if anything underestimated by it).
  The pod's `creationTimestamp` is kept too, but the API truncates it to
  whole seconds.
- **User command started** is read by the user command itself: its first
  instruction is the shell builtin `read </proc/uptime` (no fork), i.e.
  CLOCK_BOOTTIME of the node kernel in centiseconds. Containers get no time
  namespace, and the local cluster's node is this host, so both ends are on
  the same clock and `pod_startup = uptime_in_pod - boottime_at_watch` needs no
  clock sync. Busybox `date` has no `%N`, so wall-clock sub-seconds are not
  available in the pod; instead the pod also prints `date +%s`, and each sample
  checks that `date - uptime` matches this host's boot epoch (within
  -1.5..+5 s), failing loudly (`ClockError`) when the node is another machine.
- **Cross-checks** (whole seconds): creationTimestamp -> user command,
  creationTimestamp -> main container `startedAt` (the kubelet's view) and
  `startedAt` -> user command (the executor's overhead before the user command).
- **Throughput** is succeeded workflows per minute over the makespan (first
  submission -> last workflow finished, as seen by a watch), with
  `concurrency` workflows in flight: the next is submitted as soon as one
  finishes. Failures (Failed/Error phase, missing marker, unfinished within
  `Timeouts.workflow_completed`) are counted and listed with evidence.

Layouts run one after the other in one labelled namespace, deleted (and waited
for) at the end.
"""

from __future__ import annotations

from reference_impl.bench.errors import BenchError
from reference_impl.bench.running import run
from reference_impl.bench.settings import BenchSettings
from reference_impl.bench.settings import Timeouts

__all__ = ["BenchError", "BenchSettings", "Timeouts", "run"]
