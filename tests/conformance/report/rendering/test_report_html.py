"""We test these aspects of the HTML report (`conformance.report.rendering.html`):

- the committed Argo Workflows v4.1.2 report renders with its verdict per layout
  (Core/Extended counts as in its summary.md), a failing clause with its one line
  of evidence, the declared layout divergence, the coverage ledger and a test's
  evidence paths;
- an interrupted report says what stopped it and lists the tests that ran and
  those cut short, and no verdict reads PASS;
- a banner at the top says the result word (PASS, FAIL, INCOMPLETE) and what it
  means; the reference's clean run of 2026-11-28 reads PASS, title and banner;
- a grid shows every test (rows) by layout (columns) with its outcome, `-` where
  a test has no item in a layout, each cell linking to the test's details;
- evidence paths are links: relative to the page inside the report's folder,
  else the file's `file:` URI;
- the implementation block shows organization, project URL and contact when the
  report has them, and the page still renders reports that do not;
- everything from the report is escaped (Jinja2 autoescaping): a `<script>` in
  a message or a test's name stays text;
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
from conformance.report.rendering import html
from wpc import suite_cli as cli

ROOT = Path(__file__).resolve().parents[4]
ARGO = ROOT / "docs/results/argo-workflows-v4.1.2/conformance-argo-workflows.yaml"
CLEAN = ROOT / "docs/results/conformance-2026-11-28/conformance-reference.yaml"


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
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more" in page
    assert "reports/&#34;quoted&#34;/&lt;img src=x&gt;.log" in page


def test_a_hostile_test_name_stays_text_everywhere_it_is_shown(argo):
    doc = copy.deepcopy(argo)
    hostile = "<script>alert(1)</script>"
    for test in doc["tests"]:
        if test["outcome"] == "failed":
            test["shortName"] = hostile
            test["id"] = f"{hostile}[{test['layout']}]"
    doc["implementation"]["name"] = '"><script>x</script>'
    page = html.render(doc)
    assert "<script" not in page
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"<td>{escaped}</td>" in page  # its row of the grid
    assert f'href="#test-{escaped}[legacy]"' in page  # an attribute, quoted
    assert "<title>WPC conformance: &#34;&gt;&lt;script&gt;x&lt;/script&gt;" in page


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


def test_the_banner_says_the_result_word_first(argo):
    page = html.render(argo)
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith('<div class="banner FAIL" id="banner">')
    assert '<span class="word">FAIL</span> a claimed item failed' in body


def test_the_reference_clean_run_reads_pass_in_title_and_banner():
    document = html.read(CLEAN)
    page = html.render(document)
    assert (
        '<div class="banner PASS" id="banner"><span class="word">PASS</span> ' in page
    )
    assert "every claimed item passed: 105 passed, 0 failed, 13 not claimed" in page
    assert "<h1>WPC conformance: reference 0.1.0 (PASS)</h1>" in page
    assert "partial" not in page.split("<body>", 1)[1].split("<h2", 1)[0]


def test_an_interrupted_or_errored_run_has_an_incomplete_banner(argo):
    document = copy.deepcopy(argo)
    document["tests"] = [t for t in document["tests"] if t["outcome"] == "passed"]
    document["tests"][0]["outcome"] = "error"
    document["summary"]["failed"] = 0
    document.pop("verdict", None)
    page = html.render(document)
    assert '<div class="banner INCOMPLETE" id="banner">' in page


def test_the_grid_has_a_row_per_test_and_a_column_per_layout(argo):
    rows = dict(html.grid(argo))
    scenarios = [t for t in argo["tests"] if t["kind"] == "scenario"]
    assert sum(cell is not None for row in rows.values() for cell in row) == len(
        scenarios
    )
    hello = rows["HelloWorld"]
    assert [cell["outcome"] for cell in hello if cell] == ["passed", "passed"]
    assert [cell["layout"] for cell in hello if cell] == ["legacy", "initless"]
    page = html.render(argo)
    assert "<thead><tr><th>test</th><th>legacy</th><th>initless</th></tr></thead>" in (
        page
    )
    assert re.search(
        r'<tr><td>HelloWorld</td><td class="passed"><a href="#test-HelloWorld\[legacy\]"'
        r' class="passed">passed</a></td><td class="passed">',
        page,
    )


def test_a_skip_the_claims_made_reads_not_claimed_in_the_grid(argo):
    page = html.render(argo)
    unclaimed = next(
        t
        for t in argo["tests"]
        if t["outcome"] == "skipped" and t["kind"] == "scenario"
    )
    assert (
        f'<a href="#{html.anchor(unclaimed)}" class="skipped">not claimed</a>' in page
    )


def test_a_test_in_one_layout_only_has_a_dash_in_the_other(argo):
    document = copy.deepcopy(argo)
    document["tests"] = [
        t for t in document["tests"] if t.get("id") != "HelloWorld[initless]"
    ]
    page = html.render(document)
    assert re.search(
        r"<tr><td>HelloWorld</td><td class=\"passed\">.*?</td>"
        r'<td class="none">-</td></tr>',
        page,
    )


def test_a_parametrized_test_keeps_one_row_across_layouts(argo):
    """`X[legacy-3]` and `X[initless-3]` are one row, `X[3]`, as reports compare them."""
    document = copy.deepcopy(argo)
    for test in document["tests"]:
        if test.get("id") in ("HelloWorld[legacy]", "HelloWorld[initless]"):
            test["id"] = f"HelloWorld[{test['layout']}-3]"
    rows = dict(html.grid(document))
    assert [cell["layout"] for cell in rows["HelloWorld[3]"] if cell] == [
        "legacy",
        "initless",
    ]


def test_evidence_paths_link_relative_to_the_page_inside_its_folder(
    argo, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    document = copy.deepcopy(argo)
    failed = next(t for t in document["tests"] if t["outcome"] == "failed")
    failed["evidence"] = ["reports/evidence-x/events.txt", "/elsewhere/pod.log"]
    page = html.render(document, tmp_path / "reports" / "conformance-x.html")
    assert (
        '<a href="evidence-x/events.txt"><code>reports/evidence-x/events.txt</code>'
        in (page)
    )
    assert '<a href="file:///elsewhere/pod.log"><code>/elsewhere/pod.log</code>' in page


def test_the_implementation_block_shows_who_made_it(argo):
    document = copy.deepcopy(argo)
    document["implementation"].update(
        organization="Argo Project",
        url="https://github.com/argoproj/argo-workflows",
        contact=["https://github.com/argoproj/argo-workflows/issues"],
    )
    page = html.render(document)
    assert "<dt>organization</dt><dd>Argo Project</dd>" in page
    assert (
        '<dt>project</dt><dd><a href="https://github.com/argoproj/argo-workflows">'
        in page
    )
    assert (
        "<dt>contact</dt><dd>https://github.com/argoproj/argo-workflows/issues" in page
    )
    assert "<dt>organization</dt>" not in html.render(argo)  # an older report
