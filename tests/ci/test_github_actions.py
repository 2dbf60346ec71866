"""We test that the CI workflow users copy (ci/github-actions.yaml) runs as written:

- every `make TARGET` in a `run:` step names a target the Makefile has a rule for
  (a name only listed in .PHONY does not count: make would do nothing and pass);
- every `python -m conformance|clusters|chaos ...` and `wpc ...` command line
  parses with the project's own argparse parsers, for every matrix combination
  (step `env:` and `${{ matrix.* }}` expanded, as the runner would; a redirection
  such as `>> "$GITHUB_STEP_SUMMARY"` is not an argument);
- commands that need root run as `sudo ... env "PATH=$PATH"`, so Go and Python
  from setup-go and setup-python stay on PATH;
- the workflow reads the repository and nothing more (`permissions: contents: read`);
- the checker itself catches a nonexistent make target and a bad option;
- the header's `Jobs:` list describes every job of the workflow.

The kind job and the merge of the local shards run WPC's own action (ci/action),
as vendors do; tests/ci/test_vendor_ci.py checks that action and the pins.
"""

from __future__ import annotations

import copy
import itertools
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from wpc import cli as wpc_cli
from wpc import suite_cli as conformance_cli

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "ci" / "github-actions.yaml"
REUSABLE = ROOT / ".github" / "workflows" / "wpc-conformance.yaml"
ACTION_FILE = ROOT / "ci" / "action" / "action.yml"
ACTION = yaml.safe_load(ACTION_FILE.read_text())
MAKEFILE = ROOT / "Makefile"
SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", "{", "}"}
REDIRECTIONS = {">", ">>", "<", "<<<"}
ROOT_TARGETS = {"conformance", "test", "cluster-up", "cluster-down", "host-deps"}


def make_targets(makefile: str) -> set[str]:
    """Targets with a rule (`name: ...` at the start of a line), not variables."""
    targets = set()
    for line in makefile.splitlines():
        match = re.match(r"^([A-Za-z0-9_.\- ]+?)\s*:(?!=)", line)
        if match and not line.startswith((".", "\t")):
            targets.update(match.group(1).split())
    return targets


