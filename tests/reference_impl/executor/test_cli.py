"""We test these aspects of the `argoexec` command line:

`kill SIG PID` prints `killing <pid> with <sig>` and signals; `emissary` takes
Argo's log options and everything after `--` as the command (options included)
and exits with the child's code; extra unknown options (config
`executor.args`) are tolerated.
"""

from __future__ import annotations

import os

from reference_impl.executor import cli


def test_kill_prints_and_signals(capsys):
    assert cli.main(["kill", "0", str(os.getpid())]) == 0
    assert capsys.readouterr().out == f"killing {os.getpid()} with 0\n"


def test_emissary_runs_the_command_after_the_separator(monkeypatch, paths):
    monkeypatch.setenv("ARGO_CONTAINER_NAME", "main")
    monkeypatch.setenv("ARGO_TEMPLATE", "{}")
    argv = [
        "emissary",
        "--loglevel",
        "debug",
        "--log-format",
        "text",
        "--gloglevel",
        "0",
    ]
    code = cli.main([*argv, "--", "sh", "-c", "exit 5"], root=paths.root)
    assert code == 5
    assert paths.exitcode("main").read_text() == "5"


def test_unknown_extra_options_are_tolerated(monkeypatch, paths):
    monkeypatch.setenv("ARGO_TEMPLATE", "{}")
    code = cli.main(["emissary", "--extra-flag", "--", "true"], root=paths.root)
    assert code == 0
