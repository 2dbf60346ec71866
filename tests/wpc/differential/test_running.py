"""We test the differential run without a cluster: batching, waiting, verdicts, the CLI.

The cluster side is faked at the `Workflows` seam (submit, wait, get), the
same object the suite's scenarios use; the instance IDs and namespaces come
from the real profiles.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.exitcodes import ExitCode
from conformance.implementations import driving
from conformance.implementations import profiles
from wpc import suite_cli as entry
from wpc.differential import cli
from wpc.differential import installing
from wpc.differential import running
from wpc.differential.corpus import Entry


class FakeWorkflows:
    """Completes each workflow with the phase its manifest's name asks for."""

    def __init__(
        self, phases: dict[str, str], *, stuck: frozenset[str] = frozenset()
    ) -> None:
        self.phases = phases
        self.stuck = stuck
        self.submitted: list[str] = []
        self.waited: list[str] = []
        self.events: list[tuple[str, str]] = []

    def submit(self, manifest: dict) -> str:
        stem = manifest["metadata"]["generateName"].rstrip("-")
        if stem == "rejected":
            raise ApiException(status=422, reason="Unprocessable Entity")
        name = f"{stem}-{len(self.submitted):05d}"
        self.submitted.append(name)
        self.events.append(("submit", name))
        return name

    def _workflow(self, name: str, phase: str) -> dict:
        return {
            "metadata": {"name": name},
            "status": {
                "phase": phase,
                "nodes": {
                    name: {
                        "id": name,
                        "name": name,
                        "displayName": name,
                        "type": "Pod",
                        "phase": phase,
                    }
                },
            },
        }

    def wait_completed(self, name: str) -> dict:
        self.waited.append(name)
        self.events.append(("wait", name))
        stem = name.rsplit("-", 1)[0]
        if stem in self.stuck:
            raise WaitTimeout(
                describe=f"workflow {name} to complete",
                timeout=1,
                last_observed="Running",
            )
        return self._workflow(name, self.phases.get(stem, "Succeeded"))

    def get(self, name: str) -> dict:
        return self._workflow(name, "Running")


def _entry(stem: str) -> Entry:
    return Entry(
        file=f"{stem}.yaml", manifest={"metadata": {"generateName": f"{stem}-"}}
    )


def test_every_file_runs_on_both_sides_in_batches_and_gets_a_verdict():
    entries = [
        _entry("same"),
        _entry("differs"),
        Entry(
            file="skipped.yaml", manifest=None, skipped="image x not available offline"
        ),
        _entry("stuck"),
        _entry("rejected"),
        _entry("known"),
    ]
    a = FakeWorkflows({"differs": "Failed", "known": "Error"})
    b = FakeWorkflows({"known": "Failed"}, stuck=frozenset({"stuck"}))
    found = running.compare_corpus(
        entries, a, b, known_files={"known.yaml": "upstream bug"}, inflight=2
    )
    verdicts = {r.file: r.verdict for r in found}
    assert verdicts == {
        "differs.yaml": "different",
        "known.yaml": "known",
        "rejected.yaml": "same",
        "same.yaml": "same",
        "skipped.yaml": "skipped",
        "stuck.yaml": "different",
    }
    stuck = next(r for r in found if r.file == "stuck.yaml")
    assert stuck.b is not None
    assert "workflow stuck-" in stuck.b.note
    assert (
        next(r for r in found if r.file == "rejected.yaml").a.outcome["phase"]
        == running.REJECTED
    )
    # Batches of two files: both submitted before the first is awaited.
    assert [kind for kind, _ in a.events[:3]] == ["submit", "submit", "wait"]


def test_the_sides_get_their_own_instance_ids_never_the_suites():
    for name in ("reference", "argo-workflows"):
        profile = profiles.load(name)
        driver = driving.Driver(
            profile=profile, values={}, log_dir=Path("."), timeout=1
        )
        a = installing.side_instance(driver, side="a", layout="legacy")
        b = installing.side_instance(driver, side="b", layout="legacy")
        assert (a.instance_id, b.instance_id) == (
            "wpc-diff-a-legacy",
            "wpc-diff-b-legacy",
        )
        shared = {profile.instance(layout).namespace for layout in profile.layouts}
        assert {a.namespace, b.namespace}.isdisjoint(shared)
        assert a.namespace != b.namespace


