"""HandshakeMarker: the status marker during a slow pre-main phase, read from inside the pod.

The suite's HTTP server (busybox httpd in the test namespace) sends the
script's input artifact one line a second for 33 s. While the supervisor
downloads it, a reader loop run by `kubectl exec` in `main` (whose emissary is
still waiting) reads `/var/run/argo/status` every ~25 ms and records every
change of inode, modification time or content (a read during which the
marker changed is discarded and repeated). We test these aspects:

- every content ever read is exactly `RUNNING\\n`, `READY\\n`, `FAILED\\n<msg>`
  or `FAILED`, never empty or partial; every change comes with a new inode
  (the file is replaced by a rename, not rewritten in place); and no
  `/var/run/argo/ready` or `/var/run/argo/failed` file appears
  (WPC-HANDSHAKE-001, WPC-HANDSHAKE-002);
- while `RUNNING`, the modification time advances at least every 5 s (plus
  the timing tolerance) up to the `READY` write, and after `READY` the marker
  never changes again, also 3 s later as seen by the script
  (WPC-HANDSHAKE-003); if main ends before READY (say, presuming the
  supervisor dead) it kills the reader with it, which then saw every write up
  to main's `finishedAt`: the last RUNNING must still be within the heartbeat
  of that moment (WPC-HANDSHAKE-003), checked before the reader's failure;
- `/var/run/argo/template` exists when `READY` is first seen; the script
  finds the token `READY`, the template, and the whole artifact when it
  starts (WPC-HANDSHAKE-004);
- a pre-main phase of more than 30 s with a live heartbeat does not make
  `main` give up: the node succeeds (WPC-HANDSHAKE-009).

Matrix: initless only (the marker exists only there).
"""

from __future__ import annotations

import datetime
import hashlib
import itertools
from typing import Any
from typing import NamedTuple

import pytest

from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import WaitTimeout
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing
from conformance.harness.workload.pods import terminated

CHUNKS = 33
"""Seconds the server takes to send the artifact: more than the 30 s rules."""
ARTIFACT = "".join(f"chunk-{i:02d}\n" for i in range(1, CHUNKS + 1))
HEARTBEAT = 5.0
"""WPC-HANDSHAKE-003: the supervisor rewrites RUNNING at least this often."""
DEAD_AFTER = 30
VALID = ("RUNNING\n", "READY\n", "FAILED")
"""Exact marker contents besides `FAILED\\n<message>` (WPC-HANDSHAKE-001)."""
KILLED = 137
"""The reader's exit when main's container ends under it (128 + SIGKILL)."""
SERVER = f"""
mkdir -p /www/cgi-bin
cat > /www/cgi-bin/slow <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\\r\\n\\r\\n'
i=1
while [ $i -le {CHUNKS} ]; do printf 'chunk-%02d\\n' $i; i=$((i+1)); sleep 1; done
EOF
chmod 755 /www/cgi-bin/slow
exec httpd -f -p 8080 -h /www
"""
READER = """
d=/var/run/argo; prev=""; stop=""; end=$(( $(date +%s) + 120 ))
while [ "$(date +%s)" -lt "$end" ]; do
  m=$(stat -c '%i %y' $d/status 2>/dev/null || echo absent); c=""
  [ "$m" = absent ] || c="$(cat $d/status 2>/dev/null; echo x)"
  # Keep only reads the marker did not change during (the inode shows rewrites).
  [ "$m" = "$(stat -c '%i %y' $d/status 2>/dev/null || echo absent)" ] || continue
  f=""
  [ -s $d/template ] && f="${f}template "
  [ -e $d/ready ] && f="${f}ready-file "
  [ -e $d/failed ] && f="${f}failed-file "
  if [ "$m|$f|$c" != "$prev" ]; then
    printf '@rec %s|%s\\n%s\\n@end\\n' "$m" "$f" "$c"; prev="$m|$f|$c"
  fi
  case "$c" in READY*|FAILED*) [ -z "$stop" ] && stop=$(( $(date +%s) + 3 ));; esac
  [ -n "$stop" ] && [ "$(date +%s)" -ge "$stop" ] && break
  sleep 0.02
done
"""