def matrices(job: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Every combination of the job's matrix (one empty one without a matrix)."""
    matrix = dict(job.get("strategy", {}).get("matrix", {}))
    include = matrix.pop("include", [])
    matrix.pop("exclude", None)
    keys = sorted(matrix)
    for values in itertools.product(*(matrix[k] for k in keys)):
        yield {k: str(v) for k, v in zip(keys, values, strict=True)}
    for extra in include:
        yield {k: str(v) for k, v in extra.items()}


def expand(text: str, matrix: dict[str, str], env: dict[str, str]) -> str:
    """`${{ matrix.x }}` / `${{ env.x }}`, then `$VAR` / `${VAR}` from the step env."""

    def expression(match: re.Match[str]) -> str:
        scope, _, name = match.group(1).strip().partition(".")
        values = {"matrix": matrix, "env": env}.get(scope, {})
        return values.get(name, match.group(0))

    text = re.sub(r"\$\{\{(.*?)\}\}", expression, text)
    return re.sub(
        r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
        lambda m: env.get(m.group(1), m.group(0)),
        text,
    )


def commands(script: str) -> Iterator[list[str]]:
    """The simple commands of a `run:` script (line continuations joined)."""
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|(){}<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        current: list[str] = []
        redirected = False
        for token in lexer:
            if redirected:  # the file of a `>`, `>>` or `<`: not an argument
                redirected = False
            elif token in REDIRECTIONS:
                redirected = True
            elif token in SEPARATORS:
                if current:
                    yield current
                current = []
            else:
                current.append(token)
        if current:
            yield current


def unwrap(argv: list[str]) -> tuple[list[str], bool]:
    """Drop `sudo [options]`, `env [VAR=...]` and leading assignments; say if sudo."""
    sudo = False
    args = list(argv)
    while args:
        if args[0] == "sudo":
            sudo = True
            args = args[1:]
            while args and args[0].startswith("-"):
                args = args[1:]
        elif args[0] == "env" or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", args[0]):
            args = args[1:]
        else:
            break
    return args, sudo


def problems_of(argv: list[str], targets: set[str]) -> list[str]:
    """What is wrong with one command line (nothing for commands not ours)."""
    args, sudo = unwrap(argv)
    if not args:
        return []
    found = []
    if args[0] == "make":
        named = [a for a in args[1:] if "=" not in a and not a.startswith("-")]
        found += [
            f"make target {t!r} has no rule in the Makefile"
            for t in named
            if t not in targets
        ]
        if set(named) & ROOT_TARGETS and not sudo and "PROVIDER=kind" not in args:
            found.append(f"{shlex.join(argv)}: needs root (sudo)")
        if sudo and "PATH=$PATH" not in argv:
            found.append(f"{shlex.join(argv)}: sudo drops PATH; use env PATH=$PATH")
        return found
    parser = None
    rest: list[str] = []
    if args[0].endswith("python") or args[0].endswith("python3"):
        if args[1:3] == ["-m", "conformance"]:
            parser, rest = conformance_cli.parser(), args[3:]
        elif args[1:3] == ["-m", "clusters"]:
            parser, rest = wpc_cli.front_end_parser("cluster"), args[3:]
        elif args[1:3] == ["-m", "chaos"]:
            parser, rest = wpc_cli.front_end_parser("chaos"), args[3:]
    elif Path(args[0]).name == "wpc":
        try:
            wpc_cli.parse(args[1:])
        except SystemExit:
            found.append(f"{shlex.join(argv)}: wpc does not accept this")
        return found
    if parser is not None:
        try:
            parser.parse_args(rest)
        except SystemExit:
            found.append(f"{shlex.join(argv)}: its parser does not accept this")
    return found


def check(workflow: dict[str, Any], makefile: str) -> list[str]:
    """Every problem of every `run:` step, for every matrix combination."""
    targets = make_targets(makefile)
    problems = []
    for name, job in workflow["jobs"].items():
        for matrix in matrices(job):
            for step in job["steps"]:
                if "run" not in step:
                    continue
                env = {
                    **{k: str(v) for k, v in (workflow.get("env") or {}).items()},
                    **{k: str(v) for k, v in (job.get("env") or {}).items()},
                }
                env.update(
                    {
                        k: expand(str(v), matrix, env)
                        for k, v in step.get("env", {}).items()
                    }
                )
                for argv in commands(expand(step["run"], matrix, env)):
                    problems += [
                        f"{name} {matrix}: {p}" for p in problems_of(argv, targets)
                    ]
    return sorted(set(problems))


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text())


def test_every_run_step_names_real_targets_and_parses(workflow, capsys):
    assert check(workflow, MAKEFILE.read_text()) == []


def test_the_workflow_runs_our_commands(workflow):
    """Guards the test above against checking nothing."""
    seen = [
        unwrap(argv)[0][:2]
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if "run" in step
        for argv in commands(step["run"])
    ]
    assert ["make", "lint"] in seen
    assert ["make", "conformance"] in seen
    assert [".venv/bin/python", "-m"] in seen


def test_the_workflow_only_reads_the_repository(workflow):
    assert workflow["permissions"] == {"contents": "read"}


def _with_run(workflow: dict[str, Any], script: str) -> dict[str, Any]:
    broken = copy.deepcopy(workflow)
    broken["jobs"]["lint"]["steps"].append({"run": script})
    return broken


def test_a_nonexistent_make_target_is_caught(workflow):
    problems = check(
        _with_run(workflow, "make lint no-such-target"), MAKEFILE.read_text()
    )
    assert problems == [
        "lint {}: make target 'no-such-target' has no rule in the Makefile"
    ]


def test_a_target_only_listed_as_phony_is_caught(workflow):
    makefile = ".PHONY: lint unit-test cluster-test\nlint:\n\tx\n"
    assert make_targets(makefile) == {"lint"}


def test_bad_command_lines_are_caught(workflow):
    broken = _with_run(
        workflow,
        "python -m conformance run --implementation reference --layout sideways\n"
        "wpc run --no-such-option\n"
        "make conformance LAYOUT=legacy\n"
        "sudo make test\n",
    )
    problems = "\n".join(check(broken, MAKEFILE.read_text()))
    assert "--layout sideways: its parser does not accept this" in problems
    assert "wpc run --no-such-option: wpc does not accept this" in problems
    assert "make conformance LAYOUT=legacy: needs root (sudo)" in problems
    assert "sudo make test: sudo drops PATH" in problems


