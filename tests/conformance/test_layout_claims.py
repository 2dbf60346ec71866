"""We test how a profile's claimed layouts shrink to what its build can run (no cluster):

- a `layouts` command's last line is one JSON object, layout -> null or the
  reason; anything else (no JSON, an unknown layout, an empty reason) is an
  error naming the command;
- `without_layouts` drops each unsupported claimed layout and its feature and
  keeps the reason; a build running none of the claimed layouts is an error;
- the driver runs the profile's `layouts` command with the common
  placeholders, and a profile without one runs every layout it claims;
- preparing a run asks the command after the ownership check and before the
  prepare step, installs no instance for a layout the build lacks, and hands
  the reasons on in the RunContext (which survives its trip to the workers);
- the argo-workflows profile asks the source for its layouts and gives the
  install command the source, so a v4.0 build's ConfigMap can leave out
  `initlessPod`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import driving
from conformance.implementations import leases
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from tests.conformance.test_implementations import KNOWN
from tests.conformance.test_implementations import write_profile
from tests.conformance.test_profile_builds import MIRROR
from tests.conformance.test_profile_builds import VALUES

WHERE = "profile x: the layouts command"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            '{"legacy": null, "initless": "no init-less layout"}',
            {"initless": "no init-less layout"},
        ),
        ('building...\n{"legacy": null, "initless": null}\n\n', {}),
        ('{"legacy": null}', {}),
    ],
)
def test_the_last_line_says_which_layouts_the_build_lacks(output, expected):
    assert profiles.layout_support(output, WHERE) == expected


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("", r"expected a JSON object of layouts as the last line, got ''"),
        ("legacy", r"expected a JSON object .* got 'legacy'"),
        ('["legacy"]', r"expected a JSON object"),
        ('{"sideways": null}', r"'sideways': not a layout \(known: legacy, initless\)"),
        ('{"initless": ""}', r"initless: '': expected null or the reason"),
        ('{"initless": false}', r"initless: False: expected null or the reason"),
    ],
)
def test_anything_else_is_an_error_naming_the_command(output, message):
    with pytest.raises(DataError, match=rf"^{WHERE}: .*{message}"):
        profiles.layout_support(output, WHERE)


def _profile(tmp_path: Path, **changes: object) -> profiles.Profile:
    return profiles.load(str(write_profile(tmp_path, **changes)), known_features=KNOWN)


def test_an_unsupported_layout_and_its_feature_are_no_longer_claimed(tmp_path):
    profile = _profile(tmp_path)
    assert profile.layouts == ("legacy", "initless")
    narrowed = profiles.without_layouts(profile, {"initless": "no init-less layout"})
    assert narrowed.layouts == ("legacy",)
    assert "INITLESS_LAYOUT" not in narrowed.features
    assert "LEGACY_LAYOUT" in narrowed.features
    assert dict(narrowed.unsupported_layouts) == {"initless": "no init-less layout"}
    assert profiles.without_layouts(profile, {}) is profile
    with pytest.raises(DataError, match=r"runs none of the layouts the profile claims"):
        profiles.without_layouts(profile, {"legacy": "a", "initless": "b"})


def test_a_layout_the_profile_does_not_claim_is_left_alone(tmp_path):
    profile = _profile(tmp_path, layouts=["legacy"])
    assert profiles.without_layouts(profile, {"initless": "x"}) is profile


def _driver(profile: profiles.Profile, tmp_path: Path) -> driving.Driver:
    return driving.Driver(
        profile=profile, values=dict(VALUES), log_dir=tmp_path, timeout=30
    )


def test_the_driver_runs_the_layouts_command(tmp_path):
    script = (
        "import json, sys; "
        "print('noise'); print(json.dumps(dict(legacy=None, initless=sys.argv[1])))"
    )
    profile = _profile(
        tmp_path,
        commands__layouts=[[sys.executable, "-c", script, "no layout in {cluster}"]],
    )
    assert _driver(profile, tmp_path).unsupported_layouts() == {
        "initless": "no layout in wpc"
    }
    (tmp_path / "plain").mkdir()
    without = _profile(tmp_path / "plain")
    assert "layouts" not in {k for k, v in without.commands.items() if v}
    assert _driver(without, tmp_path).unsupported_layouts() == {}


def test_the_layouts_command_may_use_only_the_common_placeholders(tmp_path):
    path = write_profile(tmp_path, commands__layouts=[["echo", "{instance_id}"]])
    with pytest.raises(
        DataError, match=r"commands.layouts\[0\]\[1\]: unknown placeholder"
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_preparing_installs_only_the_layouts_the_build_runs(monkeypatch, tmp_path):
    from conformance.implementations import preparing
    from conformance.implementations.contexts import ClusterChoice

    did: list[str] = []
    monkeypatch.setattr(preparing, "locate_cluster", lambda cluster: ("/k", "kubectl"))
    monkeypatch.setattr(preparing, "check_marker", lambda clients, allow_foreign: {})
    monkeypatch.setattr(preparing.locking, "hold_for_life", lambda name, cluster: None)

    def acquire_all(clients, **kw):
        held = []
        for instance, _profile in kw["claims"]:
            did.append(f"check {instance.layout}")
            held.append(leases.Held(instance.instance_id, "s", created=True))
        return held

    monkeypatch.setattr(preparing.ownership, "acquire_all", acquire_all)
    keepers = []

    def hold_for_life(clients, held):
        keepers.append(leases.Keeper(clients, held))  # never started: no renewals
        return keepers[-1]

    monkeypatch.setattr(preparing.leases, "hold_for_life", hold_for_life)
    monkeypatch.setattr(
        leases, "let_go", lambda clients, held: did.append(f"let go {held.instance_id}")
    )
    monkeypatch.setattr(preparing.sweeping, "sweep_dead_runs", lambda *a, **kw: None)
    monkeypatch.setattr(preparing, "load_tools_image", lambda cluster: None)
    monkeypatch.setattr(preparing, "environment", lambda *a, **kw: {})
    monkeypatch.setattr(preparing, "image_digests", lambda *a, **kw: {})
    monkeypatch.setattr(preparing.images, "loaded_digests", lambda *a, **kw: {})
    monkeypatch.setattr(
        driving.Driver,
        "unsupported_layouts",
        lambda self: did.append("layouts") or {"initless": "no init-less layout"},
    )
    monkeypatch.setattr(
        driving.Driver,
        "prepare",
        lambda self, layouts: did.append(f"prepare {layouts}"),
    )
    monkeypatch.setattr(
        driving.Driver,
        "install",
        lambda self, instances: did.append(f"install {[i.layout for i in instances]}"),
    )
    monkeypatch.setattr(driving.Driver, "describe", lambda self: "v4.0.0 (commit x)")

    class Api:
        class configuration:
            host = "https://fake"

    class Clients:
        api = Api

    monkeypatch.setattr(preparing.kube, "connect", lambda path: Clients)

    context = preparing.prepare_run(
        cluster=ClusterChoice(
            kubeconfig=None, provider="local", cluster="wpc", allow_foreign=False
        ),
        profile=profiles.load("argo-workflows"),
        layouts=("legacy", "initless"),
        skip_install=False,
        log_dir=tmp_path,
        timeouts=Timeouts(),
    )
    assert did == [
        "check legacy",
        "check initless",
        "layouts",
        "let go wpc-initless",
        "prepare ('legacy',)",
        "install ['legacy']",
    ]
    assert [i.layout for i in context.instances] == ["legacy"]
    assert [h.instance_id for h in keepers[0].holds()] == ["wpc-legacy"]
    assert context.unsupported_layouts == {"initless": "no init-less layout"}
    assert RunContext.from_json(context.to_json()) == context


def test_the_upstream_profile_asks_the_source_and_installs_with_it():
    profile = profiles.load(
        "argo-workflows", variables={"source": MIRROR, "ref": "v4.0.0"}
    )
    values = profiles.placeholder_values(profile, VALUES)
    (layouts,) = profile.commands["layouts"]
    argv = profiles.render(layouts, values)
    assert argv[1:4] == ["-m", "conformance.implementations.upstream", "layouts"]
    assert argv[argv.index("--source") + 1] == MIRROR
    assert argv[argv.index("--ref") + 1] == "v4.0.0"
    install = profiles.render(
        profile.commands["install"][0],
        {
            **values,
            "instance_id": "wpc-legacy",
            "layout": "legacy",
            "namespace": "argo-wpc-legacy",
            "initless": "false",
        },
    )
    assert install[3] == "manifests"
    assert install[install.index("--ref") + 1] == "v4.0.0"
    assert install[install.index("--cache-dir") + 1] == "/cache"
