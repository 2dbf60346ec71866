"""We test these aspects of `conformance/spec/history.yaml` and its loader:

- the shipped file validates against `history.schema.json` (always, with
  jsonschema directly, not only through the loader) and loads;
- every clause it names is an active clause of the spec and every scenario a
  test function that exists under conformance/tests;
- with the upstream mirror present, every commit exists, its first tag
  without the bug contains it and its last tag with the bug does not (skipped,
  saying why, when the mirror is absent);
- the two fixes the issue names are there, in the tags the history gives;
- a broken file fails loudly naming the entry: unknown key, short sha, an
  issue or PR number the subject does not name, a duplicate id, an
  unobservable fix without a reason, an in-scope fix with neither clause nor
  proposed clause; an unknown clause or scenario is a reference problem;
- `python -m conformance history` lists every fix and the counts, and a bad
  file exits with INVALID_INPUT.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance import spec
from conformance.exitcodes import ExitCode
from conformance.spec import SpecError
from conformance.spec import history
from wpc import suite_cli as conformance_cli

MIRROR = Path("/work/.mirror/argoproj+argo-workflows/repo")
REMOVE = object()
"""A change that removes the key instead of setting it."""


def shipped() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(history.HISTORY_PATH.read_text())
    return data


def test_the_shipped_file_matches_its_schema():
    schema = json.loads(history.SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(shipped())
    assert history.load().fixes


def test_every_clause_and_scenario_named_exists():
    loaded = history.load()
    assert history.check_references(loaded, spec.load()) == []
    # Not vacuous: the shipped file names both.
    assert any(f.clause for f in loaded.fixes)
    assert any(f.scenario for f in loaded.fixes)


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(MIRROR), *args], capture_output=True, text=True, check=False
    )


@pytest.mark.skipif(
    not MIRROR.is_dir(),
    reason=f"the upstream mirror {MIRROR} is absent: commits and tags not checked",
)
def test_commits_exist_and_sit_between_their_tags():
    loaded = history.load()
    for fix in loaded.fixes:
        ranges = [(fix.commit, fix.last_tag_with_bug, fix.first_tag_without_bug)]
        ranges += [
            (b.commit, b.last_tag_with_bug, b.first_tag_without_bug)
            for b in fix.backports
        ]
        for commit, bad, good in ranges:
            assert git("cat-file", "-e", f"{commit}^{{commit}}").returncode == 0, (
                f"{fix.id}: {commit} is not a commit of the mirror"
            )
            assert git("merge-base", "--is-ancestor", commit, good).returncode == 0, (
                f"{fix.id}: {good} does not contain {commit}"
            )
            assert git("merge-base", "--is-ancestor", commit, bad).returncode == 1, (
                f"{fix.id}: {bad} already contains {commit}"
            )
        subject = git("log", "-1", "--format=%s", fix.commit).stdout.strip()
        assert subject == fix.subject, fix.id
    in_range = git("rev-list", f"{loaded.from_tag}..{loaded.to_tag}").stdout.split()
    assert {f.commit for f in loaded.fixes} <= set(in_range)


def test_the_two_known_fixes_are_recorded():
    by_issue = {f.issue: f for f in history.load().fixes}
    sigterm, workdir = by_issue[15863], by_issue[16728]
    assert (sigterm.last_tag_with_bug, sigterm.first_tag_without_bug) == (
        "v4.1.0",
        "v4.1.1",
    )
    assert sigterm.area == "controller-lifecycle"
    assert sigterm.in_scope
    assert sigterm.clause == "WPC-RECOVERY-011"
    assert sigterm.scenario == (
        "conformance/tests/recovery/test_recovery_controller_sigterm.py::"
        "test_a_gracefully_deleted_controller_pod_is_gone_within_the_bound"
    )
    assert (workdir.last_tag_with_bug, workdir.first_tag_without_bug) == (
        "v4.1.1",
        "v4.1.2",
    )
    assert workdir.clause == "WPC-INITLESS-009"
    assert workdir.scenario is not None


def test_the_history_reaches_back_to_the_first_release_with_the_pod_finalizer():
    """Issue 28: v3.6.0 (the status finalizer's first release) onwards, >= 35 in scope.

    Every line counts: a fix first released on main in v3.7.0-rc1 with its 3.6
    backport, one in v4.0.0-rc1 with its 3.7 backport, and a v4.1 fix whose 3.x
    backports are recorded too.
    """
    loaded = history.load()
    assert (loaded.from_tag, loaded.to_tag) == ("v3.6.0", "v4.1.2")
    assert history.counts(loaded).in_scope >= 35
    by_id = {f.id: f for f in loaded.fixes}
    finalizer = by_id["orphaned-pods-keep-finalizer"]
    assert (finalizer.last_tag_with_bug, finalizer.first_tag_without_bug) == (
        "v3.6.0",
        "v3.7.0-rc1",
    )
    assert [
        (b.last_tag_with_bug, b.first_tag_without_bug) for b in finalizer.backports
    ] == [("v3.6.4", "v3.6.5")]
    grace = by_id["grace-period-only-on-wait"]
    assert ("v3.7.0", "v3.7.1") in {
        (b.last_tag_with_bug, b.first_tag_without_bug) for b in grace.backports
    }
    lines = {
        b.first_tag_without_bug[:4]
        for b in by_id["emissary-kill-misses-deadline"].backports
    }
    assert lines == {"v3.6", "v3.7", "v4.0"}


def broken(**changes: Any) -> dict[str, Any]:
    """The shipped data with its first entry changed (REMOVE removes a key)."""
    data = copy.deepcopy(shipped())
    entry = data["entries"][0]
    for key, value in changes.items():
        if value is REMOVE:
            entry.pop(key, None)
        else:
            entry[key] = value
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, r"entries\[0\] \(controller-ignores-sigterm\): .*'colour'"),
        (
            {"commit": "eaefb45184"},
            r"entries\[0\] \(controller-ignores-sigterm\)\.commit",
        ),
        (
            {"issue": 1},
            r"\(controller-ignores-sigterm\)\.issue: is 1 but the subject names 15863",
        ),
        ({"pr": REMOVE}, r"'pr' is a required property"),
        ({"observable": False}, r"'reason' is a required property"),
        (
            {"clause": None, "proposed_clause": None},
            r"proposed_clause: None is not of type 'string'",
        ),
        ({"area": "ui"}, r"\.area: 'ui' is not one of"),
        (
            {"id": "initless-workdir-deleted-by-artifact"},
            r"id 'initless-workdir-.*more than once",
        ),
    ],
)
def test_a_broken_file_names_the_entry(changes, message):
    with pytest.raises(SpecError, match=message):
        history.build(broken(**changes))


def test_unknown_clauses_and_scenarios_are_reference_problems():
    data = broken(
        clause="WPC-POD-999",
        proposed_clause=None,
        scenario="conformance/tests/status/test_hello_world.py::test_no_such_test",
    )
    problems = history.check_references(history.build(data), spec.load())
    assert problems == [
        "controller-ignores-sigterm: clause WPC-POD-999 is not an active clause",
        "controller-ignores-sigterm: scenario conformance/tests/status/test_hello_world.py"
        "::test_no_such_test does not exist",
    ]


def test_counts_are_of_in_scope_fixes():
    loaded = history.load()
    counts = history.counts(loaded)
    scoped = [f for f in loaded.fixes if f.in_scope]
    assert counts.total == len(loaded.fixes) > counts.in_scope == len(scoped)
    assert counts.with_scenario + counts.without_scenario == counts.in_scope
    assert counts.observable == sum(f.observable for f in scoped)


def test_the_history_verb_lists_every_fix_and_the_counts(capsys):
    assert conformance_cli.main(["history"]) == 0
    out = capsys.readouterr().out
    loaded = history.load()
    for fix in loaded.fixes:
        assert fix.id in out
    c = history.counts(loaded)
    assert (
        f"{c.total} fixes, {c.in_scope} in scope; of those {c.observable} observable, "
        f"{c.with_scenario} with a scenario, {c.without_scenario} without"
    ) in out


def test_the_history_verb_refuses_a_bad_file(tmp_path, capsys):
    path = tmp_path / "history.yaml"
    path.write_text(yaml.safe_dump(broken(clause="WPC-POD-999", proposed_clause=None)))
    assert (
        conformance_cli.main(["history", "--file", str(path)]) == ExitCode.INVALID_INPUT
    )
    assert "clause WPC-POD-999 is not an active clause" in capsys.readouterr().err
