"""StatusRetryBackoff: a retry backoff is waited out, and one past maxDuration ends the retries.

We test these aspects (WPC-STATUS-021), with `retryStrategy: {limit: 2,
backoff: {duration: 5s, factor: 2147483647, maxDuration: 10m}}` on a command
that always exits 1:

- attempt `(1)` starts at least 5 s (`duration` * `factor`^0) after attempt
  `(0)` finished (node `startedAt` and `finishedAt`; whole seconds, so the
  bound holds without tolerance);
- the second wait, 5 s * 2147483647 (about 340 years, more than 2^63 ns),
  would end long after `maxDuration`: the retry node ends `Failed` with
  `Backoff would exceed max duration limit`, with exactly two attempts, each
  `Failed`, and no attempt `(2)`;
- the workflow had exactly two pods, also over several observations after it
  completed.

Upstream bug this catches (conformance/spec/history.yaml,
retry-backoff-overflow): v4.0.0 multiplied the wait in int64 nanoseconds, which
wrapped to about -244 years, so attempt `(2)` started at once and the retry
node ended `No more retries left` (fix b8cf9ed8 in v4.0.1 and v4.1.0 saturates
the wait at 2^63-1 ns). The run takes about 20 s. Pods are recorded from
before the submission. Matrix: legacy and initless.
"""

from __future__ import annotations

import datetime

import pytest

from conformance.harness.inspecting import recording

DURATION = 5
"""retryStrategy.backoff.duration of status-retry-backoff.yaml, in seconds."""


def _time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.conformance(short_name="StatusRetryBackoff", clauses=["WPC-STATUS-021"])
def test_a_backoff_past_max_duration_ends_the_retries_without_overflowing(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        name, workflow = workflows.completed(manifest(), observations=observations)
        nodes = {n["name"]: n for n in workflow["status"]["nodes"].values()}
        retry = nodes[name]
        attempts = sorted(n for n in nodes if n.startswith(f"{name}("))
        assert attempts == [f"{name}(0)", f"{name}(1)"], (
            f"attempts {attempts}; retry node {retry['phase']} "
            f"{retry.get('message', '')!r}"
        )
        assert (retry["phase"], retry.get("message")) == (
            "Failed",
            "Backoff would exceed max duration limit",
        ), f"WPC-STATUS-021: retry node {retry['phase']} {retry.get('message')!r}"
        first, second = nodes[f"{name}(0)"], nodes[f"{name}(1)"]
        assert [first["phase"], second["phase"]] == ["Failed", "Failed"]
        waited = (
            _time(second["startedAt"]) - _time(first["finishedAt"])
        ).total_seconds()
        observations.record("backoff.atLeastDuration", waited >= DURATION)
        assert waited >= DURATION, (
            f"attempt (1) started {waited:g} s after (0) finished, "
            f"before the {DURATION} s backoff"
        )

        recording.settle_pod_counts(recorder, {name: 2}, timeouts)
