"""We test that the reference controller publishes the fault it runs with (issue 11):

- the leader stamps `wpc.dev/reference-fault` on its Lease when it creates it, when
  it renews it and when it takes it over from another holder, keeping the Lease's
  other annotations;
- `run` hands the elector the fault of this process's settings: a controller-side
  fault, an executor-side one (passed on to the executors), or "" for none.
"""

from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest

from reference_impl import common
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.machinery import leading
from reference_impl.controller.runtime import running
from tests.reference_impl.controller.machinery.test_machinery import FakeLeases

FAULT = {common.ANNOTATION_REFERENCE_FAULT: "never-ready"}


def test_the_leader_stamps_its_fault_on_the_lease_it_creates_renews_and_takes():
    api = FakeLeases()
    now = [datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)]

    def elector(identity: str, annotations: dict[str, str]) -> leading.LeaderElector:
        return leading.LeaderElector(
            api=api,
            namespace="wpc-neg-never-ready-legacy",
            name="workflow-controller-wpc-neg-never-ready-legacy",
            identity=identity,
            clock=lambda: now[0],
            annotations=annotations,
        )

    old = elector("old", {common.ANNOTATION_REFERENCE_FAULT: ""})
    assert old.try_acquire_or_renew()
    assert api.lease is not None
    assert api.lease["metadata"]["annotations"] == {
        common.ANNOTATION_REFERENCE_FAULT: ""
    }
    api.lease["metadata"]["annotations"]["keep"] = "me"
    new = elector("new", FAULT)
    assert not new.try_acquire_or_renew()  # the old holder's Lease says nothing new
    assert api.lease["metadata"]["annotations"][common.ANNOTATION_REFERENCE_FAULT] == ""
    now[0] += datetime.timedelta(seconds=16)
    assert new.try_acquire_or_renew()
    assert api.lease["spec"]["holderIdentity"] == "new"
    assert api.lease["metadata"]["annotations"] == {**FAULT, "keep": "me"}
    api.lease["metadata"]["annotations"] = {}
    now[0] += datetime.timedelta(seconds=5)
    assert new.try_acquire_or_renew()
    assert api.lease["metadata"]["annotations"] == FAULT


@pytest.mark.parametrize(
    ("value", "published"),
    [
        ("keep-old-layout", "keep-old-layout"),  # controller-side
        ("never-ready", "never-ready"),  # executor-side, passed through
        ("", ""),
    ],
)
def test_run_hands_the_elector_the_fault_of_this_process(
    monkeypatch: pytest.MonkeyPatch, value: str, published: str
) -> None:
    seen: dict[str, Any] = {}

    class FakeApi:
        def __init__(self, *args: Any) -> None:
            pass

        def get_configmap(self, namespace: str, name: str) -> dict[str, Any]:
            return {"data": {}}

    class FakeElector:
        def __init__(self, **kwargs: Any) -> None:
            seen.update(kwargs)

        def run(self, *, stop: threading.Event, on_started: Any) -> None:
            pass

    monkeypatch.setattr(running.kube, "KubeApi", FakeApi)
    monkeypatch.setattr(running.kube, "load_configuration", lambda *args: None)
    monkeypatch.setattr(running, "WorkflowController", lambda **kwargs: None)
    monkeypatch.setattr(running.leading, "LeaderElector", FakeElector)
    stop = threading.Event()
    stop.set()
    settings = ControllerSettings.from_env({common.ENV_REFERENCE_FAULT: value})
    assert running.run(settings, stop=stop) == running.EXIT_OK
    assert seen["annotations"] == {common.ANNOTATION_REFERENCE_FAULT: published}
