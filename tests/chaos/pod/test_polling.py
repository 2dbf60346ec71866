"""The pod probes' one wait (`chaos.pod.polling`), without a cluster:

- `until_pod` skips pods being deleted, waits for the step's live pod and its
  condition, and returns what the condition returned;
- on expiry (`created_pod`: within `pod_created`) it fails naming what it
  waited for and the last observation;
- `remember` keeps the step's pod under the memo key the probes share (its
  name is None for a step none kept), and `vulnerable` also records the
  vulnerable state it is in;
- `read` answers None for a pod that is not there and raises other errors.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from chaos.pod import polling
from conformance.errors import WaitTimeout
from conformance.harness import NotYet


def pod(name: str, *, deleting: bool = False, ready: bool = False) -> Any:
    return SimpleNamespace(
        metadata=SimpleNamespace(
            name=name, uid=f"uid-{name}", deletion_timestamp="t" if deleting else None
        ),
        ready=ready,
    )


class Core:
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def read_namespaced_pod(self, name: str, namespace: str) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def session(core: Core | None = None) -> Any:
    recorded: list[tuple[str, str]] = []
    return SimpleNamespace(
        timeouts=SimpleNamespace(poll_interval=0.0),
        memo={},
        namespace="ns",
        clients=SimpleNamespace(core=core),
        vulnerable=recorded,
        was_vulnerable=lambda activity, text: recorded.append((activity, text)),
    )


def test_until_pod_waits_for_the_live_pod_and_its_condition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = pod("old", deleting=True)
    listings = [[], [old], [old, pod("new")], [old, pod("new", ready=True)]]
    asked: list[tuple[str, str]] = []

    def step_pods(_: Any, workflow: str, step: str) -> list[Any]:
        asked.append((workflow, step))
        return listings.pop(0)

    monkeypatch.setattr("chaos.pod.finding.step_pods", step_pods)

    def ready(p: Any) -> str | NotYet:
        return str(p.metadata.name) if p.ready else NotYet(f"{p.metadata.name}: not")

    found = polling.until_pod(
        session(), "main", "a", ready, timeout=60.0, describe="a to be ready"
    )

    assert found == "new"
    assert asked == [("main", "a")] * 4


def test_created_pod_names_what_it_waited_for_on_expiry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        "chaos.pod.finding.step_pods", lambda *_: [pod("old", deleting=True)]
    )

    waiting = session()
    waiting.timeouts.pod_created = 0.0

    with pytest.raises(WaitTimeout) as caught:
        polling.created_pod(waiting, "main", "a")

    assert "a pod for step a" in str(caught.value)
    assert "no live pod for step a yet" in str(caught.value)


def test_remember_keeps_the_step_pod_under_its_memo_key() -> None:
    s = session()

    polling.remember(s, "a", pod("p"))

    assert s.memo == {"pod:a": ("p", "uid-p")}
    assert polling.remembered(s, "a") == ("p", "uid-p")
    assert polling.remembered_name(s, "a") == "p"
    assert polling.remembered_name(s, "b") is None


def test_vulnerable_remembers_the_pod_and_records_the_state() -> None:
    s = session()

    text = polling.vulnerable(s, "init_is_running", "a", pod("p"), "p: init running")

    assert text == "p: init running"
    assert s.memo == {"pod:a": ("p", "uid-p")}
    assert s.vulnerable == [("init_is_running", "p: init running")]


def test_read_is_none_for_a_missing_pod_and_raises_other_errors() -> None:
    found = pod("p")

    assert polling.read(session(Core(found)), "p") is found
    assert polling.read(session(Core(ApiException(status=404))), "p") is None
    with pytest.raises(ApiException):
        polling.read(session(Core(ApiException(status=403))), "p")
