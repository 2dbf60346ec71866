"""Worker-node faults are a provider capability (kind only).

We test these aspects: kind has them and satisfies `WorkerFaults`, the other
providers have none; each verb runs the docker command on our engine and answers
with the state the engine reports after it; a verb refuses a node that is not
a worker of the cluster, and fails when the container did not reach the state.
"""

from __future__ import annotations

import pytest

from clusters import faults
from clusters.base import WorkerFaults
from clusters.docker.settings import DockerSettings
from clusters.errors import ClusterError
from clusters.kind import workerfaults


class FakeDocker:
    """Containers by name with a state; records every command."""

    def __init__(self, *, sticky: bool = False) -> None:
        self.states = {"c-worker": "running", "c-worker2": "running"}
        self.calls: list[tuple[str, ...]] = []
        self.sticky = sticky
        """True: commands change nothing (a container that does not obey)."""

    def capture(self, s: DockerSettings, *args: str, stdin: str | None = None) -> str:
        self.calls.append(args)
        verb, name = args[0], args[-1]
        if verb == "ps":
            assert "label=io.x-k8s.kind.cluster=c" in args
            assert "label=io.x-k8s.kind.role=worker" in args
            return "c-worker2\nc-worker\n"
        if verb == "inspect":
            return self.states[name] + "\n"
        after = {"pause": "paused", "unpause": "running", "stop": "exited"}
        if not self.sticky:
            if verb == "rm":
                self.states.pop(name)
            else:
                self.states[name] = after.get(verb, "running")
        return ""

    def succeeds(self, s: DockerSettings, *args: str) -> bool:
        return args[-1] in self.states


@pytest.fixture
def docker(monkeypatch):
    fake = FakeDocker()
    monkeypatch.setattr(workerfaults.docker_cli, "capture", fake.capture)
    monkeypatch.setattr(workerfaults.docker_cli, "succeeds", fake.succeeds)
    return fake


def test_only_kind_can_take_a_worker_away():
    assert isinstance(faults.workers_of("kind"), WorkerFaults)
    assert [faults.workers_of(p) for p in ("local", "k3d", "existing")] == [
        None,
        None,
        None,
    ]


def test_each_verb_answers_with_the_engines_state(docker):
    f = workerfaults.KindWorkerFaults(DockerSettings())
    assert f.workers("c") == ["c-worker", "c-worker2"]
    assert f.freeze("c", "c-worker") == (
        "node container c-worker is paused (docker pause)"
    )
    assert f.thaw("c", "c-worker").endswith("is running (docker unpause)")
    assert f.thaw("c", "c-worker") == "node container c-worker is running"
    assert f.stop("c", "c-worker").endswith("is exited (docker stop --time 10)")
    assert f.start("c", "c-worker").endswith("is running (docker start)")
    assert f.remove("c", "c-worker2").startswith("node container c-worker2 removed")
    assert f.state("c-worker2") == "absent"
    assert ("rm", "--force", "--volumes", "c-worker2") in docker.calls


def test_a_node_that_is_no_worker_is_refused(docker):
    f = workerfaults.KindWorkerFaults(DockerSettings())
    with pytest.raises(ClusterError, match="c-control-plane is not a worker node"):
        f.freeze("c", "c-control-plane")
    assert not [c for c in docker.calls if c[0] == "pause"]


def test_a_container_that_did_not_change_is_an_error(monkeypatch):
    fake = FakeDocker(sticky=True)
    monkeypatch.setattr(workerfaults.docker_cli, "capture", fake.capture)
    monkeypatch.setattr(workerfaults.docker_cli, "succeeds", fake.succeeds)
    f = workerfaults.KindWorkerFaults(DockerSettings())
    with pytest.raises(ClusterError, match="container is running, not paused"):
        f.freeze("c", "c-worker")
    with pytest.raises(ClusterError, match="still running"):
        f.remove("c", "c-worker")
