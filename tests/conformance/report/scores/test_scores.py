"""We test the suite's two scores shown side by side (`conformance.report.scores.summary`):

- from the committed results (the negative-control table of 2026-11-25 and the
  history result of v4.0.0..v4.1.2): the synthetic line says clauses killed /
  MUST clauses and the historical one fixes caught / in scope, each with the
  commit and spec it was measured on and whether that is this run's;
- a score the report does not carry has its line too, saying how to give it;
- the HTML page shows both lines in one block of the run's facts, and the
  terminal summary prints the same lines.
"""

from __future__ import annotations

import copy
import html as markup
from pathlib import Path

import pytest

from conformance.report.rendering import html
from conformance.report.scores import historical
from conformance.report.scores import mutation
from conformance.report.scores import provenance
from conformance.report.scores import summary
from tests.conformance.conftest import write_yaml
from tests.conformance.plugin.test_plugin_report import FINALIZER
from tests.conformance.plugin.test_plugin_report import run_with_report
from tests.wpc.history.builders import history_result

ROOT = Path(__file__).resolve().parents[4]
RESULTS = ROOT / "docs" / "results"
NEGATIVE = RESULTS / "negative-controls-2026-11-25" / "negative-controls.yaml"
HISTORY = RESULTS / "history-v4.0.0-v4.1.2" / "history-result.yaml"
ARGO = RESULTS / "argo-workflows-v4.1.2" / "conformance-argo-workflows.yaml"
HERE = provenance.Provenance(
    commit="bfca1b5433680c215a3b3571e34c7330f12bdbdf",
    dirty=False,
    changes=None,
    spec_version="1.0",
)
"""A run at the commit the committed history result was measured at."""


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    return (
        mutation.read(NEGATIVE, implementation="reference", current=HERE),
        historical.read(HISTORY, current=HERE),
    )


def test_the_committed_results_give_both_lines_with_what_they_were_measured_on(
    both,
):
    synthetic, upstream = summary.lines(*both)
    assert synthetic.startswith("mutation score 76/125 MUST clauses (60.8%; ")
    assert "measured 2026-11-25T05:05:47+00:00 on commit 5742f528349a / spec 1.0" in (
        synthetic
    )
    assert synthetic.endswith(
        ": STALE (measured at commit 5742f528349a, this run is at commit bfca1b543368)"
    )
    assert upstream == (
        "historical mutation score 9/15 upstream fixes caught (60.0%); measured "
        "2026-11-24T17:08:02+00:00 on commit bfca1b543368 / spec 1.0: fresh"
    )


def test_a_score_not_carried_says_how_to_give_it(both):
    assert summary.lines(None, None) == [
        summary.SYNTHETIC_MISSING,
        summary.HISTORICAL_MISSING,
    ]
    assert "--negative-controls" in summary.SYNTHETIC_MISSING
    assert "--history-result" in summary.HISTORICAL_MISSING
    assert summary.lines(None, both[1])[0] == summary.SYNTHETIC_MISSING


def test_the_page_shows_both_scores_in_one_block(both):
    document = copy.deepcopy(html.read(ARGO))
    document["mutationScore"], document["historicalMutationScore"] = both
    # Unescaped: the page's escaping of an apostrophe is the template engine's choice.
    page = markup.unescape(html.render(document))
    block = page.split("<dt>the suite's scores</dt>", 1)[1].split("</dd>", 1)[0]
    assert "mutation score 76/125 MUST clauses" in block
    assert "historical mutation score 9/15 upstream fixes caught" in block
    assert "on commit bfca1b543368 / spec 1.0: fresh" in block
    bare = markup.unescape(html.render(html.read(ARGO)))
    assert "mutation score (synthetic, MUST clauses killed / MUST clauses): not " in (
        bare
    )
    assert "historical mutation score (upstream's fixed bugs" in bare


def test_the_terminal_summary_prints_both_lines(suite: pytest.Pytester):
    suite.makepyfile(test_finalizer=FINALIZER)
    path = write_yaml(suite.path / "history-result.yaml", history_result())
    result, _ = run_with_report(suite, "--wpc-history-result", str(path))
    result.stdout.fnmatch_lines(
        [
            "mutation score (synthetic, MUST clauses killed / MUST clauses): not "
            "carried; *",
            "historical mutation score 1/2 upstream fixes caught (50.0%); measured "
            "2026-11-24T16:00:00+00:00 on commit abc123def456 / spec 1.0: STALE (*",
        ]
    )
