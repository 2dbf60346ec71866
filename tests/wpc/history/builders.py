"""Small histories, git repositories and ConformanceReports for the history-run tests.

`fix(...)` is one history entry with only what a test is about given; `history_of`
validates them with the real loader. `GitRepo` makes a tiny repository with
tags in a temporary directory, so ancestry is git's own answer. `FakeRepo`
answers the same questions from a table, for tests about the order of work.
`scenario_report` writes a schema-valid ConformanceReport holding one
scenario's outcome per layout.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conformance.spec import history
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report

SIGTERM = (
    "conformance/tests/recovery/test_recovery_controller_sigterm.py::"
    "test_a_gracefully_deleted_controller_pod_is_gone_within_the_bound"
)
WORKDIR = (
    "conformance/tests/initless/test_initless_input_artifacts.py::"
    "test_initless_main_symlinks_artifacts_reenters_workdir_and_fails_on_read_only_root"
)


def sha(n: int) -> str:
    """A made-up full commit sha, distinct per n."""
    return f"{n:040x}"


def fix(
    id_: str,
    *,
    commit: str,
    before: str,
    after: str,
    scenario: str | None = SIGTERM,
    in_scope: bool = True,
    observable: bool = True,
    backports: tuple[tuple[str, str, str], ...] = (),
    clause: str | None = "WPC-RECOVERY-011",
    experiment: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One history entry; backports are (commit, last tag with bug, first without)."""
    data: dict[str, Any] = {
        "id": id_,
        "commit": commit,
        "subject": f"fix: {id_}",
        "issue": None,
        "pr": None,
        "last_tag_with_bug": before,
        "first_tag_without_bug": after,
        "backports": [
            {"commit": c, "last_tag_with_bug": b, "first_tag_without_bug": a}
            for c, b, a in backports
        ],
        "area": "controller-lifecycle",
        "bug": f"the bug {id_} fixes",
        "in_scope": in_scope,
        "clause": clause if in_scope else None,
        "proposed_clause": None,
        "scenario": scenario,
        "observable": observable,
    }
    if not in_scope:
        data["scope_reason"] = "not part of the pod contract"
    if not observable:
        data["reason"] = "happens inside the controller only"
    if experiment is not None:
        data["experiment"] = experiment
    return data


def document_of(*entries: dict[str, Any]) -> dict[str, Any]:
    """A history file's data holding `entries`."""
    return {
        "apiVersion": "wpc.dev/v1",
        "kind": "UpstreamFixHistory",
        "repository": "argoproj/argo-workflows",
        "from_tag": "v1.0.0",
        "to_tag": "v1.2.0",
        "entries": list(entries),
    }


def history_of(*entries: dict[str, Any]) -> history.History:
    """A validated History of `entries`."""
    return history.build(document_of(*entries))


V4 = "github.com/argoproj/argo-workflows/v4"