def stat_time(text: str) -> datetime.datetime:
    """Parse busybox `stat -c %y` output (nanoseconds cut to microseconds)."""
    day, clock, zone = text.strip().split(" ")
    whole, _, fraction = clock.partition(".")
    return datetime.datetime.strptime(
        f"{day} {whole}.{(fraction or '0')[:6]} {zone}", "%Y-%m-%d %H:%M:%S.%f %z"
    )


class Read(NamedTuple):
    """One change the reader saw: the marker's inode, mtime, other files, content."""

    inode: str
    mtime: str
    flags: str
    content: str | None
    """None while the marker does not exist."""


def _reads(output: str) -> list[Read]:
    """Parse the reader's `@rec <inode> <mtime>|<flags>` records."""
    reads = []
    for chunk in output.split("@rec ")[1:]:
        head, _, rest = chunk.partition("\n")
        body, sep, _ = rest.rpartition("\n@end")
        assert sep, f"truncated reader record: {chunk!r}"
        stat, _, flags = head.partition("|")
        inode, _, mtime = stat.partition(" ")
        content = body.removesuffix("x") if body else None
        reads.append(Read(inode, mtime, flags.strip(), content))
    return reads


def _read_marker(
    kube_clients: kube.Clients, namespace: str, pod: str, timeouts: Timeouts
) -> executing.Result:
    """Run the reader loop in main until it has seen the terminal marker."""
    return executing.run(
        kube_clients,
        namespace=namespace,
        pod=pod,
        container="main",
        command=["sh", "-c", READER],
        timeout=timeouts.user_command_started,
    )


def _heartbeat_until_main_ended(scene: Any, pod: str, result: executing.Result) -> None:
    """WPC-HANDSHAKE-003 when main ended before READY and took the reader with it.

    A reader killed with main's container (exit 128 + SIGKILL) lived until main's
    `finishedAt`, so it saw every marker write up to then: a last-seen RUNNING
    must have been rewritten within the heartbeat up to that moment (e.g. main
    presumed the supervisor dead because the heartbeat was too slow). The
    `finishedAt` is truncated to the second, so a gap can only look shorter.
    Nothing to judge when the reader died otherwise or the last content was terminal.
    """
    present = [r for r in _reads(result.output) if r.content is not None]
    if result.returncode != KILLED or not present or present[-1].content != "RUNNING\n":
        return
    try:
        main = until(
            lambda: terminated(
                scene.clients.core.read_namespaced_pod(pod, scene.namespace), "main"
            ),
            timeout=scene.timeouts.api_call,
            interval=scene.timeouts.poll_interval,
            describe=f"main of {pod} to be reported terminated",
        )
    except WaitTimeout:
        return
    running = list(
        dict.fromkeys(stat_time(r.mtime) for r in present if r.content == "RUNNING\n")
    )
    ends = [*running[1:], main.finished_at]
    gaps = [(b - a).total_seconds() for a, b in zip(running, ends, strict=True)]
    limit = HEARTBEAT + scene.timeouts.timing_tolerance
    assert max(gaps) <= limit, (
        f"WPC-HANDSHAKE-003: RUNNING not rewritten within {limit} s up to main's end "
        f"at {main.finished_at} (exit {main.exit_code}: {main.message!r}), before "
        f"any READY or FAILED; gaps {gaps}"
    )


def _main_running_pod(kube_clients: kube.Clients, namespace: str, workflow: str) -> Any:
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={workflow}"
    ).items
    for pod in pods:
        for status in pod.status.container_statuses or []:
            if status.name == "main" and status.state.running:
                return pod
    return NotYet(f"main is not running yet in {[p.metadata.name for p in pods]}")


