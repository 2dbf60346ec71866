"""We test how the command line takes broken or hostile files (issue 29, item 7):

- a profile or a report that is not UTF-8 stops `wpc profile check`, `run`, `diff`,
  `layout-diff` and `html` with exit 10 and an error naming the file and the byte,
  never a traceback;
- a profile or report over its size limit (PROFILE_LIMIT_BYTES,
  schemafiles.READ_LIMIT_BYTES) is refused the same way, naming the limit;
- `html -o` naming a directory, and `diff --output` / `layout-diff --output` in a
  directory that does not exist, exit 10 naming it, and create nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.exitcodes import ExitCode
from conformance.report.scores import schemafiles
from wpc import cli as wpc_cli
from wpc import suite_cli as cli
from wpc.run import launching

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "docs/results/argo-workflows-v4.1.2/conformance-argo-workflows.yaml"
LATIN1 = "# café\n".encode("latin-1")


def refuse(*args: object, **kwargs: object) -> int:
    raise AssertionError("the run went past preflight")


def not_utf8(tmp_path: Path, source: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(source.read_bytes() + LATIN1)
    return path


def assert_refused(code: int, err: str, *named: str) -> None:
    assert code == ExitCode.INVALID_INPUT, err
    for part in named:
        assert part in err
    assert "Traceback" not in err


def test_a_profile_that_is_not_utf8_is_invalid_input(tmp_path, monkeypatch, capsys):
    profile = not_utf8(tmp_path, ROOT / "conformance/profiles/reference.yaml", "p.yaml")
    named = f"{profile}: the implementation profile is not UTF-8 text: byte 0xe9"
    assert wpc_cli.main(["profile", "check", str(profile)]) == ExitCode.INVALID_INPUT
    assert_refused(ExitCode.INVALID_INPUT, capsys.readouterr().err, named)
    monkeypatch.setattr(launching, "run", refuse)
    code = cli.main(["run", "--implementation", str(profile)])
    assert_refused(code, capsys.readouterr().err, named)


@pytest.mark.parametrize(
    "argv",
    [
        ["diff", "{bad}", str(REPORT)],
        ["layout-diff", str(REPORT), "{bad}"],
        ["html", "{bad}", "-o", "{tmp}/out.html"],
    ],
)
def test_a_report_that_is_not_utf8_is_invalid_input(tmp_path, capsys, argv):
    bad = not_utf8(tmp_path, REPORT, "bad.yaml")
    code = cli.main([a.format(bad=bad, tmp=tmp_path) for a in argv])
    assert_refused(code, capsys.readouterr().err, f"{bad}: ", "is not UTF-8 text")
    assert not (tmp_path / "out.html").exists()


def test_a_report_over_the_limit_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(schemafiles, "READ_LIMIT_BYTES", 1000)
    code = cli.main(["diff", str(REPORT), str(REPORT)])
    assert_refused(
        code, capsys.readouterr().err, f"{REPORT}: the report is larger than the limit"
    )


def test_the_report_limit_is_far_above_a_real_report():
    assert 100 * REPORT.stat().st_size <= schemafiles.READ_LIMIT_BYTES


def test_html_output_naming_a_directory_is_invalid_input(tmp_path, capsys):
    code = cli.main(["html", str(REPORT), "-o", str(tmp_path)])
    assert_refused(code, capsys.readouterr().err, f"{tmp_path}: is a directory")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "verb",
    [["diff", str(REPORT), str(REPORT)], ["layout-diff", str(REPORT), str(REPORT)]],
)
def test_an_output_in_a_missing_directory_is_refused_not_created(
    tmp_path, capsys, verb
):
    out = tmp_path / "typo" / "deeper" / "diff.yaml"
    code = cli.main([*verb, "--output", str(out)])
    assert_refused(
        code,
        capsys.readouterr().err,
        f"the directory {tmp_path / 'typo' / 'deeper'} does not exist",
    )
    assert not (tmp_path / "typo").exists()
