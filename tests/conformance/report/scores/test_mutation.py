"""We test these aspects of reading the mutation score into the ConformanceReport (no cluster):

- a valid NegativeControlsReport becomes the report's `mutationScore`: the clause
  score, the killed clauses, the fault counts and survivors, the implementation,
  the file it came from and the date of the negative run;
- a missing, unreadable or invalid file is a DataError naming the file and, for an
  invalid one, the key at fault;
- the score is refused for another implementation than the one whose variants were
  broken, and a report that names none is taken to be the reference's;
- the summary `tests/negative` writes is accepted as it is;
- the copy keeps the commit and spec version the score was measured on and the
  faults not run with why (a bare name from an older report means deselected);
- it is fresh when this run's commit, uncommitted changes and spec version are the
  measured ones, and stale, with a reason naming both sides, when the commit or the
  spec version differs, when the uncommitted changes differ (a dirty measurement
  against a clean run, or other changes), or when the report records none (older);
- the line people read says STALE with the reason, or fresh (neither for a copy
  made before staleness was judged), and what a kill was: clause-specific
  assertions only, or any failure for a report measured before (issue 11);
- the preflight's check refuses the same files as the read, without git.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import DataError
from conformance.report.scores import mutation
from conformance.report.scores.provenance import Provenance
from tests.conformance.conftest import MEASURED_ON
from tests.conformance.conftest import NOT_RUN
from tests.conformance.conftest import mutation_score
from tests.conformance.conftest import negative_report
from tests.conformance.conftest import write_yaml
from tests.negative import scoring

SAME = Provenance.from_json(MEASURED_ON)
"""This run's provenance when it is the measured one."""


def read(path: Path, implementation: str = "reference", **now: Any) -> dict[str, Any]:
    """`mutation.read` with this run at SAME, or with the fields in `now` replaced."""
    current = Provenance(**{**SAME.__dict__, **now})
    return mutation.read(path, implementation=implementation, current=current)


def test_a_valid_report_fills_the_mutation_score(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    assert read(path) == mutation_score(implementation="reference", source=path)


def test_a_missing_file_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(
        DataError, match="cannot read the negative-controls report"
    ) as info:
        read(path)
    assert str(path) in str(info.value)


def test_a_file_that_is_not_yaml_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("mutationScore: [unclosed\n")
    with pytest.raises(DataError, match=f"^{re.escape(str(path))}: cannot read"):
        read(path)


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (["a", "list"], "<top level>: .* is not of type 'object'"),
        (
            negative_report(kind="ConformanceReport"),
            "kind: 'NegativeControlsReport' was expected",
        ),
        (
            negative_report(mutationScore={"killed": 2, "total": 8, "score": 0.25}),
            "mutationScore: 'killedClauses' is a required property",
        ),
        (
            negative_report(
                faultScore={**negative_report()["faultScore"], "killed": -1}
            ),
            "faultScore.killed: -1 is less than the minimum of 0",
        ),
    ],
)
def test_an_invalid_report_names_the_path_and_the_key(
    tmp_path: Path, document: Any, problem: str
) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    with pytest.raises(
        DataError,
        match=f"^{re.escape(str(path))}: invalid negative-controls report .*{problem}",
    ):
        read(path)