class GitRepo:
    """A throwaway git repository: a go.mod, empty commits, tags, side branches."""

    def __init__(self, path: Path, module: str = V4) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")
        self.set_module(module)

    def set_module(self, module: str) -> None:
        """Stage a go.mod naming `module` for the next commit."""
        (self.path / "go.mod").write_text(f"module {module}\n\ngo 1.26\n")
        self.git("add", "go.mod")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            [
                "git",
                "-c",
                "user.name=wpc",
                "-c",
                "user.email=wpc@example.test",
                "-C",
                str(self.path),
                *args,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def commit(self, message: str, *, tag: str = "") -> str:
        """An empty commit on the current branch (tagged when `tag`); its sha."""
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        if tag:
            self.git("tag", "-a", tag, "-m", tag)
        return self.git("rev-parse", "HEAD")


class FakeRepo:
    """Git's answers from tables: tag -> commit, and tag -> the commits it contains."""

    def __init__(self, tags: Mapping[str, str], contains: Mapping[str, set[str]]):
        self._tags = dict(tags)
        self._contains = contains

    def commit(self, ref: str) -> str:
        return self._tags[ref]

    def tags(self) -> dict[str, str]:
        return dict(self._tags)

    def is_ancestor(self, commit: str, ref: str) -> bool:
        return commit in self._contains.get(ref, set())

    def module(self, ref: str) -> str:
        return V4.replace("/v4", "/v2") if ref.startswith("v3.") else V4

    def distance(self, a: str, b: str) -> int:
        order = sorted(self._tags)
        return abs(order.index(a) - order.index(b))


def scenario_report(
    path: Path, scenario: str, outcomes: Mapping[str, str], message: str = ""
) -> Path:
    """A valid ConformanceReport with `scenario`'s outcome per layout (and a bystander)."""
    name = scenario.rsplit("::", 1)[-1]
    tests = [entry("Bystander", "legacy", "failed")]
    for layout, outcome in outcomes.items():
        item = entry("X", layout, outcome)
        item["nodeid"] = f"{scenario}[{layout}]"
        item["shortName"] = name
        item["message"] = message if outcome != "passed" else ""
        tests.append(item)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(report(tests)))
    return path


MEASURED: dict[str, Any] = {
    "commit": "abc123def4567890abc123def4567890abc123de",
    "dirty": False,
    "changes": None,
    "specVersion": "1.0",
}
"""The `measuredOn` of `history_result()`: a clean tree at a commit no run is at."""


def history_result(**changes: Any) -> dict[str, Any]:
    """A small valid HistoryResult: one fix caught, one unobservable, one out of scope."""
    side = {
        "neededTag": "v4.1.0",
        "tag": "v4.1.0",
        "report": "reports/history/v4.1.0/conformance.yaml",
        "error": None,
        "layouts": {"legacy": {"outcome": "failed", "message": "AssertionError: slow"}},
    }
    verdicts = {
        "caught": 1,
        "missed": 0,
        "broken-after": 0,
        "not-run": 0,
        "not-selected": 0,
        "no-scenario": 0,
        "unobservable": 1,
        "out-of-scope": 1,
    }
    document: dict[str, Any] = {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "HistoryResult",
        "date": "2026-11-24T16:00:00+00:00",
        "wallSeconds": 331.0,
        "suite": {"version": "0.1.0", "commit": MEASURED["commit"]},
        "measuredOn": dict(MEASURED),
        "implementation": "argo-workflows",
        "source": "/work/.mirror/argoproj+argo-workflows/repo",
        "history": {
            "file": "conformance/spec/history.yaml",
            "repository": "argoproj/argo-workflows",
            "fromTag": "v4.0.0",
            "toTag": "v4.1.2",
        },
        "layout": "both",
        "selected": None,
        "substituteBuilt": False,
        "score": {
            "caught": 1,
            "inScope": 2,
            "score": 0.5,
            "counting": "caught / in scope",
        },
        "counts": verdicts,
        "tags": [],
        "substitutions": [],
        "entries": [
            {
                "id": "sigterm",
                "clause": "WPC-RECOVERY-011",
                "scenario": SIGTERM,
                "inScope": True,
                "observable": True,
                "verdict": "caught",
                "reason": "failed on v4.1.0 and passed on v4.1.1 in legacy",
                "evidence": "AssertionError: slow",
                "before": side,
                "after": {**side, "neededTag": "v4.1.1", "tag": "v4.1.1"},
            },
            {
                "id": "hidden",
                "clause": "WPC-RECOVERY-009",
                "scenario": None,
                "inScope": True,
                "observable": False,
                "verdict": "unobservable",
                "reason": "inside the controller",
                "evidence": "",
                "before": None,
                "after": None,
            },
            {
                "id": "elsewhere",
                "clause": None,
                "scenario": None,
                "inScope": False,
                "observable": True,
                "verdict": "out-of-scope",
                "reason": "not the pod contract",
                "evidence": "",
                "before": None,
                "after": None,
            },
        ],
    }
    document.update(changes)
    return document
