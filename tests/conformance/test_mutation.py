"""We test these aspects of reading the mutation score into the ConformanceReport (no cluster):

- a valid NegativeControlsReport becomes the report's `mutationScore`: the clause
  score, the killed clauses, the fault counts and survivors, the implementation,
  the file it came from and the date of the negative run;
- a missing, unreadable or invalid file is a DataError naming the file and, for an
  invalid one, the key at fault;
- the score is refused for another implementation than the one whose variants were
  broken, and a report that names none is taken to be the reference's;
- the summary `tests/negative` writes is accepted as it is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import DataError
from conformance.report import mutation
from tests.conformance.conftest import mutation_score
from tests.conformance.conftest import negative_report
from tests.conformance.conftest import write_yaml
from tests.negative import scoring


def test_a_valid_report_fills_the_mutation_score(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    assert mutation.read(path, implementation="reference") == mutation_score(
        implementation="reference", source=path
    )


def test_a_missing_file_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(
        DataError, match="cannot read the negative-controls report"
    ) as info:
        mutation.read(path, implementation="reference")
    assert str(path) in str(info.value)


def test_a_file_that_is_not_yaml_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("mutationScore: [unclosed\n")
    with pytest.raises(DataError, match=f"^{re.escape(str(path))}: cannot read"):
        mutation.read(path, implementation="reference")


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
        mutation.read(path, implementation="reference")


def test_another_implementations_run_refuses_the_score(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "negative-controls.yaml", negative_report())
    with pytest.raises(
        DataError,
        match="broken variants of 'reference', but this run judges 'argo-workflows'",
    ):
        mutation.read(path, implementation="argo-workflows")


def test_a_report_naming_no_implementation_is_the_references(tmp_path: Path) -> None:
    document = negative_report()
    del document["implementation"]
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    assert (
        mutation.read(path, implementation="reference")["implementation"] == "reference"
    )
    with pytest.raises(DataError, match="broken variants of 'reference'"):
        mutation.read(path, implementation="fake")


def test_the_negative_controls_summary_is_accepted(tmp_path: Path) -> None:
    entries = [
        {"fault": "never-ready", "status": "killed", "killedClauses": ["WPC-A-1"]}
    ]
    document = scoring.summary(
        entries, must=["WPC-A-1", "WPC-A-2"], not_run=[], duration=1
    )
    document["faults"] = []  # the partial entry above is enough for the score
    path = write_yaml(tmp_path / "negative-controls.yaml", document)
    score = mutation.read(path, implementation=scoring.IMPLEMENTATION)
    assert (score["killed"], score["total"], score["score"]) == (1, 2, 0.5)
    assert score["faults"] == {"killed": 1, "total": 1, "survivors": []}
