"""What the start-of-run sweep removes, and what it leaves (`implementations.sweeping`).

We test these aspects, with the session locks' verdicts and the cluster faked:

- a dead run's test namespaces are deleted (through the harness's waiting
  delete, which checks the session label) and its lock is forgotten;
- a dead run's private instance of this implementation is uninstalled with
  the profile's command; one of another implementation is left, with the exact
  command that removes it, and the lock is kept for a later sweep;
- live runs, this run and runs this host did not start are never touched.
"""

from __future__ import annotations

from types import SimpleNamespace

from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import locking
from conformance.implementations import sweeping


def _ns(name: str, session: str, **extra: str):
    labels = {kube.MANAGED_BY: kube.MANAGED_BY_VALUE, kube.SESSION: session, **extra}
    return SimpleNamespace(metadata=SimpleNamespace(name=name, labels=labels))


def _private(name: str, session: str, implementation: str):
    return _ns(
        name,
        session,
        **{
            kube.INSTANCE: name,
            kube.LAYOUT: "legacy",
            kube.IMPLEMENTATION: implementation,
        },
    )


class Core:
    def __init__(self, items):
        self.items = items
        self.selectors: list[str] = []

    def list_namespace(self, label_selector):
        self.selectors.append(label_selector)
        return SimpleNamespace(items=self.items)


class Driver:
    def __init__(self):
        self.calls: list[tuple[str, str, str, str]] = []

    def control(self, name, instance):
        self.calls.append(
            (name, instance.instance_id, instance.layout, instance.namespace)
        )


STATES = {"dead1": locking.DEAD, "dead2": locking.DEAD, "alive": locking.ALIVE}


def test_dead_runs_are_swept_and_the_rest_left(monkeypatch):
    deleted, forgotten = [], []
    monkeypatch.setattr(
        sweeping.locking,
        "liveness",
        lambda name, cluster: STATES.get(
            name.removeprefix("session-"), locking.UNKNOWN
        ),
    )
    monkeypatch.setattr(
        sweeping.locking, "forget", lambda name, cluster: forgotten.append(name)
    )
    monkeypatch.setattr(
        sweeping.namespaces,
        "delete",
        lambda clients, *, name, session_id, timeouts: deleted.append(
            (name, session_id)
        ),
    )
    core = Core(
        [
            _ns("t-a", "dead1"),
            _private("wpc-t-1", "dead1", "reference"),
            _ns("t-b", "dead2"),
            _private("wpc-t-2", "dead2", "argo-workflows"),
            _ns("t-c", "alive"),
            _ns("t-d", "elsewhere"),
            _ns("t-e", "mine"),
        ]
    )
    driver = Driver()
    result = sweeping.sweep_dead_runs(
        SimpleNamespace(core=core),
        cluster="https://s:6443",
        own_session="mine",
        profile=SimpleNamespace(name="reference"),
        driver=driver,
        timeouts=Timeouts(),
        uninstall_hint="python -m conformance uninstall --provider local --cluster wpc",
    )
    assert core.selectors == [
        f"{kube.MANAGED_BY}={kube.MANAGED_BY_VALUE},{kube.SESSION}"
    ]
    assert deleted == [("t-a", "dead1"), ("t-b", "dead2")]
    assert driver.calls == [("uninstall", "wpc-t-1", "legacy", "wpc-t-1")]
    assert result.swept == ("t-a", "wpc-t-1", "t-b")
    assert result.left == (
        "wpc-t-2: private instance wpc-t-2 of argo-workflows, remove it with python -m "
        "conformance uninstall --provider local --cluster wpc --implementation "
        "argo-workflows --layout legacy --instance-id wpc-t-2",
    )
    assert forgotten == ["session-dead1"]  # dead2 still has something to sweep


def test_a_private_instance_is_labelled_for_the_sweep():
    from conformance.harness.instances.layouts import Instance

    labels = sweeping.private_instance_labels(
        session_id="s",
        instance=Instance(
            layout="initless", instance_id="wpc-t-9", namespace="wpc-t-9"
        ),
        implementation="reference",
    )
    assert labels == {
        kube.MANAGED_BY: kube.MANAGED_BY_VALUE,
        kube.SESSION: "s",
        kube.LAYOUT: "initless",
        kube.INSTANCE: "wpc-t-9",
        kube.IMPLEMENTATION: "reference",
    }
