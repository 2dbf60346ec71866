"""We test these aspects of the ChaosReport's page (`chaos.reporting.index_page`):

- it is the project's one page style: the same banner as the suite's page, with
  PASS, FAIL or INCOMPLETE over the experiments (not applicable ones aside;
  injection-unverified fails, as in the JUnit XML);
- everything from the report is escaped by the template: an experiment named
  `<script>` stays text, also inside a link;
- links to a timeline inside the page's folder are relative; a missing file is
  named, not linked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chaos.reporting.index_page import render_index
from chaos.reporting.index_page import verdict


def _entry(outcome: str, name: str = "e", **extra: object) -> dict[str, object]:
    return {
        "name": name,
        "layout": "legacy",
        "outcome": outcome,
        "injectionVerified": {"verified": outcome == "passed", "evidence": "pod gone"},
        "durationSeconds": 2.0,
        "violations": [],
        "timelinePath": "",
        "historyPath": "",
        **extra,
    }


@pytest.mark.parametrize(
    ("outcomes", "word"),
    [
        (["passed", "not-applicable"], "PASS"),
        (["passed", "failed"], "FAIL"),
        (["passed", "injection-unverified"], "FAIL"),
        (["passed", "error"], "INCOMPLETE"),
        (["not-applicable"], "INCOMPLETE"),
        ([], "INCOMPLETE"),
    ],
)
def test_the_word_over_the_experiments(outcomes, word):
    assert verdict([_entry(o) for o in outcomes]) == word


def test_the_page_has_the_suite_pages_banner(tmp_path: Path):
    report = {
        "implementation": {"name": "reference"},
        "experiments": [_entry("failed")],
    }
    page = render_index(report, tmp_path / "chaos.html")
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith(
        '<div class="banner FAIL" id="banner"><span class="word">FAIL</span> '
    )
    assert "<h1>Chaos report: reference</h1>" in page


def test_hostile_names_stay_text_and_links_are_relative(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    timeline = tmp_path / "chaos" / "runs" / "x" / "timeline.html"
    timeline.parent.mkdir(parents=True)
    timeline.write_text("")
    hostile = "<script>alert(1)</script>"
    report = {
        "implementation": {"name": hostile},
        "experiments": [
            _entry(
                "passed",
                name=hostile,
                timelinePath=str(timeline),
                historyPath="chaos/runs/x/missing.jsonl",
            )
        ],
    }
    page = render_index(report, tmp_path / "chaos.html")
    assert "<script" not in page
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in page
    assert '<a href="chaos/runs/x/timeline.html">timeline</a>' in page
    assert "history (missing)" in page
