"""How `wpc chaos run` (`make chaos`) splits the experiments and shares their report.

We test these aspects:

- the plan: one side-by-side phase per layout without node faults, then the
  node faults alone; every experiment tagged `node` is marked `node_fault` and
  none other is (so no node fault ever runs beside another experiment);
- `--list` shows every case of the plan once, in its phase, and runs nothing;
- an experiment tagged `irreversible` (the worker deleted for good) is the last
  case, after the other worker experiments of its phase, which need both workers;
- each phase runs the suite's module where it is installed, with its markers'
  plugin, so a wheel without the project's config runs it too;
- several processes adding to one ChaosReport at once lose no entry (the
  report's lock);
- the report's HTML page links each experiment's timeline relatively and marks
  its outcome;
- the closing summary lists each experiment and the page, read from the
  report named after the profile's `name` even when IMPLEMENTATION is a path
  (`make chaos` no longer names it after the path); a profile that cannot be
  loaded stops the runner at once with exit code 10.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from chaos import cli
from chaos.lifecycle import judging
from chaos.reporting.index_page import render_index
from chaos.suite import experimenting
from chaos.suite import experiments
from chaos.suite import parallel
from conformance.errors import DataError
from tests.chaos.lifecycle.test_judging import CONTEXT
from tests.chaos.lifecycle.test_judging import _result

ROOT = Path(__file__).resolve().parents[3]


def test_the_layouts_run_side_by_side_and_node_faults_alone():
    side_by_side, alone = parallel.plan("both")
    assert [(p.name, p.layout) for p in side_by_side] == [
        ("legacy", "legacy"),
        ("initless", "initless"),
    ]
    assert all("not node_fault" in p.markers for p in side_by_side)
    assert [(p.name, p.layout, p.markers) for p in alone] == [
        ("node", "both", "chaos and not negative and node_fault")
    ]
    side_by_side, alone = parallel.plan("initless")
    assert [p.layout for p in side_by_side] == ["initless"]
    assert alone[0].layout == "initless"


def test_exactly_the_node_experiments_are_marked_node_fault():
    marked = {
        p.values[0].stem
        for p in experiments.CASES
        if any(m.name == "node_fault" for m in p.marks)
    }
    tagged = {
        path.stem
        for path in experimenting.EXPERIMENTS_DIR.glob("*.yaml")
        if "node" in (yaml.safe_load(path.read_text()).get("tags") or [])
    }
    assert tagged >= {"kubelet-restarted-while-main-runs", "apiserver-unavailable"}
    assert marked == tagged


def _add(path: str, layout: str, index: int) -> None:
    result = _result("passed", layout=layout)
    judging.add_to_report(
        Path(path), CONTEXT, type(result)(**{**vars(result), "name": f"e{index}"})
    )


def test_the_listing_shows_each_case_of_the_plan_once_in_its_phase(capsys):
    assert cli.main(["run", "--layout", "both", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cases = experimenting.cases(("legacy", "initless"))
    rows = [tuple(line.split()) for line in lines[1:-1]]
    assert sorted(rows) == sorted(
        ("node" if experimenting.hits_the_node(p) else layout, layout, p.stem)
        for p, layout in cases
    )
    experiments = len({p for p, _ in cases})
    assert lines[-1] == f"{experiments} experiments, {len(cases)} cases"
    assert ("node", "initless", "kubelet-restarted-while-main-runs") in rows


def test_an_irreversible_experiment_runs_after_every_other(tmp_path: Path):
    shipped = [p.stem for p, _ in experimenting.cases(("legacy", "initless"))]
    assert shipped[-1] == "worker-deleted-while-main-runs"
    assert {"worker-drained-while-main-runs", "worker-frozen-while-main-runs"} <= set(
        shipped[:-1]
    )
    for name, tags in (("a", ["irreversible"]), ("b", []), ("c", ["node"])):
        document = yaml.safe_load(
            (experimenting.EXPERIMENTS_DIR / "main-oom-killed.yaml").read_text()
        )
        document["tags"] = tags
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(document))
    ordered = [p.stem for p, _ in experimenting.cases(("legacy",), tmp_path)]
    assert ordered == ["b", "c", "a"]


def test_each_phase_runs_the_installed_module_with_its_markers(tmp_path: Path):
    (phase,), _ = parallel.plan("legacy")
    command = phase.command(tmp_path, ["-k", "x"])
    assert command[command.index("-p") + 1] == "chaos.suite.markers"
    assert str(parallel.TESTS) in command
    assert parallel.TESTS.resolve() == Path(experiments.__file__).resolve()
    assert command[-2:] == ["-k", "x"]


def test_each_phase_writes_its_report_under_the_reports_directory_given(
    tmp_path: Path, monkeypatch
):
    started: list[dict[str, str]] = []

    class Proc:
        stdout = io.StringIO("")

    def popen(command: list[str], **kwargs: object) -> Proc:
        started.append(kwargs["env"])  # type: ignore[arg-type]
        return Proc()

    monkeypatch.setattr(parallel.subprocess, "Popen", popen)
    reports = tmp_path / "run-2-of-3"
    _, pump, _ = parallel.start(parallel.plan("legacy")[0][0], reports, [])
    pump.join()

    assert started[0]["WPC_CHAOS_REPORTS_DIR"] == str(reports)
    monkeypatch.setenv("WPC_CHAOS_REPORTS_DIR", str(reports))
    assert experiments._target().reports_dir == reports
    monkeypatch.delenv("WPC_CHAOS_REPORTS_DIR")
    assert experiments._target().reports_dir == experimenting.REPORTS_DIR


def test_concurrent_writers_lose_no_entry(tmp_path: Path):
    path = tmp_path / "chaos-reference.yaml"
    jobs = [
        (str(path), layout, i) for i in range(8) for layout in ("legacy", "initless")
    ]
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.starmap(_add, jobs)
    report = yaml.safe_load(path.read_text())
    assert len(report["experiments"]) == 16
    assert report["summary"]["passed"] == 16


def test_the_html_page_links_the_timelines_relatively(tmp_path: Path):
    run = tmp_path / "chaos" / "runs" / "e-legacy"
    run.mkdir(parents=True)
    (run / "timeline.html").write_text("<html></html>")
    path = tmp_path / "chaos-reference.yaml"
    result = _result("failed")
    judging.add_to_report(
        path,
        CONTEXT,
        type(result)(**{**vars(result), "timeline_path": str(run / "timeline.html")}),
    )
    page = path.with_suffix(".html").read_text()
    assert 'href="chaos/runs/e-legacy/timeline.html"' in page
    assert '<td class="failed">failed</td>' in page
    assert "history (missing)" in page  # `h` does not exist: said, not linked


def test_the_page_escapes_what_it_shows(tmp_path: Path):
    report = {
        "implementation": {"name": "<x>"},
        "summary": {"total": 1},
        "experiments": [
            {
                "name": "e",
                "layout": "legacy",
                "outcome": "passed",
                "injectionVerified": {"verified": True, "evidence": "a < b & c"},
                "durationSeconds": 1.0,
                "violations": [],
                "timelinePath": "",
                "historyPath": "",
            }
        ],
    }
    page = render_index(report, tmp_path / "chaos-x.html")
    assert "a &lt; b &amp; c" in page
    assert "<x>" not in page


def test_the_summary_lists_each_experiment_and_the_page(tmp_path: Path):
    path = tmp_path / "chaos-reference.yaml"
    judging.add_to_report(path, CONTEXT, _result("passed"))
    lines = parallel.summary(path)
    assert lines[1].split()[:3] == ["e", "legacy", "passed"]
    assert lines[-1].endswith(str(path.with_suffix(".html")))
    assert parallel.summary(tmp_path / "none.yaml") == [
        f"no chaos report at {tmp_path / 'none.yaml'}"
    ]


def test_the_summary_reads_the_report_named_after_the_profile_not_its_path(
    tmp_path: Path, monkeypatch, capsys
):
    profile = tmp_path / "profiles" / "vendor.yaml"
    profile.parent.mkdir()
    profile.write_text((ROOT / "conformance/profiles/argo-workflows.yaml").read_text())
    reports = tmp_path / "reports"
    judging.add_to_report(reports / "chaos-argo-workflows.yaml", CONTEXT, _result())
    ran: list[list[parallel.Phase]] = []
    monkeypatch.setattr(
        parallel, "run_phases", lambda phases, r, extra: ran.append(phases) or [0]
    )
    monkeypatch.setenv("WPC_CHAOS_IMPLEMENTATION", str(profile))
    monkeypatch.setenv("WPC_CHAOS_PROFILE_VARS", "ref=v4.1.2")

    assert cli.main(["run", "--reports", str(reports)]) == 0

    out = capsys.readouterr().out
    assert (
        "e                                                    legacy    passed" in out
    )
    assert f"report: {reports / 'chaos-argo-workflows.yaml'}" in out
    assert ran


def test_a_profile_that_cannot_be_loaded_stops_at_once_with_exit_10(
    tmp_path: Path, monkeypatch, capsys
):
    monkeypatch.setattr(parallel, "run_phases", lambda *a: pytest.fail("ran"))
    monkeypatch.setenv("WPC_CHAOS_IMPLEMENTATION", str(tmp_path / "missing.yaml"))

    assert cli.main(["run", "--reports", str(tmp_path)]) == parallel.INVALID_INPUT

    err = capsys.readouterr().err
    assert f"implementation profile {tmp_path / 'missing.yaml'} does not exist" in err


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("ref=a,novalue", "must look like NAME=VALUE, not 'novalue'"),
        # Failed before: the second value silently won.
        ("ref=a,ref=b", "ref given twice"),
    ],
)
def test_bad_profile_variables_stop_at_once_with_exit_10(
    tmp_path: Path, monkeypatch, capsys, given, message
):
    monkeypatch.setattr(parallel, "run_phases", lambda *a: pytest.fail("ran"))
    monkeypatch.setenv("WPC_CHAOS_PROFILE_VARS", given)

    assert cli.main(["run", "--reports", str(tmp_path)]) == parallel.INVALID_INPUT

    assert f"wpc_profile_vars {message}" in capsys.readouterr().err


def test_the_targets_profile_refuses_a_bad_variable_by_name():
    # Failed before: an item without `=` was dropped without a word, so the run
    # went on with the profile's default instead of the value the user meant.
    target = experimenting.Target(profile_vars="novalue")
    with pytest.raises(
        DataError,
        match=r"^WPC_CHAOS_PROFILE_VARS must look like NAME=VALUE, not 'novalue'$",
    ):
        experimenting.profile_of(target)


def test_a_bad_chaos_layout_stops_the_collection_naming_it():
    # Failed before: WPC_CHAOS_LAYOUT=sideways collected no experiment, silently.
    pytest_args = [
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        str(parallel.TESTS),
    ]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "WPC_CHAOS_LAYOUT": "sideways"},
        timeout=120,
    )
    assert collected.returncode == pytest.ExitCode.INTERRUPTED, collected.stdout
    assert (
        "WPC_CHAOS_LAYOUT must be legacy, initless or both, not 'sideways'"
        in collected.stdout
    )


def test_make_chaos_names_no_report_after_the_implementation_s_path():
    made = subprocess.run(
        [
            "make",
            "-n",
            "-C",
            str(ROOT),
            "chaos",
            "IMPLEMENTATION=conformance/profiles/argo-workflows.yaml",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    [runner] = [line for line in made.splitlines() if "-m chaos run" in line]
    assert "reports/chaos-conformance" not in runner
