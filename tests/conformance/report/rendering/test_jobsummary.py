"""We test the report as a CI job shows it (`conformance.report.rendering.jobsummary`, `wpc summary`):

- the Markdown summary of the committed Argo Workflows v4.1.2 report has its result
  word, the verdict table the HTML page has (same rows) and every failed item with
  its clauses; a clean report says PASS and lists no failures;
- Markdown table cells survive a `|` and line breaks in a message;
- one `::error` workflow command per failed or errored item, its properties and
  message escaped as GitHub's workflow commands need (`%`, CR, LF; `:` and `,` in
  file and title), so a clause list or a `::` in a name never cuts the line;
- `wpc summary REPORT [--annotations]` prints them; a file that is not a
  ConformanceReport exits 10 naming it, with no traceback.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from conformance.exitcodes import ExitCode
from conformance.report.rendering import html
from conformance.report.rendering import jobsummary
from wpc import cli

ROOT = Path(__file__).resolve().parents[4]
ARGO = ROOT / "docs/results/argo-workflows-v4.1.2/conformance-argo-workflows.yaml"


@pytest.fixture(scope="module")
def argo() -> dict:
    return html.read(ARGO)


def _clean(argo: dict) -> dict:
    """The Argo report with its failed items dropped: every claimed item passed."""
    document = copy.deepcopy(argo)
    document["tests"] = [t for t in document["tests"] if t["outcome"] != "failed"]
    document["summary"]["failed"] = 0
    document["verdict"] = "PASS"
    return document


def test_the_markdown_has_the_word_the_verdict_rows_and_the_failures(argo):
    text = jobsummary.markdown(argo)
    assert text.startswith("## WPC conformance: argo-workflows v4.1.2")
    assert "**FAIL**: a claimed item failed" in text
    assert "89 passed, 12 failed, 1 not claimed, 0 harness errors" in text
    assert (
        "| layout | support | passed | failed | not claimed | harness error |" in text
    )
    for layout, support, counts, verdict in html.verdict_rows(argo):
        row = " | ".join([layout, support, *map(str, counts), verdict])
        assert f"| {row} |" in text
    failures = [line for line in text.splitlines() if line.startswith("| failed |")]
    assert len(failures) == 12
    assert "| failed | FinalizerSettingTurnedOff[legacy] | WPC-FINALIZER-009 |" in text


def test_a_clean_report_says_pass_and_lists_no_failures(argo):
    text = jobsummary.markdown(_clean(argo))
    assert "**PASS**: every claimed item passed" in text
    assert "Failures" not in text
    assert jobsummary.error_commands(_clean(argo), file="r.yaml") == []


def test_markdown_cells_keep_pipes_and_line_breaks_inside(argo):
    document = copy.deepcopy(argo)
    failed = next(t for t in document["tests"] if t["outcome"] == "failed")
    failed["message"] = "E   assert 'a|b'\nE   and more"
    row = next(
        line
        for line in jobsummary.markdown(document).splitlines()
        if identity_of(failed) in line
    )
    assert row.endswith("| assert 'a\\|b' |")


def identity_of(test: dict) -> str:
    from conformance.report.items import identity

    return identity.of_test(test)


def test_one_escaped_annotation_per_failed_or_errored_item(argo):
    document = copy.deepcopy(argo)
    errored = next(t for t in document["tests"] if t["outcome"] == "passed")
    errored.update(outcome="error", message="E   100% broken\r\nsecond line")
    lines = jobsummary.error_commands(document, file="reports/a,b:c.yaml")
    assert len(lines) == 13
    assert all(
        line.startswith("::error file=reports/a%2Cb%3Ac.yaml,title=") for line in lines
    )
    assert (
        "::error file=reports/a%2Cb%3Ac.yaml,title=FAILED RecoveryWithoutStatusFinalizer"
        "[legacy] (WPC-FINALIZER-002%2C WPC-STATUS-007%2C WPC-RECOVERY-001%2C "
        "WPC-RECOVERY-002%2C WPC-RECOVERY-003%2C WPC-RECOVERY-006%2C "
        "WPC-RECOVERY-009)::" in "\n".join(lines)
    )
    # A test function's `::` in the title is escaped, not read as the message start.
    assert any("title=FAILED KillShutdown%3A%3Atest_shutdown" in line for line in lines)
    title = f"ERROR {identity_of(errored)} ({', '.join(errored['clauses'])})"
    title = title.replace(":", "%3A").replace(",", "%2C")
    assert [line for line in lines if "title=ERROR " in line] == [
        f"::error file=reports/a%2Cb%3Ac.yaml,title={title}::100%25 broken"
    ]
    for line in lines:
        assert "\n" not in line
        assert line.count("::") == 2  # the command's own, nothing from the data


def test_wpc_summary_prints_markdown_and_annotations(capsys):
    assert cli.main(["summary", str(ARGO)]) == 0
    assert "**FAIL**" in capsys.readouterr().out
    assert cli.main(["summary", str(ARGO), "--annotations"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 12
    assert out[0].startswith(f"::error file={str(ARGO).replace(':', '%3A')},title=")
    assert cli.main(["summary", str(ARGO), "--annotations", "--file", "r.yaml"]) == 0
    assert capsys.readouterr().out.startswith("::error file=r.yaml,title=FAILED ")


def test_wpc_summary_refuses_a_file_that_is_not_a_report(tmp_path, capsys):
    bogus = tmp_path / "bogus.yaml"
    bogus.write_text(yaml.safe_dump({"kind": "ConformanceReport", "tests": []}))
    assert cli.main(["summary", str(bogus)]) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bogus}: ")
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as exited:
        cli.main(["summary", str(ARGO), "--markdown", "--annotations"])
    assert exited.value.code == 2
