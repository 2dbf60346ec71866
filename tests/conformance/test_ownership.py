"""We test these aspects of instance-ID ownership:

- with fake API clients: a record naming another implementation is refused with
  the command that removes it; a record naming this one passes without a
  canary; records are written and forgotten;
- on the real cluster (after `make test`'s smoke run left the reference's shared
  instances installed): a run of another implementation under the same IDs is
  refused, both by the record and, with the record gone, by the canary workflow
  the reference controller processes; the reference itself is let through.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.harness import kube
from conformance.harness.layouts import Instance
from conformance.harness.timeouts import Timeouts
from conformance.implementations import ownership
from conformance.implementations import profiles


class FakeCore:
    def __init__(self) -> None:
        self.maps: dict[str, dict] = {}

    def read_namespaced_config_map(self, name, namespace):
        if name not in self.maps:
            raise ApiException(status=404)
        return SimpleNamespace(data=self.maps[name]["data"])

    def create_namespaced_config_map(self, namespace, body):
        if body["metadata"]["name"] in self.maps:
            raise ApiException(status=409)
        self.maps[body["metadata"]["name"]] = body

    def replace_namespaced_config_map(self, name, namespace, body):
        self.maps[name] = body

    def delete_namespaced_config_map(self, name, namespace):
        if name not in self.maps:
            raise ApiException(status=404)
        del self.maps[name]


INSTANCE = Instance(layout="legacy", instance_id="wpc-legacy", namespace="wpc-legacy")


def _clients():
    return SimpleNamespace(core=FakeCore())


def _profile(name: str):
    return SimpleNamespace(
        name=name, path=Path(f"/p/{name}.yaml"), images={"tools": "t:1"}
    )


def test_a_record_of_another_implementation_is_refused_with_the_remedy():
    clients = _clients()
    ownership.record(clients, instance=INSTANCE, profile=_profile("reference"))
    with pytest.raises(ownership.InstanceTaken) as info:
        ownership.check_free(
            clients,
            instance=INSTANCE,
            profile=_profile("argo-workflows"),
            timeouts=Timeouts(),
            session_id="s",
        )
    text = str(info.value)
    assert "served by implementation 'reference'" in text
    assert "python -m conformance uninstall --implementation reference" in text


def test_a_record_of_this_implementation_passes_and_records_are_replaced_and_forgotten():
    clients = _clients()
    ownership.record(clients, instance=INSTANCE, profile=_profile("reference"))
    ownership.record(
        clients, instance=INSTANCE, profile=_profile("reference")
    )  # replaced, no 409
    ownership.check_free(
        clients,
        instance=INSTANCE,
        profile=_profile("reference"),
        timeouts=Timeouts(),
        session_id="s",
    )
    assert ownership.read(clients, "wpc-legacy").implementation == "reference"
    ownership.forget(clients, "wpc-legacy")
    ownership.forget(clients, "wpc-legacy")  # idempotent
    assert ownership.read(clients, "wpc-legacy") is None


@pytest.mark.cluster
@pytest.mark.ownership
def test_another_implementation_under_the_references_instance_ids_is_refused():
    from clusters import providers

    kubeconfig = str(providers.get("local").kubeconfig("wpc"))
    clients = kube.connect(kubeconfig)
    reference = profiles.load("reference")
    upstream = profiles.load("argo-workflows")
    instance = reference.instance("legacy")
    owner = ownership.read(clients, instance.instance_id)
    assert owner is not None
    assert owner.implementation == "reference", (
        "the smoke run should have left the reference installed"
    )
    timeouts = Timeouts()
    with pytest.raises(
        ownership.InstanceTaken, match="served by implementation 'reference'"
    ):
        ownership.check_free(
            clients,
            instance=instance,
            profile=upstream,
            timeouts=timeouts,
            session_id="own-1",
        )
    ownership.forget(clients, instance.instance_id)
    try:
        with pytest.raises(
            ownership.InstanceTaken,
            match="already served by a controller WPC did not install",
        ):
            ownership.check_free(
                clients,
                instance=instance,
                profile=upstream,
                timeouts=timeouts,
                session_id="own-2",
            )
    finally:
        ownership.record(clients, instance=instance, profile=reference)
    ownership.check_free(
        clients,
        instance=instance,
        profile=reference,
        timeouts=timeouts,
        session_id="own-3",
    )