def test_another_implementations_run_refuses_the_score(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    with pytest.raises(
        DataError,
        match="broken variants of 'reference', but this run judges 'argo-workflows'",
    ):
        read(path, "argo-workflows")


def test_a_report_naming_no_implementation_is_the_references(tmp_path: Path) -> None:
    document = negative_report()
    del document["implementation"]
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    assert read(path)["implementation"] == "reference"
    with pytest.raises(DataError, match="broken variants of 'reference'"):
        read(path, "fake")


def test_the_negative_controls_summary_is_accepted(tmp_path: Path) -> None:
    entries = [
        {"fault": "never-ready", "status": "killed", "killedClauses": ["WPC-A-1"]}
    ]
    document = scoring.summary(
        entries,
        must=["WPC-A-1", "WPC-A-2"],
        not_run=NOT_RUN,
        duration=1,
        measured_on=SAME,
    )
    document["faults"] = []  # the partial entry above is enough for the score
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    score = read(path, scoring.IMPLEMENTATION)
    assert (score["killed"], score["total"], score["score"]) == (1, 2, 0.5)
    assert score["faults"] == {"killed": 1, "total": 1, "survivors": []}
    assert (score["measuredOn"], score["notRun"]) == (MEASURED_ON, NOT_RUN)
    assert (score["stale"], score["staleReason"]) == (False, None)


def test_a_score_measured_on_this_code_and_spec_is_fresh(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    score = read(path)
    assert (score["stale"], score["staleReason"]) == (False, None)
    assert mutation.describe(score) == (
        "mutation score 2/8 MUST clauses (25.0%; clause-specific assertions only), "
        "1/2 faults killed, 2 not run; "
        "measured 2026-11-22T04:54:10+00:00 on commit 0123456789ab / spec 1.0: fresh"
    )


def test_a_score_counted_before_clause_specific_kills_says_so(tmp_path: Path) -> None:
    document = negative_report()
    del document["mutationScore"]["counting"]
    score = read(write_yaml(tmp_path / "negative-controls.yaml", document))
    assert score["counting"] == "any-failure"
    assert mutation.describe(score).startswith(
        "mutation score 2/8 MUST clauses (25.0%; any failure counted, measured "
        "before clause-specific counting), 1/2 faults killed"
    )


@pytest.mark.parametrize(
    ("now", "reason"),
    [
        (
            {"commit": "fedcba9876543210fedcba9876543210fedcba98"},
            "measured at commit 0123456789ab, this run is at commit fedcba987654",
        ),
        (
            {"spec_version": "1.1"},
            "measured against spec 1.0, this run judges spec 1.1",
        ),
        (
            {"commit": "unknown"},
            "the commit is unknown (measured at 0123456789ab, this run at unknown)",
        ),
        (
            {"dirty": True, "changes": "ab" * 32},
            "the uncommitted changes differ "
            "(measured on a clean tree, this run on changes abababab)",
        ),
        (
            {"commit": "f" * 40, "spec_version": "2.0"},
            "measured at commit 0123456789ab, this run is at commit ffffffffffff; "
            "measured against spec 1.0, this run judges spec 2.0",
        ),
    ],
    ids=["commit", "spec", "unknown-commit", "run-dirty", "commit-and-spec"],
)
def test_a_score_measured_on_other_code_or_spec_is_stale(
    tmp_path: Path, now: dict[str, Any], reason: str
) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    score = read(path, **now)
    assert score == mutation_score(
        implementation="reference", source=path, stale_reason=reason
    )
    assert mutation.describe(score).endswith(f": STALE ({reason})")


def dirty(changes: str | None) -> dict[str, Any]:
    return {**MEASURED_ON, "dirty": True, "changes": changes}


@pytest.mark.parametrize(
    ("measured", "now", "reason"),
    [
        (dirty("c1" * 32), {"dirty": True, "changes": "c1" * 32}, None),
        (
            dirty("c1" * 32),
            {},
            "the uncommitted changes differ "
            "(measured on changes c1c1c1c1, this run on a clean tree)",
        ),
        (
            dirty("c1" * 32),
            {"dirty": True, "changes": "d2" * 32},
            "the uncommitted changes differ "
            "(measured on changes c1c1c1c1, this run on changes d2d2d2d2)",
        ),
        (
            dirty(None),
            {"dirty": True, "changes": None},
            "the uncommitted changes differ "
            "(measured on changes unknown, this run on changes unknown)",
        ),
    ],
    ids=["same-changes", "run-clean", "other-changes", "unknown-changes"],
)
def test_a_dirty_measurement_is_fresh_only_with_the_same_changes(
    tmp_path: Path,
    measured: dict[str, Any],
    now: dict[str, Any],
    reason: str | None,
) -> None:
    path = write_yaml(
        tmp_path / "negative-controls.yaml", negative_report(measuredOn=measured)
    )
    score = read(path, **now)
    assert score["measuredOn"] == measured
    assert (score["stale"], score["staleReason"]) == (reason is not None, reason)
    assert f"on {Provenance.from_json(measured).label()}" in mutation.describe(score)


def test_a_report_recording_no_measurement_is_stale(tmp_path: Path) -> None:
    document = negative_report(notRun=["slow-heartbeat"])
    del document["measuredOn"]
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    score = read(path)
    assert score["measuredOn"] is None
    assert score["stale"] is True
    assert score["staleReason"] == (
        "the measurement records no commit or spec version (written before they "
        "were recorded); this run is at commit 0123456789ab / spec 1.0"
    )
    assert score["notRun"] == [
        {"fault": "slow-heartbeat", "reason": "not-selected", "detail": "deselected"}
    ]
    assert mutation.describe(score).endswith(
        "measured 2026-11-22T04:54:10+00:00: STALE (the measurement records no "
        "commit or spec version (written before they were recorded); this run is "
        "at commit 0123456789ab / spec 1.0)"
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"measuredOn": {**MEASURED_ON, "dirty": "no"}}, "measuredOn.dirty"),
        ({"notRun": [{"fault": "x", "reason": "forgot", "detail": ""}]}, "notRun.0"),
    ],
)
def test_an_invalid_measurement_or_not_run_entry_names_the_key(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report(**change))
    with pytest.raises(
        DataError, match=f"invalid negative-controls report .*{problem}"
    ):
        read(path)


def test_the_preflight_check_refuses_what_the_read_refuses(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    mutation.check(path, implementation="reference")
    with pytest.raises(DataError, match="broken variants of 'reference'"):
        mutation.check(path, implementation="fake")
    with pytest.raises(DataError, match="cannot read the negative-controls report"):
        mutation.check(tmp_path / "nowhere.yaml", implementation="reference")


def test_a_copy_made_before_staleness_is_described_without_it() -> None:
    older = {
        k: v
        for k, v in mutation_score(
            implementation="reference", source=Path("n.yaml")
        ).items()
        if k not in ("measuredOn", "notRun", "stale", "staleReason", "counting")
    }
    assert mutation.describe(older) == (
        "mutation score 2/8 MUST clauses (25.0%), 1/2 faults killed; "
        "measured 2026-11-22T04:54:10+00:00"
    )
