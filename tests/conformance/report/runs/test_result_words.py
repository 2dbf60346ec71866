"""We test these aspects of the result words (`conformance.report.runs.words`):

- PASS when every claimed item passed, whatever was not claimed; FAIL when a
  claimed item failed or an undeclared layout divergence; INCOMPLETE when
  nothing failed but a claimed item errored or skipped, or nothing claimed ran;
- a run whose claimed items all passed beside unclaimed features is titled PASS
  in its YAML (`verdict: PASS`, `result: success`, its Extended buckets
  `success`, never "partial") and its HTML page, end to end with pytester;
- the committed reference run of 2026-11-24 (105 passed, 13 not claimed,
  written `result: partial`) reads as PASS and its page is titled PASS;
- the words are defined in conformance/SPEC.md and docs/vendors.md.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from conformance.report.items.outcomes import Outcome
from conformance.report.rendering import html
from conformance.report.runs import words
from tests.conformance.conftest import wpc_args

ROOT = Path(__file__).resolve().parents[4]
REFERENCE = ROOT / "docs/results/reference-kind-2026-11-24/conformance-reference.yaml"
P, F, S, E = Outcome.PASSED, Outcome.FAILED, Outcome.SKIPPED, Outcome.ERROR


@pytest.mark.parametrize(
    ("claimed", "divergences", "expected"),
    [
        ([P, P], 0, words.PASS),
        ([P, F, S], 0, words.FAIL),
        ([P, E, F], 0, words.FAIL),
        ([P, P], 1, words.FAIL),
        ([P, E], 0, words.INCOMPLETE),
        ([P, S], 0, words.INCOMPLETE),
        ([], 0, words.INCOMPLETE),
    ],
)
def test_the_word_of_the_claimed_outcomes(
    claimed: list[Outcome], divergences: int, expected: str
) -> None:
    assert words.word(claimed, divergences=divergences) == expected


def test_an_old_report_tells_unclaimed_skips_by_their_reason() -> None:
    unclaimed = {"outcome": "skipped", "message": "implementation does not claim X"}
    claimed = {"outcome": "skipped", "message": "the profile has no setConfig"}
    assert not words.is_claimed(unclaimed)
    assert words.is_claimed(claimed)
    assert words.is_claimed({**unclaimed, "claimed": True})


MIXED = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Mixed", clauses=["WPC-FINALIZER-001"])
    def test_claimed():
        pass

    @pytest.mark.conformance(
        short_name="Mixed", clauses=["WPC-RECOVERY-001"], features=["RETRY"]
    )
    def test_not_claimed():
        pass
    """
)


def test_a_run_passing_every_claimed_item_is_titled_pass(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_mixed=MIXED)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report)))
    result.assert_outcomes(passed=2, skipped=2)
    doc = yaml.safe_load(report.read_text())
    assert (doc["verdict"], doc["result"]) == (words.PASS, "success")
    # Per layout and spec profile: the claimed test's buckets pass, the
    # unclaimed one's only skipped; none is "partial".
    buckets = [r[s]["result"] for r in doc["results"] for s in ("core", "extended")]
    assert "success" in buckets
    assert set(buckets) <= {"success", "skipped", "empty"}
    assert {t["id"]: t["claimed"] for t in doc["tests"]} == {
        "Mixed::test_claimed[legacy]": True,
        "Mixed::test_claimed[initless]": True,
        "Mixed::test_not_claimed[legacy]": False,
        "Mixed::test_not_claimed[initless]": False,
    }
    page = report.with_suffix(".html").read_text()
    assert "<title>WPC conformance: fake 1.2.3 (PASS)</title>" in page
    assert "(partial)" not in page
    assert 'class="partial"' not in page
    result.stdout.fnmatch_lines(["result: PASS (every claimed item passed)"])


def test_a_claimed_item_skipped_in_its_body_makes_the_run_incomplete(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_skips=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Skips", clauses=["WPC-FINALIZER-001"])
            def test_skips():
                pytest.skip("the profile has no setConfig command")
            """
        )
    )
    report = suite.path / "reports" / "conformance-fake.yaml"
    suite.runpytest(*wpc_args("--wpc-report", str(report)))
    doc = yaml.safe_load(report.read_text())
    assert doc["verdict"] == words.INCOMPLETE
    assert "(INCOMPLETE)</title>" in report.with_suffix(".html").read_text()


def test_the_committed_reference_run_reads_as_pass() -> None:
    document = html.read(REFERENCE)
    assert document["result"] == "partial"  # as written before the words
    assert document["summary"] == {
        "passed": 105,
        "failed": 0,
        "skipped": 13,
        "errors": 0,
        "divergenceFailures": 0,
    }
    assert words.of_document(document) == words.PASS
    assert "(PASS)</title>" in html.render(document)


@pytest.mark.parametrize("doc", ["conformance/SPEC.md", "docs/vendors.md"])
def test_the_words_are_defined_for_readers(doc: str) -> None:
    text = (ROOT / doc).read_text()
    for word in words.WORDS:
        assert f"**{word}**" in text, (doc, word)
