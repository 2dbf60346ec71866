"""We test these aspects of `conformance/profiles/reference-faulty.yaml` (no cluster):

- `--profile-var fault=<name>` reaches the install command as `--fault <name>`; the
  default is no fault;
- each fault's instances, and any dedicated instance, live in namespaces of their
  own, never in those of the `reference` profile or of another fault;
- it stays the reference profile otherwise: the same images, layouts, claimed
  features and commands, apart from install's `--fault`.
"""

from __future__ import annotations

from conformance.implementations import profiles
from tests.negative import runner

VALUES = {
    "repo": "/repo",
    "python": "python3",
    "kubeconfig": "/kc",
    "kubectl": "kubectl",
    "provider": "local",
    "cluster": "wpc",
    "cache_dir": "/cache",
    "instance_id": "i",
    "layout": "legacy",
    "namespace": "n",
    "initless": "false",
    "enabled": "true",
    "key": "instanceID",
    "value": "null",
    "config_patch": '{"data": {"instanceID": null}}',
}


def rendered(profile: profiles.Profile, kind: str) -> list[list[str]]:
    values = profiles.placeholder_values(profile, VALUES)
    return [profiles.render(c, values) for c in profile.commands[kind]]


def test_the_fault_reaches_the_install_command():
    faulty = profiles.load(str(runner.PROFILE), variables={"fault": "x-y"})
    assert rendered(faulty, "install")[0][-2:] == ["--fault", "x-y"]
    healthy = profiles.load(str(runner.PROFILE))
    assert rendered(healthy, "install")[0][-2:] == ["--fault", ""]


def test_each_fault_has_instances_and_namespaces_of_its_own():
    reference = profiles.load("reference")
    taken = {reference.instance(layout).namespace for layout in reference.layouts}
    for fault in ("never-ready", "no-wait-for-ready-env", ""):
        faulty = profiles.load(str(runner.PROFILE), variables={"fault": fault})
        for layout in faulty.layouts:
            ours = faulty.instance(layout)
            assert ours.namespace == ours.instance_id == f"wpc-neg-{fault}-{layout}"
            assert ours.namespace not in taken
            taken.add(ours.namespace)
    dedicated = faulty.controller_namespace.format_map(
        {"instance_id": "wpc-t-1234", "layout": "legacy"}
    )
    assert dedicated == "wpc-t-1234"


def test_it_is_the_reference_profile_apart_from_the_fault():
    faulty = profiles.load(str(runner.PROFILE))
    reference = profiles.load("reference")
    assert faulty.images == reference.images
    assert faulty.layouts == reference.layouts
    assert faulty.features == reference.features
    for kind in profiles.COMMAND_PLACEHOLDERS:
        ours = rendered(faulty, kind)
        if kind == "install":
            ours = [c[:-2] if c[-2:] == ["--fault", ""] else c for c in ours]
        assert ours == rendered(reference, kind), kind
