"""We test these aspects of `wpc stability REPORT...` (runs compared item by item):

- an item whose outcome differs between runs is a flip: listed with its outcome
  and duration in each run and the message of the runs where it failed, exit 17;
- runs that agree item for item exit 0 and say no item flipped; an item that
  failed in every run is stable but fails the comparison (exit 1);
- chaos runs compare the same way, a case named `experiment[layout]`;
- reports of different code, implementation, selection (layouts, items) or
  kind, and an interrupted run's report, are refused by name with exit 10 and
  nothing written; image digests alone do not make runs different (one build
  reads as two digests, see `comparing`);
- the StabilityReport written with --output matches its schema;
- UNSTABLE (17) is distinct from pytest's codes and WPC's others, and the
  README's exit-code table documents it; `wpc stability` reaches the verb.

Reports are made here (`tests.wpc.diff.builders`, `chaos.lifecycle.judging`), none committed.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from chaos.lifecycle import judging
from conformance.exitcodes import ExitCode
from conformance.report.runs import documents
from tests.chaos.lifecycle.test_judging import CONTEXT
from tests.chaos.lifecycle.test_judging import _result
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc import cli as wpc_cli
from wpc import suite_cli
from wpc.stability import reading

ITEMS = ("HelloWorld", "StatusPodDeletion")
README = Path(__file__).parents[3] / "README.md"


def suite_run(
    *, failing: str | None = None, seconds: float = 10.0, message: str = ""
) -> dict[str, Any]:
    """A two-item run in which `failing` (a ShortName) failed, with `message`."""
    tests = []
    for name in ITEMS:
        test = entry(name, "legacy", "failed" if name == failing else "passed")
        test["id"] = f"{name}[legacy]"
        test["durationSeconds"] = seconds if name == failing else 10.0
        if name == failing:
            test["message"] = message
            test["failureKind"] = "assertion"
        tests.append(test)
    found = report(tests)
    documents.validate(found)
    return found


def write(tmp_path: Path, *runs: dict[str, Any]) -> list[str]:
    paths = []
    for index, run in enumerate(runs, start=1):
        path = tmp_path / f"run-{index}" / "conformance-impl.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(yaml.safe_dump(run))
        paths.append(str(path))
    return paths


def stability(*argv: str) -> int:
    return suite_cli.main(["stability", *argv])


def test_an_item_that_passed_and_failed_is_a_flip_with_its_evidence(
    tmp_path: Path, capsys
):
    paths = write(
        tmp_path,
        suite_run(),
        suite_run(
            failing="StatusPodDeletion",
            seconds=208.0,
            message="pod not deleted within 120 s\nlast seen: Running",
        ),
        suite_run(),
    )
    output = tmp_path / "stability.yaml"

    assert stability(*paths, "-o", str(output)) == ExitCode.UNSTABLE

    out = capsys.readouterr().out
    assert "3 runs of impl compared (ConformanceReport): 2 items, 1 flipped" in out
    row = next(line for line in out.splitlines() if line.startswith("StatusPod"))
    assert row.split() == ["StatusPodDeletion[legacy]", "passed", "failed", "passed"]
    assert "    durations: 10.0 s, 208.0 s, 10.0 s" in out
    assert "    run 2 (failed): pod not deleted within 120 s" in out
    written = yaml.safe_load(output.read_text())
    assert written["summary"] == {
        "compared": 3,
        "items": 2,
        "stable": 1,
        "flipped": 1,
        "failedEveryRun": 0,
    }
    (flip,) = written["flips"]
    assert flip["id"] == "StatusPodDeletion[legacy]"
    assert flip["durationsSeconds"] == [10.0, 208.0, 10.0]
    assert flip["failures"] == [
        {
            "run": 2,
            "outcome": "failed",
            "message": ["pod not deleted within 120 s", "last seen: Running"],
        }
    ]
    assert [r["compared"] for r in written["runs"]] == [True, True, True]


def test_runs_that_agree_exit_0_and_one_failing_every_time_exits_1(
    tmp_path: Path, capsys
):
    assert stability(*write(tmp_path / "a", suite_run(), suite_run())) == 0
    assert "2 items, 0 flipped, 0 failed in every run" in capsys.readouterr().out

    failing = suite_run(failing="HelloWorld", message="no")
    assert stability(*write(tmp_path / "b", failing, failing)) == 1
    out = capsys.readouterr().out
    assert "no item flipped" in out
    assert "failed in every run" in out.splitlines()[3]
    assert out.splitlines()[4].split() == ["HelloWorld[legacy]", "failed", "failed"]


def test_chaos_runs_compare_case_by_case(tmp_path: Path, capsys):
    paths = []
    for index, outcome in enumerate(("passed", "failed"), start=1):
        path = tmp_path / f"run-{index}" / "chaos-reference.yaml"
        judging.add_to_report(path, CONTEXT, _result(outcome, layout="initless"))
        judging.add_to_report(path, CONTEXT, _result("passed"))
        paths.append(str(path))

    assert stability(*paths) == ExitCode.UNSTABLE

    out = capsys.readouterr().out
    assert "2 runs of reference compared (ChaosReport): 2 items, 1 flipped" in out
    row = next(line for line in out.splitlines() if line.startswith("e[initless]"))
    assert row.split() == ["e[initless]", "passed", "failed"]
    assert "    run 2 (failed): e (initless): failed" in out


def _other_code(run: dict[str, Any]) -> None:
    run["suite"]["commit"] = "def"


def _other_layouts(run: dict[str, Any]) -> None:
    run["run"]["selectedLayouts"] = ["legacy"]


def _other_items(run: dict[str, Any]) -> None:
    run["tests"] = run["tests"][:1]
    run["summary"]["passed"] = 1
    run["attempts"]["final"]["passed"] = run["attempts"]["firstTry"]["passed"] = 1


def _interrupted(run: dict[str, Any]) -> None:
    run["result"] = "interrupted"
    run["interrupted"] = {
        "reason": "SIGTERM",
        "ran": [],
        "unfinished": [],
        "collected": 2,
    }


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_other_code, "their code (suite version and commit) or spec version differ"),
        (_other_layouts, "their selected layouts differ"),
        (_other_items, "ran different items (another selection): only in"),
        (_interrupted, "is of an interrupted run (SIGTERM)"),
    ],
)
def test_runs_of_different_code_or_selection_are_refused(
    tmp_path: Path, capsys, change, said
):
    other = suite_run()
    change(other)
    documents.validate(other)
    output = tmp_path / "stability.yaml"
    paths = write(tmp_path, suite_run(), other)

    assert stability(*paths, "-o", str(output)) == ExitCode.INVALID_INPUT

    err = capsys.readouterr().err
    assert said in err
    assert paths[1] in err
    assert not output.exists()


def test_a_chaos_report_and_a_suite_report_are_refused(tmp_path: Path, capsys):
    chaos = tmp_path / "chaos-reference.yaml"
    judging.add_to_report(chaos, CONTEXT, _result())
    (suite,) = write(tmp_path, suite_run())

    assert stability(suite, str(chaos)) == ExitCode.INVALID_INPUT
    assert "is a ChaosReport and" in capsys.readouterr().err


def test_a_file_that_is_no_report_is_refused(tmp_path: Path, capsys):
    (suite,) = write(tmp_path, suite_run())
    other = tmp_path / "profile.yaml"
    other.write_text("kind: Profile\n")

    assert stability(suite, str(other)) == ExitCode.INVALID_INPUT
    assert "kind: expected ConformanceReport or ChaosReport" in capsys.readouterr().err


def test_a_report_is_parsed_once(tmp_path: Path, monkeypatch):
    # Failed before: twice (its kind, then the suite's reader read the file again),
    # about half a second more per full report.
    (path,) = write(tmp_path, suite_run())
    real = yaml.safe_load
    parsed: list[object] = []

    def counting(stream: Any) -> Any:
        parsed.append(stream)
        return real(stream)

    monkeypatch.setattr(yaml, "safe_load", counting)
    run = reading.read(Path(path))
    assert len(parsed) == 1
    assert set(run.items) == {f"{name}[legacy]" for name in ITEMS}


def test_image_digests_alone_do_not_make_runs_different(tmp_path: Path):
    first = suite_run()
    first["implementation"]["images"] = [
        {"role": "controller", "ref": "c:1", "digest": "sha256:aa"}
    ]
    second = copy.deepcopy(first)
    second["implementation"]["images"][0]["digest"] = "sha256:bb (image ID)"
    third = copy.deepcopy(first)
    third["implementation"]["images"][0]["ref"] = "c:2"

    assert stability(*write(tmp_path / "a", first, second)) == 0
    assert stability(*write(tmp_path / "b", first, third)) == ExitCode.INVALID_INPUT


def test_the_unstable_code_is_distinct_documented_and_reached_through_wpc(
    tmp_path: Path,
):
    others = {int(c) for c in ExitCode if c is not ExitCode.UNSTABLE}
    assert int(ExitCode.UNSTABLE) not in others | set(range(6))
    assert f"| {int(ExitCode.UNSTABLE)} | `wpc stability`" in README.read_text()
    paths = write(tmp_path, suite_run(), suite_run(failing="HelloWorld"))
    assert wpc_cli.main(["stability", *paths]) == ExitCode.UNSTABLE