def test_a_profile_whose_namespace_ignores_the_instance_id_is_refused(tmp_path):
    text = (
        profiles.resolve("reference")
        .read_text()
        .replace('namespace: "{instance_id}"', "namespace: argo")
    )
    path = tmp_path / "fixed-namespace.yaml"
    path.write_text(text)
    driver = driving.Driver(
        profile=profiles.load(str(path)), values={}, log_dir=tmp_path, timeout=1
    )
    with pytest.raises(HarnessError, match="shared namespace argo"):
        installing.side_instance(driver, side="a", layout="legacy")


def _args(*extra: str):
    parser = entry.parser()
    return parser.parse_args(
        ["differential", "--a", "reference", "--b", "argo-workflows", *extra]
    )


def test_the_command_line_becomes_settings():
    settings = cli.settings_of(
        _args(
            "--layout",
            "initless",
            "--profile-var-b",
            "source=/src",
            "--profile-var-b",
            "ref=v4.1.2",
            "--image-map",
            "busybox=wpc.local/wpc-tools:0.1.0",
            "--inflight",
            "2",
        )
    )
    assert settings.layout == "initless"
    assert settings.b_vars == {"source": "/src", "ref": "v4.1.2"}
    assert settings.a_vars == {}
    assert settings.policy.mapped("busybox:1.36") == "wpc.local/wpc-tools:0.1.0"
    assert settings.corpus == cli.CORPUS
    assert settings.result_path("reference", "argo-workflows") == Path(
        "reports/differential-reference-vs-argo-workflows-initless.yaml"
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--inflight", "0"], "--inflight"),
        (["--profile-var-a", "novalue"], "--profile-var-a"),
        (["--image-map", "busybox"], "--image-map"),
        (["--timeout-scale", "nan"], "--timeout-scale nan: must be a finite number"),
        (["--timeout-scale", "0.5"], "--timeout-scale 0.5: must be a finite number"),
    ],
)
def test_bad_options_are_invalid_input(flags, message, capsys):
    argv = ["differential", "--a", "reference", "--b", "argo-workflows", *flags]
    assert entry.main(argv) == ExitCode.INVALID_INPUT
    assert message in capsys.readouterr().err


def test_a_layout_a_profile_does_not_claim_is_invalid_input(tmp_path, capsys):
    text = (
        profiles.resolve("reference")
        .read_text()
        .replace("layouts: [legacy, initless]", "layouts: [legacy]")
    )
    path = tmp_path / "legacy-only.yaml"
    path.write_text(text)
    argv = [
        "differential",
        "--a",
        str(path),
        "--b",
        "reference",
        "--layout",
        "initless",
    ]
    assert entry.main(argv) == ExitCode.INVALID_INPUT
    assert "does not claim layout initless" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("verdict", "code"),
    [
        ("same", 0),
        ("known", 0),
        ("skipped", 0),
        ("different", ExitCode.DIFFERENT),
        ("not-completed", ExitCode.DIFFERENT),
    ],
)
def test_the_exit_code_is_non_zero_only_for_an_unknown_difference(
    monkeypatch, capsys, verdict, code
):
    side = {
        "implementation": "reference",
        "version": "0.1.0",
        "instanceId": "wpc-diff-a-legacy",
    }
    document = {
        "layout": "legacy",
        "corpus": "c",
        "sides": {"a": side, "b": side},
        "summary": {
            "files": 1,
            "same": 0,
            "different": 0,
            "known": 0,
            "not-completed": 0,
            "skipped": 0,
        },
        "files": [{"file": "f.yaml", "verdict": verdict}],
    }
    monkeypatch.setattr(running, "run", lambda settings, cluster: document)
    assert entry.main(["differential", "--a", "reference", "--b", "reference"]) == code
    out = capsys.readouterr().out
    assert "f.yaml" in out
    assert "result: reports/differential-reference-vs-reference-legacy.yaml" in out
