"""We test the table of chaos experiments and their negative controls:

- it is computed from the experiment catalogue: a document added under the
  experiments directory shows up without a control until a row names it, in
  the layouts it declares;
- a row naming an experiment the catalogue lacks, a layout the experiment
  does not run in, or not exactly one probe or invariant is reported, and the
  command exits 10 for it; the shipped rows have none of these;
- the table lists the covered experiments with their faults, then the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.chaos import negative_coverage
from tests.chaos.negative_coverage import Control


def document(directory: Path, name: str, layouts: list[str]) -> None:
    """An experiment document holding only what the catalogue reads."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.yaml").write_text(
        yaml.safe_dump(
            {
                "title": name,
                "extensions": [{"name": "wpc", "experiment": name, "layouts": layouts}],
            }
        )
    )


ROW = Control("a-fault", "pod-killed", "legacy", probe="node_is")


def test_the_uncovered_experiments_come_from_the_catalogue(tmp_path: Path):
    document(tmp_path, "pod-killed", ["legacy", "initless"])
    document(tmp_path, "node-lost", ["legacy"])
    rows = negative_coverage.uncovered((ROW,), tmp_path)
    assert [(r.experiment, r.layouts) for r in rows] == [("node-lost", ("legacy",))]
    document(tmp_path, "api-gone", ["initless"])
    rows = negative_coverage.uncovered((ROW,), tmp_path)
    assert [r.experiment for r in rows] == ["api-gone", "node-lost"]
    assert negative_coverage.uncovered((), tmp_path)[-1].experiment == "pod-killed"


def test_bad_rows_are_named(tmp_path: Path):
    document(tmp_path, "pod-killed", ["initless"])
    experiments = negative_coverage.catalogue(tmp_path)
    bad = (
        ROW,
        Control("b", "pod-kiled", "initless", probe="node_is"),
        Control("c", "pod-killed", "initless", probe="node_is", invariant="x"),
    )
    assert negative_coverage.problems(bad, experiments) == [
        "a-fault-pod-killed-legacy: pod-killed runs in initless only",
        "b-pod-kiled-initless: no experiment 'pod-kiled'",
        "c-pod-killed-initless: name exactly one probe or invariant",
    ]


def test_the_shipped_rows_name_experiments_of_the_catalogue():
    experiments = negative_coverage.catalogue()
    assert len(experiments) >= 21
    assert negative_coverage.problems(negative_coverage.CONTROLS, experiments) == []
    ids = [c.id for c in negative_coverage.CONTROLS]
    assert len(ids) == len(set(ids))


def test_the_table_lists_the_covered_then_the_others(tmp_path: Path):
    document(tmp_path, "pod-killed", ["legacy"])
    document(tmp_path, "node-lost", ["legacy", "initless"])
    text = negative_coverage.table(negative_coverage.coverage((ROW,), tmp_path))
    assert text.splitlines() == [
        "chaos negative controls: 1 of 2 experiments have one, 1 have none",
        "  pod-killed  a-fault [legacy]",
        "",
        "experiments without a chaos negative control:",
        "  node-lost   layouts: legacy, initless",
    ]


def test_the_command_prints_the_table_or_exits_10_for_a_bad_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    assert negative_coverage.main() == 0
    out = capsys.readouterr().out
    assert "experiments without a chaos negative control:" in out or "have none" in out
    monkeypatch.setattr(negative_coverage, "CONTROLS", (ROW,))
    assert negative_coverage.main() == 10
    assert "a-fault-pod-killed-legacy: no experiment 'pod-killed'" in (
        capsys.readouterr().err
    )


def test_make_tests_chaos_negative_slice_names_three_whole_rows() -> None:
    """`make test`'s slice stays the three rows it was timed with, whatever rows come.

    A fault's bare name (`forget-in-flight-pods`) came to match its rows for the API
    server experiments too, which made `make test` run node faults and minutes more.
    """
    makefile = Path(__file__).resolve().parents[2] / "Makefile"
    line = next(
        text
        for text in makefile.read_text().splitlines()
        if text.startswith("CHAOS_NEGATIVE_SLICE ?=")
    )
    terms = [term.strip() for term in line.split("?=", 1)[1].split(" or ")]
    ids = [control.id for control in negative_coverage.CONTROLS]
    assert [sum(term in row for row in ids) for term in terms] == [1, 1, 1], terms
