from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from chaos.cli import main
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod
from tests.chaos.histories import workflow


def _healthy(path: Path) -> Path:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a"))
    b.at(20).add("MODIFIED", pod("wf-a", phase="Succeeded"))
    b.at(21).add("MODIFIED", workflow(phase="Succeeded"))
    return b.write(path)


def _broken(path: Path) -> Path:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a"))
    b.at(2).add("ADDED", pod("wf-b"))
    b.at(20).add("MODIFIED", workflow(phase="Succeeded"))
    return b.write(path)


def test_no_violation_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(_healthy(tmp_path / "h.jsonl"))])

    assert code == 0
    assert "0 violation(s) of 7 invariant(s)" in capsys.readouterr().out


def test_violations_exit_1_with_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(_broken(tmp_path / "h.jsonl"))])

    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[0].split() == ["INVARIANT", "OBJECT", "LINES", "MESSAGE"]
    assert "one-live-pod-per-node  Pod/wf-b" in out
    assert "1 violation(s)" in out


def test_yaml_output_lists_violations_with_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _broken(tmp_path / "h.jsonl")

    code = main(["check", str(path), "--format", "yaml"])

    document = yaml.safe_load(capsys.readouterr().out)
    assert code == 1
    assert document["history"] == str(path)
    (violation,) = document["violations"]
    assert violation["invariant"] == "one-live-pod-per-node"
    assert violation["object"] == {"kind": "Pod", "name": "wf-b", "uid": "uid-wf-b"}
    assert violation["evidence"] == {
        "lines": [2, 3],
        "resourceVersions": ["102", "103"],
    }


def test_deadline_and_invariant_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _healthy(tmp_path / "h.jsonl")

    code = main(
        [
            "check",
            str(path),
            "--deadline",
            "5",
            "--invariant",
            "terminal-within-deadline",
        ]
    )

    out = capsys.readouterr().out
    assert code == 1
    assert "terminal-within-deadline" in out
    assert "of 1 invariant(s)" in out


def test_a_malformed_line_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _healthy(tmp_path / "h.jsonl")
    path.write_text(path.read_text() + "{oops\n")

    code = main(["check", str(path)])

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert f"{path}:5: not valid JSON" in captured.err


def test_a_missing_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"

    assert main(["check", str(missing)]) == 2
    assert f"{missing}: cannot read the history" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra", [["--invariant", "no-such"], ["--deadline", "soon"], ["--deadline", "0"]]
)
def test_bad_options_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    path = _healthy(tmp_path / "h.jsonl")

    try:
        code = main(["check", str(path), *extra])
    except SystemExit as exc:  # argparse refuses before main() returns
        code = int(str(exc.code))

    assert code == 2
    assert capsys.readouterr().err


def test_python_dash_m_chaos_runs_the_cli(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = _broken(tmp_path / "h.jsonl")

    done = subprocess.run(
        [sys.executable, "-m", "chaos", "check", str(path), "--format", "yaml"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    assert "one-live-pod-per-node" in done.stdout
