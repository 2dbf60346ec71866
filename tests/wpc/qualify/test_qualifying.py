"""We test the qualification's orchestration with a fake runner (no cluster):

- the whole suite runs against OLD then NEW, each into its own directory;
- each differing item is rerun N rounds, OLD then NEW, one run per layout with
  its items selected by `-k`, and read back by exact test id: an item that
  reproduces is confirmed, one that flips is flaky (with each report), and an
  item a rerun lacks is `absent`;
- nothing is rerun when nothing differs, or with zero rounds;
- the diff lands in `<out>/diff.yaml` and `<out>/diff.txt`;
- the real runner's command is `python -m conformance run` with the build's
  profile variables and the selection after `--`, and a run that leaves no
  report is a CommandError naming the report;
- the verb exits 14 for a confirmed regression and 0 when it flipped;
- a runner that can run side by side (`running.SideBySide`) gets both whole
  runs as one batch and each round's reruns as one, and the verdicts equal the
  one-at-a-time ones; `side_by_side=False` never batches; the real runner's
  batch keeps each run's output in its console.log and names the run that left
  no report with that log's last lines;
- `--shard I/N` shards both whole runs the same way (the runner passes `--shard`)
  and names the output directory, never the reruns; a bad shard exits 10 before
  anything runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from conformance.errors import CommandError
from conformance.exitcodes import ExitCode
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc import suite_cli as conformance_cli
from wpc.qualify import builds
from wpc.qualify import cli as qualify_cli
from wpc.qualify import qualifying
from wpc.qualify import running
from wpc.qualify.running import Run

Outcomes = dict[tuple[str, str], str]
"""(name, layout) -> outcome, for one run of the fake suite."""


class FakeRunner:
    """Writes a report per run from a script: `script(run, count) -> outcomes`."""

    def __init__(self, script: Callable[[Run, int], Outcomes]) -> None:
        self.script = script
        self.runs: list[Run] = []

    def __call__(self, run: Run) -> Path:
        self.runs.append(run)
        outcomes = self.script(run, len(self.runs))
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        tests = [
            entry(name, layout, outcome) for (name, layout), outcome in outcomes.items()
        ]
        run.report.write_text(yaml.safe_dump(report(tests)))
        return run.report


def plan(tmp_path: Path, rounds: int = 2) -> qualifying.Plan:
    old, new = builds.plan("v4.1.0", "v4.1.2", "/src")
    return qualifying.Plan(old=old, new=new, out_dir=tmp_path / "q", rounds=rounds)


BASE = {("Stable", "legacy"): "passed", ("Stable", "initless"): "passed"}


def selected(run: Run, name: str, layout: str) -> bool:
    """Whether the run takes item `name` in `layout`, as its layout and `-k` say."""
    function = f"test_{name.lower()}"
    if run.layout not in (layout, "both"):
        return False
    if not run.keywords:
        return True
    if "[" in run.keywords:  # `(test_x and [layout])` terms
        return f"({function} and [{layout}])" in run.keywords
    return function in run.keywords


def upstream_like(run: Run, count: int) -> Outcomes:
    """Sigterm: fixed in NEW every time; Sidecar: regressed once, then flips back."""
    old = run.build.side == "old"
    outcomes = dict(BASE)
    if run.keywords:  # a rerun: only the selected items, as -k would
        outcomes = {k: v for k, v in outcomes.items() if selected(run, *k)}
    for layout in ("legacy", "initless"):
        if selected(run, "Sigterm", layout):
            outcomes[("Sigterm", layout)] = "failed" if old else "passed"
    if selected(run, "Sidecar", "legacy"):
        first_new = count == 2
        outcomes[("Sidecar", "legacy")] = "failed" if first_new else "passed"
    return outcomes


def test_a_qualification_reruns_differences_and_tells_fixes_from_flakes(tmp_path):
    runner = FakeRunner(upstream_like)
    outcome = qualifying.qualify(plan(tmp_path), runner)

    whole = [(r.build.ref, r.layout, r.keywords) for r in runner.runs[:2]]
    assert whole == [("v4.1.0", "both", ""), ("v4.1.2", "both", "")]
    assert runner.runs[0].reports_dir == tmp_path / "q" / "old"
    reruns = [(r.reports_dir.name, r.keywords) for r in runner.runs[2:]]
    both = (
        "(test_sigterm and [initless]) or (test_sidecar and [legacy])"
        " or (test_sigterm and [legacy])"
    )
    assert reruns == [
        ("rerun-1-old-both", both),
        ("rerun-1-new-both", both),
        ("rerun-2-old-both", both),
        ("rerun-2-new-both", both),
    ]

    diff = outcome.diff
    status = {
        (c.new.short_name, c.new.layout, c.kind): c.rerun.status for c in diff.items
    }
    assert status == {
        ("Sigterm", "legacy", "fix"): "confirmed",
        ("Sigterm", "initless", "fix"): "confirmed",
        ("Sidecar", "legacy", "regression"): "flaky",
    }
    sidecar = next(c for c in diff.items if c.new.short_name == "Sidecar")
    assert sidecar.rerun.outcomes("old") == ["passed", "passed"]
    assert sidecar.rerun.outcomes("new") == ["passed", "passed"]
    assert {r.report for r in sidecar.rerun.records} == {
        str(tmp_path / "q" / f"rerun-{i}-{side}-both" / "conformance.yaml")
        for i in (1, 2)
        for side in ("old", "new")
    }
    assert not diff.regressed

    document = yaml.safe_load(outcome.yaml_path.read_text())
    assert outcome.yaml_path == tmp_path / "q" / "diff.yaml"
    assert document["summary"]["fixes"] == 2
    assert document["summary"]["flakyItems"] == 1
    assert "confirmed (old failed, failed, failed; new passed, passed, passed)" in (
        outcome.table_path.read_text()
    )


class FakeSideBySide(FakeRunner):
    """A FakeRunner that can also take runs in batches, noting each batch."""

    def __init__(self, script: Callable[[Run, int], Outcomes]) -> None:
        super().__init__(script)
        self.batches: list[list[str]] = []

    def together(self, runs) -> list[Path]:
        self.batches.append([run.reports_dir.name for run in runs])
        return [self(run) for run in runs]


def _verdicts(outcome: qualifying.Outcome) -> dict[tuple[str, str], list[str]]:
    return {
        (c.new.short_name, c.new.layout): [
            f"{r.side}{r.round}:{r.outcome}" for r in c.rerun.records
        ]
        + [c.rerun.status]
        for c in outcome.diff.items
    }


def test_both_builds_and_each_rounds_reruns_run_side_by_side(tmp_path):
    batched = FakeSideBySide(upstream_like)
    outcome = qualifying.qualify(plan(tmp_path / "a"), batched)
    assert batched.batches == [
        ["old", "new"],
        ["rerun-1-old-both", "rerun-1-new-both"],
        ["rerun-2-old-both", "rerun-2-new-both"],
    ]
    one_by_one = qualifying.qualify(plan(tmp_path / "b"), FakeRunner(upstream_like))
    assert _verdicts(outcome) == _verdicts(one_by_one)
    assert outcome.table_path.read_text().replace(str(tmp_path / "a"), "") == (
        one_by_one.table_path.read_text().replace(str(tmp_path / "b"), "")
    )


def test_one_side_at_a_time_never_batches(tmp_path):
    batched = FakeSideBySide(upstream_like)
    sequential = dataclasses.replace(plan(tmp_path), side_by_side=False)
    qualifying.qualify(sequential, batched)
    assert batched.batches == []
    assert [r.reports_dir.name for r in batched.runs] == [
        "old", "new", "rerun-1-old-both", "rerun-1-new-both",
        "rerun-2-old-both", "rerun-2-new-both",
    ]  # fmt: skip


FAKE_SUITE = """#!/bin/sh
# Stands in for `python -m conformance run`: says where it is, writes its report
# unless it is the NEW side's run.
report=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--report" ]; then report="$2"; fi
  shift