def test_matrix_and_env_are_expanded_as_the_runner_would():
    env = {"LAYOUT": "legacy"}
    assert expand('a ${{ matrix.x }} "$LAYOUT" ${LAYOUT} $OTHER', {"x": "1"}, env) == (
        'a 1 "legacy" legacy $OTHER'
    )


def test_the_kind_job_uses_the_runners_docker_and_the_pinned_node_images(workflow):
    """Issue 15: no root, no own dockerd, upstream kindest/node pinned as in pins.py.

    Since issue 26 the job is WPC's own action (ci/action): it runs on the runner's
    Docker (WPC_KIND_DOCKER=host) with `wpc cluster node-image KUBERNETES`, the
    pins.KINDEST_NODE image of each cell's Kubernetes minor.
    """
    from clusters import pins

    job = workflow["jobs"]["kind"]
    cells = list(matrices(job))
    step = next(s for s in job["steps"] if s.get("name") == "Conformance")
    assert step["uses"] == "./ci/action"
    assert step["with"]["kubernetes"] == "${{ matrix.kubernetes }}"
    kubernetes = {(c["implementation"], c["layout"], c["kubernetes"]) for c in cells}
    for layout in ("legacy", "initless"):
        assert ("argo-workflows-images", layout, "1.36") in kubernetes
    assert ("argo-workflows-images", "legacy", "1.35") in kubernetes
    assert len(kubernetes) == len(cells)  # the 1.35 cell is added, not merged into one
    assert {c["kubernetes"] for c in cells} <= set(pins.KINDEST_NODE)
    run = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "run")
    assert run["env"]["WPC_KIND_DOCKER"] == "host"
    assert '"$WPC" cluster node-image "$KUBERNETES"' in run["run"]
    assert "--provider kind" in run["run"]
    scripts = " ".join(s.get("run", "") for s in job["steps"])
    assert "go install sigs.k8s.io/kind" not in scripts  # the provider builds pins.KIND
    assert "sudo" not in scripts + run["run"]


def test_the_local_job_runs_four_shards_and_a_last_job_merges_them(workflow):
    """Issue 27: shards across runners, one report per implementation at the end."""
    local, merge = workflow["jobs"]["local"], workflow["jobs"]["merge-local"]
    cells = list(matrices(local))
    for implementation in ("reference", "argo-workflows"):
        shards = {c["shard"] for c in cells if c["implementation"] == implementation}
        assert shards == {"1", "2", "3", "4"}
    step = next(s for s in local["steps"] if s.get("name") == "Conformance")
    assert step["env"]["SHARD"] == "${{ matrix.shard }}/4"
    assert "SHARD=" in step["run"]
    assert merge["needs"] == "local"
    assert merge["if"] == "${{ !cancelled() }}"  # after failed shards too
    # WPC's own action merges (`wpc merge`, then the summary and annotations).
    step = next(s for s in merge["steps"] if s.get("name") == "Merge the shards")
    assert step["uses"] == "./ci/action"
    assert step["with"]["shard-reports"] == (
        "shards/*/shard-*-of-4/conformance-${{ matrix.implementation }}.yaml"
    )
    merging = next(s for s in ACTION["runs"]["steps"] if "merge" in s.get("name", ""))
    assert merging["if"] == "inputs.shard-reports != ''"
    assert '"$WPC" merge "${shards[@]}" -o "$REPORT"' in merging["run"]


JOB_LINE = re.compile(r"#   ([a-z][a-z-]*) ")
"""A job's line in the header's `Jobs:` list: its name, then what it does."""


def test_the_header_describes_every_job_in_its_jobs_list(workflow):
    lines = WORKFLOW.read_text().splitlines()
    start = lines.index("# Jobs:") + 1
    end = lines.index("#", start)  # the list ends at the first blank comment line
    listed = [m.group(1) for m in map(JOB_LINE.match, lines[start:end]) if m]
    assert sorted(listed) == sorted(workflow["jobs"])
