"""We test explanations in a qualification, and `qualify --rediff` (no cluster):

- `qualify` applies the shipped explanations by default, matched with the
  builds' git refs: the v4.1.0 -> v4.1.2 WPC-FINALIZER-009 regression exits 0,
  listed as explained; `--no-explained` makes it exit 14 again, `--explained
  FILE` uses another file, and a bad file is refused before anything runs;
- `--rediff DIR` runs nothing: it rebuilds the diff from DIR's old/new reports
  and its `rerun-<round>-<side>-<layout>` directories (confirmed, flaky and
  absent verdicts with each report, as the qualification made them), matches
  refs recorded in the reports' reproduce lines, and rewrites diff.yaml and
  diff.txt; a directory without old/new reports, or a rerun directory without
  its report, is an error naming it; --rediff with --old/--new is refused, and
  qualify without refs asks for them;
- `builds.recorded_ref` reads the `ref` profile variable back from a reproduce line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc import suite_cli as conformance_cli
from wpc.qualify import builds
from wpc.qualify import cli as qualify_cli
from wpc.qualify import qualifying
from wpc.qualify.running import Run

FINALIZER = "FinalizerSettingTurnedOff"
CLAUSE = "WPC-FINALIZER-009"
LAYOUTS = ("legacy", "initless")


def entries_of(outcomes: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    return [
        entry(
            name,
            layout,
            outcome,
            clauses=(CLAUSE,) if name == FINALIZER else ("WPC-STATUS-002",),
        )
        for (name, layout), outcome in outcomes.items()
    ]


def write_report(
    directory: Path,
    outcomes: dict[tuple[str, str], str],
    *,
    version: str = "1.0",
    ref: str = "",
) -> Path:
    document = report(entries_of(outcomes))
    document["implementation"]["version"] = version
    if ref:
        document["run"]["reproduce"] = (
            "cd /wpc && python -m pytest conformance/tests --wpc-layout both "
            f"--wpc-profile-var build=x --wpc-profile-var ref={ref} -n 4"
        )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "conformance.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


class Runner:
    """FinalizerSettingTurnedOff passes on OLD and fails on NEW, every run, both layouts."""

    def __init__(self) -> None:
        self.runs: list[Run] = []

    def __call__(self, run: Run) -> Path:
        self.runs.append(run)
        layouts = LAYOUTS if run.layout == "both" else (run.layout,)
        outcome = "passed" if run.build.side == "old" else "failed"
        return write_report(
            run.reports_dir, {(FINALIZER, layout): outcome for layout in layouts}
        )


def qualify_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "qualify",
        "--old",
        "v4.1.0",
        "--new",
        "v4.1.2",
        "--source",
        "/src",
        "--reruns",
        "1",
        "--output-dir",
        str(tmp_path / "q"),
        *extra,
    ]


def explanations(tmp_path: Path, old: str = "v4.1.0", new: str = "v4.1.*") -> Path:
    path = tmp_path / "explained.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "wpc.dev/v1alpha1",
                "kind": "ExplainedDifferences",
                "explanations": [
                    {
                        "old": old,
                        "new": new,
                        "test": FINALIZER,
                        "kind": "regression",
                        "explanation": "Expected: OQ-2.",
                        "evidence": ["conformance/SPEC.md"],
                    },
                    {
                        "old": old,
                        "new": new,
                        "clause": "WPC-KILL-*",
                        "kind": "fix",
                        "explanation": "Stale.",
                        "evidence": ["nowhere"],
                    },
                ],
            }
        )
    )
    return path


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> Runner:
    fake = Runner()
    monkeypatch.setattr(qualify_cli.running, "SuiteRunner", lambda **kwargs: fake)
    return fake


def test_qualify_applies_the_shipped_explanations_by_default(tmp_path, runner, capsys):
    assert conformance_cli.main(qualify_args(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "regression (explained)" in out
    assert "explanations (" in out
    assert "explained.yaml): 1 used" in out
    assert "2 item and 2 clause regressions are explained and not counted" in out
    document = yaml.safe_load((tmp_path / "q" / "diff.yaml").read_text())
    assert document["regressed"] is False
    assert document["explanations"]["file"].endswith("wpc/qualify/explained.yaml")
    assert [c["rerun"] for c in document["items"]["regressions"]] == ["confirmed"] * 2


def test_no_explained_makes_the_regression_count_again(tmp_path, runner, capsys):
    code = conformance_cli.main(qualify_args(tmp_path, "--no-explained"))
    assert code == ExitCode.REGRESSION
    out = capsys.readouterr().out
    assert "(explained)" not in out
    assert "explanations (" not in out


def test_another_file_replaces_the_default(tmp_path, runner, capsys):
    other = explanations(tmp_path, new="v9.*")
    code = conformance_cli.main(qualify_args(tmp_path, "--explained", str(other)))
    assert code == ExitCode.REGRESSION
    assert f"explanations ({other}): 0 used, 0 unused, 2 for other versions" in (
        capsys.readouterr().out
    )


def test_a_bad_explanations_file_is_refused_before_anything_runs(
    tmp_path, runner, capsys
):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: wpc.dev/v1alpha1\nkind: ExplainedDifferences\n")
    code = conformance_cli.main(qualify_args(tmp_path, "--explained", str(bad)))
    assert code == ExitCode.INVALID_INPUT
    assert f"{bad}: invalid explanations:\n  key <top level>: 'explanations'" in (
        capsys.readouterr().err
    )
    assert runner.runs == []


def finished(tmp_path: Path) -> Path:
    """A qualification's directory as `qualify --reruns 2` leaves it, written by hand.

    The old side was built from the branch `my-branch` (its version names only a
    commit); FinalizerSettingTurnedOff regresses in both layouts every time, Flip
    regresses in legacy but failed once on OLD too, and rerun 2 of OLD lacks it.
    """
    out = tmp_path / "qualify-my-branch-v4.1.2"
    base = {(FINALIZER, layout): "passed" for layout in LAYOUTS}
    old_version, new_version = "v4.1.0-2-g1234567 (commit 1234567890ab)", "v4.1.2"
    write_report(
        out / "old",
        {**base, ("Flip", "legacy"): "passed"},
        version=old_version,
        ref="my-branch",
    )
    write_report(
        out / "new",
        {**{k: "failed" for k in base}, ("Flip", "legacy"): "failed"},
        version=new_version,
        ref="v4.1.2",
    )
    for round_ in (1, 2):
        for side, version in (("old", old_version), ("new", new_version)):
            for layout in LAYOUTS:
                seen = {(FINALIZER, layout): "passed" if side == "old" else "failed"}
                if layout == "legacy" and not (side == "old" and round_ == 2):
                    seen[("Flip", layout)] = "failed"
                write_report(
                    out / f"rerun-{round_}-{side}-{layout}", seen, version=version
                )
    (out / "notes").mkdir()
    (out / "diff.txt").write_text("stale\n")
    return out


def test_rediff_rebuilds_the_reruns_and_applies_the_explanations(tmp_path):
    out = finished(tmp_path)
    outcome = qualifying.rediff(out, explained=explanations(tmp_path, old="my-*"))

    diff = outcome.diff
    status = {(c.new.short_name, c.new.layout): c.rerun.status for c in diff.items}
    assert status == {
        (FINALIZER, "legacy"): "confirmed",
        (FINALIZER, "initless"): "confirmed",
        ("Flip", "legacy"): "flaky",
    }
    flip = next(c for c in diff.items if c.new.short_name == "Flip")
    assert [(r.side, r.round, r.outcome) for r in flip.rerun.records] == [
        ("old", 1, "failed"),
        ("old", 2, "absent"),
        ("new", 1, "failed"),
        ("new", 2, "failed"),
    ]
    assert flip.rerun.records[0].report == str(
        out / "rerun-1-old-legacy" / "conformance.yaml"
    )
    assert diff.old.path == str(out / "old" / "conformance.yaml")
    assert [c.explained for c in diff.items] == [True, True, False]
    assert not diff.regressed
    assert diff.explanations is not None
    assert [e.entry for e in diff.explanations.unused] == [2]

    table = outcome.table_path.read_text()
    assert outcome.table_path == out / "diff.txt"
    assert "stale" not in table
    assert "regression (explained)" in table
    assert "unused: entry 2: fix WPC-KILL-*" in table
    assert "flaky (old passed, failed, absent; new failed, failed, failed)" in table
    document = yaml.safe_load(outcome.yaml_path.read_text())
    assert document["regressed"] is False
    assert document["explanations"]["explainedItems"] == 2


def test_rediff_without_explanations_or_with_an_unmatched_ref_regresses(tmp_path):
    out = finished(tmp_path)
    assert qualifying.rediff(out, explained=None).diff.regressed
    # The old side is neither v4.1.0 nor named so by its reproduce line.
    assert qualifying.rediff(out, explained=explanations(tmp_path)).diff.regressed


def test_the_rediff_verb(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(
        qualify_cli.running, "SuiteRunner", lambda **kwargs: pytest.fail("ran")
    )
    out = finished(tmp_path)
    path = explanations(tmp_path, old="my-branch")
    argv = ["qualify", "--rediff", str(out), "--explained", str(path)]
    assert conformance_cli.main(argv) == 0
    assert f"diff: {out / 'diff.yaml'}" in capsys.readouterr().out
    code = conformance_cli.main(["qualify", "--rediff", str(out), "--no-explained"])
    assert code == ExitCode.REGRESSION


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rediff", "DIR", "--old", "v1"], "the refs come from the directory's"),
        (["--new", "v1"], "qualify: give --old and --new"),
    ],
)
def test_the_verb_refuses_mixed_or_missing_refs(tmp_path, capsys, argv, message):
    argv = [str(tmp_path) if a == "DIR" else a for a in argv]
    assert conformance_cli.main(["qualify", *argv]) == ExitCode.INVALID_INPUT
    assert message in capsys.readouterr().err


def test_rediff_refuses_a_directory_that_is_not_a_qualification(tmp_path):
    with pytest.raises(DataError, match=r"not a finished qualification directory"):
        qualifying.rediff(tmp_path, explained=None)
    out = finished(tmp_path)
    (out / "rerun-2-new-initless" / "conformance.yaml").unlink()
    with pytest.raises(DataError, match=r"rerun-2-new-initless: a rerun directory"):
        qualifying.rediff(out, explained=None)


@pytest.mark.parametrize(
    ("reproduce", "ref"),
    [
        ("python -m pytest t --wpc-profile-var build=v1 --wpc-profile-var ref=v4.1.0", "v4.1.0"),
        ("python -m conformance run --profile-var ref=abc123 -n 2", "abc123"),
        ("python -m pytest t --wpc-profile-var=ref=main", "main"),
        ("wpc run --implementation impl", ""),
        ("python -m pytest 'unbalanced", ""),
    ],
)  # fmt: skip
def test_the_recorded_ref_is_read_back_from_the_reproduce_line(reproduce, ref):
    assert builds.recorded_ref(reproduce) == ref