done
echo "suite for $report"
case "$report" in
  */new/*) echo "boom: the run died" >&2; exit 3 ;;
  *) echo "tests: []" > "$report" ;;
esac
"""


def test_the_suite_runners_batch_keeps_logs_apart_and_names_a_run_without_report(
    tmp_path,
):
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_SUITE)
    fake.chmod(0o755)
    old, new = builds.plan("v4.1.0", "v4.1.2", "/src")
    runs = [
        Run(build=build, layout="both", reports_dir=tmp_path / build.side)
        for build in (old, new)
    ]
    runner = running.SuiteRunner(implementation="argo-workflows", python=str(fake))
    with pytest.raises(CommandError) as raised:
        runner.together(runs)
    message = str(raised.value)
    assert f"left no report at {runs[1].report}" in message
    assert "boom: the run died" in message
    assert str(tmp_path / "new" / running.CONSOLE_LOG) in message
    assert "exit code 3" in message
    assert runs[0].report.is_file()
    assert (tmp_path / "old" / running.CONSOLE_LOG).read_text() == (
        f"suite for {runs[0].report}\n"
    )


def test_nothing_differs_nothing_is_rerun(tmp_path):
    runner = FakeRunner(lambda run, count: dict(BASE))
    outcome = qualifying.qualify(plan(tmp_path), runner)
    assert len(runner.runs) == 2
    assert outcome.diff.items == []
    assert outcome.table_path.is_file()


def test_zero_rounds_leaves_every_difference_not_rerun(tmp_path):
    runner = FakeRunner(upstream_like)
    outcome = qualifying.qualify(plan(tmp_path, rounds=0), runner)
    assert len(runner.runs) == 2
    assert {c.rerun.status for c in outcome.diff.items} == {"not rerun"}
    assert outcome.diff.regressed


def test_an_item_a_rerun_lacks_is_absent(tmp_path):
    def script(run: Run, count: int) -> Outcomes:
        if run.keywords:
            return {}
        return {("Gone", "legacy"): "passed" if run.build.side == "old" else "failed"}

    outcome = qualifying.qualify(plan(tmp_path, rounds=1), FakeRunner(script))
    (change,) = outcome.diff.items
    assert change.rerun.status == "not rerun"
    assert [r.outcome for r in change.rerun.records] == ["absent", "absent"]
    assert outcome.diff.regressed


def test_the_suite_runner_command(tmp_path):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    runner = running.SuiteRunner(
        implementation="argo-workflows", workers=2, python="py", timeout_scale=2.0
    )
    run = Run(
        build=old,
        layout="legacy",
        reports_dir=tmp_path / "r",
        keywords="test_a or test_b",
    )
    assert runner.command(run) == [
        "py", "-m", "conformance", "run",
        "--implementation", "argo-workflows",
        "--layout", "legacy",
        "--provider", "local",
        "--cluster", "wpc",
        "--reports-dir", str(tmp_path / "r"),
        "--report", str(tmp_path / "r" / "conformance.yaml"),
        "--profile-var", "build=v4.1.0",
        "--profile-var", "instance_prefix=wpc-q-v4-1-0",
        "--profile-var", "ref=v4.1.0",
        "--profile-var", "source=/src",
        "--timeout-scale", "2.0",
        "-n", "2",
        "--", "-k", "test_a or test_b",
    ]  # fmt: skip


def test_a_run_without_a_report_is_an_error_and_an_old_report_never_counts(
    tmp_path, monkeypatch
):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    run = Run(build=old, layout="both", reports_dir=tmp_path / "r")
    run.reports_dir.mkdir()
    run.report.write_text("stale")
    monkeypatch.setattr(running, "_call", lambda command: 12)
    with pytest.raises(CommandError, match=r"left no report at .*conformance.yaml"):
        running.SuiteRunner(implementation="argo-workflows")(run)
    assert not run.report.exists()


@pytest.mark.parametrize(
    ("flips", "code"), [(False, int(ExitCode.REGRESSION)), (True, 0)]
)
def test_the_verb_exits_14_only_for_a_confirmed_regression(
    tmp_path, monkeypatch, capsys, flips, code
):
    def script(run: Run, count: int) -> Outcomes:
        broken = run.build.side == "new" and (count == 2 or not flips)
        return {("Kill", "legacy"): "failed" if broken else "passed"}

    fake = FakeRunner(script)
    monkeypatch.setattr(qualify_cli.running, "SuiteRunner", lambda **kwargs: fake)
    monkeypatch.setenv("WPC_ARGO_SOURCE", "/src")
    parser = conformance_cli.parser()
    args = parser.parse_args(
        [
            "qualify",
            "--old",
            "v4.1.0",
            "--new",
            "v4.1.2",
            "--output-dir",
            str(tmp_path / "q"),
        ]
    )
    assert isinstance(args, argparse.Namespace)
    assert qualify_cli.main(args) == code
    out = capsys.readouterr().out
    assert f"diff: {tmp_path / 'q' / 'diff.yaml'}" in out
    assert ("flaky (old passed" in out) is flips
    assert fake.runs[0].build.source == "/src"


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--old", "v1", "--new", "v1"], "/src", "would share the build name"),
        (
            ["--old", "v1", "--new", "v2"],
            "",
            "qualify: give --source (a git repository",
        ),
        (
            [
                "--old",
                "v1",
                "--new",
                "v2",
                "--source",
                "/src",
                "--timeout-scale",
                "nan",
            ],
            "/src",
            "--timeout-scale nan: must be a finite number of at least 1",
        ),
    ],
)
def test_the_verb_refuses_bad_input_before_running(
    monkeypatch, capsys, argv, env, message
):
    monkeypatch.setattr(
        qualify_cli.running, "SuiteRunner", lambda **kwargs: pytest.fail("ran")
    )
    monkeypatch.setenv("WPC_ARGO_SOURCE", env)
    code = conformance_cli.main(["qualify", *argv])
    assert code == ExitCode.INVALID_INPUT
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "shard", "old_dir"),
    [
        ([], "", "reports/qualify-v4.1.0-v4.1.2/old"),
        # `--shard I/N` goes to both whole runs and names the directory (issue 27).
        (["--shard", "3/4"], "3/4", "reports/qualify-v4.1.0-v4.1.2-shard-3-of-4/old"),
    ],
)
def test_the_default_output_directory_is_named_by_both_refs(
    tmp_path, monkeypatch, extra, shard, old_dir
):
    fake = FakeRunner(lambda run, count: dict(BASE))
    monkeypatch.setattr(qualify_cli.running, "SuiteRunner", lambda **kwargs: fake)
    monkeypatch.chdir(tmp_path)
    args = conformance_cli.parser().parse_args(
        ["qualify", "--old", "v4.1.0", "--new", "v4.1.2", "--source", "/src", *extra]
    )
    assert qualify_cli.main(args) == 0
    assert fake.runs[0].reports_dir == Path(old_dir)
    assert [r.shard for r in fake.runs] == [shard, shard]


def test_a_sharded_qualification_shards_the_whole_runs_only(tmp_path):
    # Issue 27 item 5: `qualify --shard I/N` runs that shard of the suite against
    # each version; the reruns select the differing items by name, unsharded.
    runner = FakeRunner(upstream_like)
    sharded = qualifying.Plan(
        old=plan(tmp_path).old,
        new=plan(tmp_path).new,
        out_dir=tmp_path / "q",
        rounds=1,
        shard="2/4",
    )
    qualifying.qualify(sharded, runner)
    assert [(r.build.side, r.shard) for r in runner.runs if not r.keywords] == [
        ("old", "2/4"),
        ("new", "2/4"),
    ]
    reruns = [r for r in runner.runs if r.keywords]
    assert reruns
    assert {r.shard for r in reruns} == {""}


def test_the_suite_runner_passes_the_shard(tmp_path):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    command = running.SuiteRunner(implementation="argo-workflows", python="py").command(
        Run(build=old, layout="both", reports_dir=tmp_path / "r", shard="1/3")
    )
    assert command[-2:] == ["--shard", "1/3"]
    unsharded = running.SuiteRunner(implementation="argo-workflows").command(
        Run(build=old, layout="both", reports_dir=tmp_path / "r")
    )
    assert "--shard" not in unsharded


@pytest.mark.parametrize("shard", ["5/4", "0/2", "half"])
def test_the_verb_refuses_a_bad_shard_before_running(monkeypatch, capsys, shard):
    monkeypatch.setattr(
        qualify_cli.running, "SuiteRunner", lambda **kwargs: pytest.fail("ran")
    )
    code = conformance_cli.main(
        ["qualify", "--old", "v1", "--new", "v2", "--source", "/src", "--shard", shard]
    )
    assert code == ExitCode.INVALID_INPUT
    assert "--shard" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "same_crds", "batches"),
    [
        ([], "", 1),
        (["--one-side-at-a-time"], "", 0),
        ([], "their CRDs differ (manifests/base/crds of v4.1.0 and v4.1.2)", 0),
    ],
)
def test_the_verb_runs_both_sides_together_unless_told_or_their_crds_differ(
    tmp_path, monkeypatch, caplog, extra, same_crds, batches
):
    fake = FakeSideBySide(lambda run, count: dict(BASE))
    monkeypatch.setattr(qualify_cli.running, "SuiteRunner", lambda **kwargs: fake)
    monkeypatch.setattr(
        qualify_cli.builds, "shared_cluster_conflict", lambda old, new: same_crds
    )
    monkeypatch.chdir(tmp_path)
    args = conformance_cli.parser().parse_args(
        ["qualify", "--old", "v4.1.0", "--new", "v4.1.2", "--source", "/src", *extra]
    )
    assert qualify_cli.main(args) == 0
    assert len(fake.batches) == batches
    assert [r.reports_dir.name for r in fake.runs] == ["old", "new"]
    if same_crds and not extra:
        assert f"not side by side: {same_crds}" in caplog.text


@pytest.mark.parametrize(("value", "flag"), [("", False), ("no", True)])
def test_make_qualify_side_by_side_no_passes_one_side_at_a_time(value, flag):
    root = Path(__file__).resolve().parents[3]
    made = subprocess.run(
        [
            *("make", "-n", "-s", "-C", str(root), "qualify"),
            *("OLD=v4.1.0", "NEW=v4.1.2", "SOURCE=/src"),
            *([f"SIDE_BY_SIDE={value}"] if value else []),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    (line,) = [x for x in made.stdout.splitlines() if " qualify --old" in x]
    assert ("--one-side-at-a-time" in line.split()) is flag
