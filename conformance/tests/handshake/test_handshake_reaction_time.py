"""HandshakeReactionTime: main reacts quickly to a terminal status marker (a SHOULD).

`podSpecPatch` replaces the supervisor with a script that writes `RUNNING`
and the template (from its `ARGO_TEMPLATE`, as a real supervisor does), waits
`PRE_MAIN` seconds, then writes a terminal marker and reports its modification
time in its own termination message. We test these aspects (WPC-HANDSHAKE-010):

- `ready`: the user command starts (the mtime of a file it touches first)
  within 2 s, plus the timing tolerance, of the `READY` write;
- `failed`: `main` finishes within 2 s, plus the timing tolerance, of the
  `FAILED` write.

Each reaction is timed from the later of the marker's write and `main`'s
container start: a `main` that the kubelet started after the marker landed
(a loaded node can take longer than `PRE_MAIN` to start it) can only
react from its start, so the start-up latency is not counted as reaction
time. `startedAt` is cut to whole seconds, which only makes the measured
delay longer; the comparison stays one-sided.

The reaction to the 30 s rules (WPC-HANDSHAKE-007/008) is not timed here: it
would add a 35 s scenario to the suite for a SHOULD; StatusAuxFaults checks
their lower bounds. Matrix: initless only.
"""

from __future__ import annotations

import copy
import datetime
import json
from typing import Any

import pytest

from conformance.harness.workload import pods

STATUS = "/var/run/argo/status"
REACTION = 2.0
"""WPC-HANDSHAKE-010: seconds within which main should react to a terminal marker."""
PRE_MAIN = 5
"""Seconds the scripted supervisor waits before its terminal marker.

Long enough that `main` is normally up and waiting when the marker lands, so
the reaction, not the container's start, is what gets timed (a CI run on a
loaded node once measured 6.8 s with 3 s); far below the 30 s rules.
"""


def write(body: str) -> str:
    """Shell: replace the marker atomically with the printf format `body`."""
    return f"printf '{body}' > {STATUS}.tmp && mv {STATUS}.tmp {STATUS}; "


def late_marker(body: str, code: int) -> str:
    """Shell: RUNNING, `PRE_MAIN` s later `body`; wait for main; exit reporting the write time."""
    return (
        write("RUNNING\\n")
        + "printf '%s' \"$ARGO_TEMPLATE\" > /var/run/argo/template; "
        + f"sleep {PRE_MAIN}; "
        + write(body)
        + f"t=$(stat -c %y {STATUS}); "
        + "i=0; while [ ! -e /var/run/argo/ctr/main/exitcode ] && [ $i -lt 600 ]; "
        + "do sleep 0.1; i=$((i+1)); done; "
        + f"printf '%s' \"$t\" > /dev/termination-log; exit {code}"
    )


CASES = {
    "ready": late_marker("READY\\n", 1),
    "failed": late_marker("FAILED\\nlate", 64),
}


def stat_time(text: str) -> datetime.datetime:
    """Parse busybox `stat -c %y` output (nanoseconds cut to microseconds)."""
    day, clock, zone = text.strip().split(" ")
    whole, _, fraction = clock.partition(".")
    return datetime.datetime.strptime(
        f"{day} {whole}.{(fraction or '0')[:6]} {zone}", "%Y-%m-%d %H:%M:%S.%f %z"
    )


def reaction_start(marker_at: datetime.datetime, main: Any) -> datetime.datetime:
    """When `main` could first react to a marker written at `marker_at`."""
    started = main.started_at
    return max(marker_at, started) if started is not None else marker_at


def _workflow(base: dict[str, Any], script: str) -> dict[str, Any]:
    body = copy.deepcopy(base)
    template = body["spec"]["templates"][0]
    patch = {
        "terminationGracePeriodSeconds": 5,
        "containers": [
            {
                "name": "supervisor",
                "image": template["container"]["image"],
                "command": ["sh", "-c"],
                "args": [script],
            }
        ],
    }
    template["podSpecPatch"] = json.dumps(patch)
    return body


@pytest.mark.conformance(
    short_name="HandshakeReactionTime", clauses=["WPC-HANDSHAKE-010"]
)
def test_main_reacts_within_two_seconds_to_a_terminal_marker(
    workflows, manifest, kube_clients, namespace, timeouts
):
    base = manifest()
    names = {case: workflows.submit(_workflow(base, s)) for case, s in CASES.items()}
    states = {}
    for case, name in names.items():
        workflows.wait_completed(name)
        states[case] = pods.all_terminated(kube_clients, namespace, name)
    limit = REACTION + timeouts.timing_tolerance

    ready_at = stat_time(states["ready"]["supervisor"].message)
    main = states["ready"]["main"]
    assert main.exit_code == 0, f"ready: main exited {main.exit_code}: {main.message}"
    started = stat_time(main.message)
    assert started >= ready_at, f"the user command started at {started}, before READY"
    since = reaction_start(ready_at, main)
    delay = (started - since).total_seconds()
    assert delay <= limit, (
        f"the user command started {delay:.2f} s after READY "
        f"(written {ready_at}, main's container started {main.started_at})"
    )

    failed_at = stat_time(states["failed"]["supervisor"].message)
    main = states["failed"]["main"]
    assert main.exit_code == 65, f"failed: main exited {main.exit_code}"
    delay = (main.finished_at - reaction_start(failed_at, main)).total_seconds()
    assert delay <= limit, (
        f"main finished {delay:.2f} s after FAILED was written "
        f"(written {failed_at}, main's container started {main.started_at})"
    )