@pytest.mark.conformance(
    short_name="HandshakeMarker",
    clauses=[
        "WPC-HANDSHAKE-001",
        "WPC-HANDSHAKE-002",
        "WPC-HANDSHAKE-003",
        "WPC-HANDSHAKE-004",
        "WPC-HANDSHAKE-009",
    ],
    features=["INPUT_ARTIFACTS_HTTP"],
)
def test_the_marker_heartbeats_during_a_slow_pre_main_and_ends_ready(
    workflows, scene, http_server
):
    body = scene.manifest()
    template = body["spec"]["templates"][0]
    image = template["script"]["image"]
    address = http_server(
        name="http-server", image=image, script=SERVER, container="server"
    )
    template["inputs"]["artifacts"][0]["http"]["url"] = (
        f"http://{address}:8080/cgi-bin/slow"
    )
    name = workflows.submit(body)
    pod = until(
        lambda: _main_running_pod(scene.clients, scene.namespace, name),
        timeout=scene.timeouts.user_command_started,
        interval=scene.timeouts.poll_interval,
        describe="main to run (its emissary waiting for the marker)",
    )
    result = _read_marker(
        scene.clients, scene.namespace, pod.metadata.name, scene.timeouts
    )
    if result.returncode != 0:
        _heartbeat_until_main_ended(scene, pod.metadata.name, result)
    assert result.returncode == 0, f"the marker reader failed: {result}"
    output = result.output
    workflow = workflows.wait_completed(name)

    reads = _reads(output)
    present = [r for r in reads if r.content is not None]
    assert present, (
        f"WPC-HANDSHAKE-001: the reader never saw the marker: {output[-2000:]!r}"
    )
    assert len(present) == len(reads[reads.index(present[0]) :]), (
        f"WPC-HANDSHAKE-002: the marker disappeared after it existed: {reads}"
    )
    for read in present:
        content = read.content or ""
        assert content in VALID or content.startswith("FAILED\n"), (
            f"WPC-HANDSHAKE-001, WPC-HANDSHAKE-002: invalid or partial marker content: {read}"
        )
    rewritten = [
        (a, b)
        for a, b in itertools.pairwise(present)
        if a.inode == b.inode and (a.mtime, a.content) != (b.mtime, b.content)
    ]
    assert not rewritten, (
        f"WPC-HANDSHAKE-002: the marker was rewritten in place, not renamed: {rewritten}"
    )
    extra = [r for r in reads if "ready-file" in r.flags or "failed-file" in r.flags]
    assert not extra, (
        f"WPC-HANDSHAKE-001: marker files other than status appeared: {extra}"
    )
    ready = next((r for r in present if r.content == "READY\n"), None)
    assert ready, f"WPC-HANDSHAKE-004: no READY marker: {present[-1]}"
    after = present[present.index(ready) :]
    assert after == [ready], (
        f"WPC-HANDSHAKE-003: the marker changed after READY: {after}"
    )
    assert "template" in ready.flags, (
        "WPC-HANDSHAKE-004: READY was written before the template"
    )

    running = list(
        dict.fromkeys(stat_time(r.mtime) for r in present if r.content == "RUNNING\n")
    )
    assert len(running) >= 4, (
        f"WPC-HANDSHAKE-003: too few RUNNING rewrites seen: {running}"
    )
    ready_at = stat_time(ready.mtime)
    ends = [*running[1:], ready_at]
    gaps = [(b - a).total_seconds() for a, b in zip(running, ends, strict=True)]
    limit = HEARTBEAT + scene.timeouts.timing_tolerance
    assert max(gaps) <= limit, (
        f"WPC-HANDSHAKE-003: heartbeat gaps {gaps} exceed {limit} s"
    )

    node = workflow["status"]["nodes"][name]
    report = dict(
        line.split("=", 1)
        for p in node.get("outputs", {}).get("parameters", [])
        if p["name"] == "report"
        for line in p.get("value", "").splitlines()
    )
    expected = {
        "token_at_start": "READY",
        "template_at_start": "present",
        "artifact_sha256": hashlib.sha256(ARTIFACT.encode()).hexdigest(),
        "token_at_end": "READY",
    }
    assert {k: report.get(k, "").strip() for k in expected} == expected, (
        f"WPC-HANDSHAKE-004: {report}"
    )
    assert report["artifact_bytes"].strip() == str(len(ARTIFACT)), (
        f"WPC-HANDSHAKE-004: {report}"
    )
    assert report["mtime_at_start"] == report["mtime_at_end"] == ready.mtime, (
        f"WPC-HANDSHAKE-003: the marker changed after READY: {report}"
    )
    assert (node["phase"], workflow["status"]["phase"]) == (
        "Succeeded",
        "Succeeded",
    ), (
        f"WPC-HANDSHAKE-009: node {node['phase']}, workflow {workflow['status']['phase']}"
    )

    main_started = next(
        s.state.running.started_at
        for s in pod.status.container_statuses
        if s.name == "main"
    )
    pre_main = (ready_at - main_started).total_seconds()
    if pre_main <= DEAD_AFTER:
        raise HarnessError(f"pre-main lasted {pre_main:.1f} s: the server was not slow")
