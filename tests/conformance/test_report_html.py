"""We test these aspects of the HTML report (`conformance.report.html`):

- the committed Argo Workflows v4.1.2 report renders with its verdict per layout
  (Core/Extended counts as in its summary.md), a failing clause with its one line
  of evidence, the declared layout divergence, the coverage ledger and a test's
  evidence paths;
- an interrupted report says what stopped it and lists the tests that ran and
  those cut short, and no verdict reads PASS;
- everything from the report is escaped: a `<script>` in a message stays text;
- the page is self-contained: no scripts, no external src/href;
- `python -m conformance html REPORT.yaml [-o out.html]` writes it offline, and
  refuses a file that is not a valid ConformanceReport, naming the file and key.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from conformance.exitcodes import ExitCode
from conformance.report import html
from wpc import suite_cli as cli

ROOT = Path(__file__).resolve().parents[2]
ARGO = ROOT / "docs/results/argo-workflows-v4.1.2/conformance-argo-workflows.yaml"


@pytest.fixture(scope="module")
def argo() -> dict:
    return html.read(ARGO)


def test_verdict_rows_of_the_committed_argo_report(argo):
    # layout, support, [passed, failed, not claimed, harness error], verdict
    assert html.verdict_rows(argo) == [
        ("initless", "Core", [28, 5, 0, 0], "FAIL"),
        ("initless", "Extended", [18, 2, 1, 0], "FAIL"),
        ("legacy", "Core", [26, 4, 0, 0], "FAIL"),
        ("legacy", "Extended", [17, 1, 0, 0], "FAIL"),
    ]


def test_an_interrupted_report_says_so_and_is_never_pass(argo):
    document = copy.deepcopy(argo)
    kept = [t for t in document["tests"] if t["outcome"] == "passed"][:1]
    document["tests"] = kept
    document["result"] = "interrupted"
    document["interrupted"] = {
        "reason": "SIGHUP",
        "ran": [kept[0]["nodeid"]],
        "unfinished": ["cut.py::test_cut[legacy]"],
        "collected": 102,
    }
    assert {row[-1] for row in html.verdict_rows(document)} == {"INTERRUPTED"}
    page = html.render(document)
    assert "INTERRUPTED (SIGHUP): 1 of 102 tests ran, 1 cut short" in page
    assert "cut.py::test_cut[legacy]" in page
    assert "(INCOMPLETE)</h1>" in page  # the result word: never PASS
    assert ">PASS<" not in page


def _row(page: str, *cells: str) -> bool:
    pattern = r"<tr>" + r"".join(
        rf"<td[^>]*>(?:<span[^>]*>)?{re.escape(c)}(?:</span>)?</td>" for c in cells
    )
    return re.search(pattern, page) is not None


def test_the_page_shows_verdicts_failures_divergences_and_coverage(argo):
    page = html.render(argo)
    assert _row(page, "legacy", "Core", "26", "4", "0", "0", "FAIL")
    assert _row(page, "initless", "Extended", "18", "2", "1", "0")
    assert "89 passed, 12 failed, 1 not claimed, 0 harness errors" in page
    # A failing clause with its first `E` line as evidence (escaped quotes).
    assert "WPC-HANDSHAKE-005, WPC-HANDSHAKE-006" in page
    assert (
        "AssertionError: task result reports parameters after a pre-main failure"
        in page
    )
    assert "symlinked-input-artifacts" in page  # a declared layout divergence
    assert "WPC-EMISSARY-001" in page  # the coverage ledger
    assert "implementation does not claim ARTIFACT_PLUGINS" in page
    evidence = next(t for t in argo["tests"] if t["evidence"])["evidence"][0]
    assert f"<code>{evidence}</code>" in page


def test_everything_from_the_report_is_escaped(argo):
    doc = copy.deepcopy(argo)
    failed = next(t for t in doc["tests"] if t["outcome"] == "failed")
    failed["message"] = "E   AssertionError: <script>alert('x')</script> & more"
    failed["shortName"] = "<b>Bold</b>"
    failed["evidence"] = ['reports/"quoted"/<img src=x>.log']
    page = html.render(doc)
    assert "<script" not in page
    assert "<b>Bold" not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more" in page
    assert "reports/&quot;quoted&quot;/&lt;img src=x&gt;.log" in page


def test_the_page_fetches_nothing(argo):
    page = html.render(argo)
    assert "<script" not in page
    assert "<link" not in page
    assert "@import" not in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert not re.search(r"url\(", page)


def test_the_html_verb_writes_the_page_offline(tmp_path, capsys):
    out = tmp_path / "argo.html"
    assert cli.main(["html", str(ARGO), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert "argo-workflows v4.1.2" in out.read_text()


def test_the_html_verb_defaults_to_beside_the_report(tmp_path):
    report = tmp_path / "conformance-argo.yaml"
    report.write_text(ARGO.read_text())
    assert cli.main(["html", str(report)]) == 0
    assert (tmp_path / "conformance-argo.html").is_file()


def test_an_invalid_report_is_refused_naming_file_and_key(tmp_path, capsys):
    doc = yaml.safe_load(ARGO.read_text())
    doc["summary"]["passed"] = "many"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    assert cli.main(["html", str(bad)]) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert str(bad) in err
    assert "summary/passed" in err
    assert not (tmp_path / "bad.html").exists()


def test_a_file_that_is_no_report_is_refused(tmp_path, capsys):
    other = tmp_path / "other.yaml"
    other.write_text("kind: Something\n")
    assert cli.main(["html", str(other)]) == ExitCode.INVALID_INPUT
    assert f"{other}: kind: not a ConformanceReport" in capsys.readouterr().err
