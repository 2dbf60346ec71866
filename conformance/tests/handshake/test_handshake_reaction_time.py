"""HandshakeReactionTime: main reacts quickly to a terminal status marker (a SHOULD).

`podSpecPatch` replaces the supervisor with a script that writes `RUNNING`
and the template (from its `ARGO_TEMPLATE`, as a real supervisor does), waits
3 s, then writes a terminal marker and reports its modification time in its
own termination message. We test these aspects (WPC-HANDSHAKE-010):

- `ready`: the user command starts (the mtime of a file it touches first)
  within 2 s, plus the timing tolerance, of the `READY` write;
- `failed`: `main` finishes within 2 s, plus the timing tolerance, of the
  `FAILED` write.

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


def write(body: str) -> str:
    """Shell: replace the marker atomically with the printf format `body`."""
    return f"printf '{body}' > {STATUS}.tmp && mv {STATUS}.tmp {STATUS}; "


def late_marker(body: str, code: int) -> str:
    """Shell: RUNNING, 3 s later `body`; wait for main; exit reporting the write time."""
    return (
        write("RUNNING\\n")
        + "printf '%s' \"$ARGO_TEMPLATE\" > /var/run/argo/template; "
        + "sleep 3; "
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
    delay = (started - ready_at).total_seconds()
    assert delay <= limit, f"the user command started {delay:.2f} s after READY"

    failed_at = stat_time(states["failed"]["supervisor"].message)
    main = states["failed"]["main"]
    assert main.exit_code == 65, f"failed: main exited {main.exit_code}"
    delay = (main.finished_at - failed_at).total_seconds()
    assert delay <= limit, f"main finished {delay:.2f} s after FAILED was written"
