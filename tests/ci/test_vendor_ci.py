"""We test the CI files vendors call and copy (issue 26 item 6):

- every `uses:` of ci/github-actions.yaml, the reusable workflow
  (.github/workflows/wpc-conformance.yaml) and WPC's composite action
  (ci/action/action.yml) is pinned by a full 40-hex commit with its release in a
  comment, the same commit for the same action everywhere, at a major that runs on
  Node 24 (read from each action's action.yml `runs.using` at its tag); the only
  unpinned ones are WPC's own action, from the same checkout;
- no checkout keeps its credentials; permissions are read-only or none; both
  workflows have a `concurrency` group (the reusable one its own, never its caller's);
- every cache key names the cell: each matrix dimension, and in the action the
  implementation, layout, Kubernetes minor and shard;
- the vendor-facing action and workflow run WPC from its installed package (pip
  into a virtualenv, then that `wpc`), never WPC's Makefile or `python -m` from a
  checkout, and the checker catches a Makefile step put back;
- the action's `wpc` command lines parse; it writes the job summary and the
  annotations with `wpc summary`, merges with `wpc merge`, renders Allure from a
  lockfile pinning allure-commandline exactly;
- the reusable workflow's inputs (profile, layouts, Kubernetes versions, shards)
  drive its matrix, and the template's qualification job takes OLD and NEW from
  `workflow_dispatch`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ci.test_github_actions import commands
from tests.ci.test_github_actions import expand
from tests.ci.test_github_actions import matrices
from tests.ci.test_github_actions import unwrap
from wpc import cli as wpc_cli

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "ci" / "github-actions.yaml"
REUSABLE = ROOT / ".github" / "workflows" / "wpc-conformance.yaml"
ACTION = ROOT / "ci" / "action" / "action.yml"
FILES = (TEMPLATE, REUSABLE, ACTION)

PINS = {
    "actions/checkout": ("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/setup-python": ("5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    "actions/setup-go": ("b7ad1dad31e06c5925ef5d2fc7ad053ef454303e", "v7.0.0"),
    "actions/cache": ("27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"),
    "actions/upload-artifact": ("bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0"),
    "actions/download-artifact": (
        "3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c",
        "v8.0.1",
    ),
    "actions/setup-node": ("820762786026740c76f36085b0efc47a31fe5020", "v7.0.0"),
    "actions/setup-java": ("b6effb05e454b25005698d916606bdc6ffcbf961", "v5.7.0"),
}
"""Each action's commit (`git rev-parse TAG^{commit}` in its repository) and tag."""
NODE24_SINCE = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "actions/setup-go": 7,  # v6.0-v6.4 still node20
    "actions/cache": 5,
    "actions/upload-artifact": 6,
    "actions/download-artifact": 7,
    "actions/setup-node": 5,
    "actions/setup-java": 5,
}
"""The first major whose action.yml says `runs.using: node24` (read at each tag)."""
WPC_ACTIONS = {"./ci/action", "./.wpc/ci/action"}
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
PINNED = re.compile(
    r"^(?P<action>[\w.-]+/[\w.-]+)(?:/[\w./-]+)?@(?P<sha>[0-9a-f]{40})"
    r" # (?P<version>v\d+\.\d+\.\d+)\b"
)


def load(path: Path) -> dict[str, Any]:
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict)
    return document


def triggers(document: dict[str, Any]) -> dict[str, Any]:
    """`on:`, which YAML 1.1 (PyYAML) reads as the key True."""
    found = document.get("on", document.get(True))
    assert isinstance(found, dict)
    return found


def steps_of(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(job name, step) of a workflow, or ("action", step) of an action."""
    if "runs" in document:
        for step in document["runs"]["steps"]:
            yield "action", step
        return
    for name, job in document["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def pinning_problems(text: str) -> list[str]:
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        found = USES.match(line)
        if not found:
            continue
        ref = found.group("ref")
        if ref in WPC_ACTIONS:
            continue
        pinned = PINNED.match(f"{ref}{found.group('rest')}")
        if pinned is None:
            problems.append(f"line {number}: {ref} is not pinned by SHA # vX.Y.Z")
            continue
        action = pinned.group("action")
        if PINS.get(action) != (pinned.group("sha"), pinned.group("version")):
            problems.append(f"line {number}: {action} is not at {PINS.get(action)}")
        major = int(pinned.group("version")[1:].split(".")[0])
        if major < NODE24_SINCE.get(action, 10**6):
            problems.append(f"line {number}: {action} {major} does not run on Node 24")
    return problems


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_action_is_pinned_by_sha_with_its_version(path):
    text = path.read_text()
    assert pinning_problems(text) == []
    assert len(re.findall(r"uses:", text)) > 2


def test_the_pinning_check_catches_a_tag_a_short_sha_and_a_stale_major():
    text = (
        "      - uses: actions/checkout@v7\n"
        "      - uses: actions/cache@27d5ce7 # v5.0.5\n"
        "      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae\n"
        "      - uses: actions/upload-artifact@"
        "ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2\n"
        "      - uses: actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0\n"
    )
    assert pinning_problems(text) == [
        "line 1: actions/checkout@v7 is not pinned by SHA # vX.Y.Z",
        "line 2: actions/cache@27d5ce7 is not pinned by SHA # vX.Y.Z",
        "line 3: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae is not "
        "pinned by SHA # vX.Y.Z",
        "line 4: actions/upload-artifact is not at "
        "('bbbca2ddaa5d8feaa63e36b76fdaad77386f024f', 'v7.0.0')",
        "line 4: actions/upload-artifact 4 does not run on Node 24",
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_checkout_keeps_its_credentials(path):
    checkouts = [
        step
        for _, step in steps_of(load(path))
        if str(step.get("uses", "")).startswith("actions/checkout@")
    ]
    for step in checkouts:
        assert step.get("with", {}).get("persist-credentials") is False, step
    assert checkouts or path == ACTION


def test_permissions_are_minimal_and_runs_do_not_pile_up():
    template, reusable = load(TEMPLATE), load(REUSABLE)
    assert template["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in template["jobs"].values())
    assert reusable["permissions"] == {}
    for job in reusable["jobs"].values():
        assert job.get("permissions", {}) in ({}, {"contents": "read"})
    assert template["concurrency"]["group"] == "wpc-conformance-${{ github.ref }}"
    # A called workflow shares its caller's github.workflow and github.ref: its own
    # group names itself and the implementation, so the two never cancel each other.
    group = reusable["concurrency"]["group"]
    assert group.startswith("wpc-conformance-${{ inputs.name }}-")


def _caches(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, step in steps_of(document):
        if str(step.get("uses", "")).startswith("actions/cache@"):
            yield name, step


def test_every_cache_key_names_its_cell():
    template = load(TEMPLATE)
    checked = 0
    for name, step in _caches(template):
        for dimension in next(iter(matrices(template["jobs"][name]))):
            assert f"${{{{ matrix.{dimension} }}}}" in step["with"]["key"], name
            checked += 1
    assert checked >= 3  # local (implementation, shard), chaos
    local = next(s for n, s in _caches(template) if n == "local")
    assert "-both-k8s-1.36-shard-${{ matrix.shard }}-" in local["with"]["key"]
    ((_, action_cache),) = list(_caches(load(ACTION)))
    key = action_cache["with"]["key"]
    for part in (
        "inputs.implementation",
        "inputs.layout",
        "inputs.kubernetes",
        "steps.paths.outputs.shard",
    ):
        assert f"${{{{ {part} }}}}" in key


def installed_package_problems(document: dict[str, Any]) -> list[str]:
    """Steps that run WPC other than from its installed package."""
    problems = []
    for name, step in steps_of(document):
        for argv in commands(step.get("run", "")):
            args, _ = unwrap(argv)
            if not args:
                continue
            if args[0] == "make":
                problems.append(f"{name}: runs WPC's Makefile: {' '.join(argv)}")
            if ".venv/" in args[0] or args[1:3] in (
                ["-m", "conformance"],
                ["-m", "clusters"],
                ["-m", "chaos"],
                ["-m", "wpc"],
            ):
                problems.append(f"{name}: runs WPC from a checkout: {' '.join(argv)}")
        uses = str(step.get("uses", ""))
        if uses.startswith("./") and uses not in WPC_ACTIONS:
            problems.append(f"{name}: uses {uses}")
    return problems


def test_the_vendor_facing_files_run_wpc_from_its_installed_package():
    action, reusable = load(ACTION), load(REUSABLE)
    assert installed_package_problems(action) == []
    assert installed_package_problems(reusable) == []
    install = next(s for _, s in steps_of(action) if s.get("id") == "install")
    venv = install["env"]["WPC_VENV"]
    assert venv == "${{ runner.temp }}/wpc-venv"
    assert (
        '"$WPC_VENV/bin/python" -m pip install --quiet '
        '"${WPC_PACKAGE:-$GITHUB_ACTION_PATH/../..}"' in install["run"]
    )
    verbs = set()
    for _, step in steps_of(action):
        for argv in commands(step.get("run", "")):
            if argv[0] == "$WPC":
                assert step["env"]["WPC"] == f"{venv}/bin/wpc"
                verbs.add(argv[1])
    assert verbs == {"run", "merge", "summary", "cluster"}
    # The reusable workflow runs nothing itself but the shard arithmetic: WPC's
    # action, from the WPC checkout at the commit the caller pinned.
    for name in ("run", "merge"):
        steps = reusable["jobs"][name]["steps"]
        wpc = next(s for s in steps if s.get("with", {}).get("path") == ".wpc")
        assert wpc["with"]["repository"] == "${{ inputs.wpc-repository }}"
        assert wpc["with"]["ref"] == "${{ inputs.wpc-ref }}"
        assert any(s.get("uses") == "./.wpc/ci/action" for s in steps)
        assert all("run" not in s for s in steps)


def test_the_checker_catches_the_makefile_and_a_checkouts_python():
    broken = copy.deepcopy(load(ACTION))
    broken["runs"]["steps"].append({"run": "make conformance PROVIDER=kind"})
    broken["runs"]["steps"].append({"run": ".venv/bin/python -m conformance merge x"})
    broken["runs"]["steps"].append({"uses": "./somewhere/else"})
    assert installed_package_problems(broken) == [
        "action: runs WPC's Makefile: make conformance PROVIDER=kind",
        "action: runs WPC from a checkout: .venv/bin/python -m conformance merge x",
        "action: uses ./somewhere/else",
    ]


def test_the_actions_wpc_command_lines_parse():
    parsed = 0
    for _, step in steps_of(load(ACTION)):
        env = {k: str(v) for k, v in step.get("env", {}).items()}
        for argv in commands(expand(step.get("run", ""), {}, env)):
            if Path(argv[0]).name != "wpc":
                continue
            if argv[1:] == ["--version"]:
                with pytest.raises(SystemExit) as exited:
                    wpc_cli.parse(argv[1:])
                assert exited.value.code == 0
            else:
                wpc_cli.parse(argv[1:])  # argparse exits 2 on a bad line
            parsed += 1
    assert parsed >= 6


def test_the_action_writes_the_summary_and_annotations_and_renders_allure():
    steps = [s for _, s in steps_of(load(ACTION))]
    summary = next(s for s in steps if "wpc summary" in s.get("name", ""))
    assert summary["if"] == "${{ !cancelled() }}"
    assert (
        '"$WPC" summary "$REPORT" --markdown >> "$GITHUB_STEP_SUMMARY"'
        in (summary["run"])
    )
    assert '"$WPC" summary "$REPORT" --annotations' in summary["run"]
    allure = next(s for s in steps if s.get("name") == "Allure report")
    assert "npm ci --ignore-scripts" in allure["run"]
    assert "--single-file" in allure["run"]
    lock = json.loads((ACTION.parent / "allure" / "package-lock.json").read_text())
    package = json.loads((ACTION.parent / "allure" / "package.json").read_text())
    version = package["dependencies"]["allure-commandline"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)  # exact, no range
    locked = lock["packages"]["node_modules/allure-commandline"]
    assert locked["version"] == version
    assert locked["integrity"].startswith("sha512-")
    # The run's own exit code decides the step, after the summary has been written.
    assert steps[-1]["run"] == 'exit "$STATUS"'


def test_the_reusable_workflows_inputs_drive_its_matrix():
    reusable = load(REUSABLE)
    inputs = triggers(reusable)["workflow_call"]["inputs"]
    assert inputs["implementation"]["required"] is True
    assert {"layouts", "kubernetes-versions", "shards", "profile-vars"} <= set(inputs)
    assert json.loads(inputs["layouts"]["default"]) == ["both"]
    matrix = reusable["jobs"]["run"]["strategy"]["matrix"]
    assert matrix == {
        "layout": "${{ fromJSON(inputs.layouts) }}",
        "kubernetes": "${{ fromJSON(inputs.kubernetes-versions) }}",
        "shard": "${{ fromJSON(needs.plan.outputs.shards) }}",
    }
    run = next(
        s
        for s in reusable["jobs"]["run"]["steps"]
        if "with" in s and "shard" in s["with"]
    )
    assert run["with"]["shard"] == "${{ matrix.shard }}/${{ inputs.shards }}"
    merge = reusable["jobs"]["merge"]
    assert merge["needs"] == ["plan", "run"]
    action = next(s for s in merge["steps"] if s.get("uses") == "./.wpc/ci/action")
    assert action["with"]["shard-reports"] == "shards/*/conformance.yaml"


def test_the_template_qualifies_old_against_new_on_workflow_dispatch():
    template = load(TEMPLATE)
    inputs = triggers(template)["workflow_dispatch"]["inputs"]
    assert set(inputs) == {"old", "new"}
    job = template["jobs"]["qualify"]
    assert "workflow_dispatch" in job["if"]
    step = next(s for s in job["steps"] if s.get("name") == "make qualify")
    assert step["env"] == {"OLD": "${{ inputs.old }}", "NEW": "${{ inputs.new }}"}
    assert 'make qualify PROVIDER=local OLD="$OLD" NEW="$NEW"' in step["run"]
