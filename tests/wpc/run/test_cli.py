"""We test these aspects of `python -m conformance` and its helpers (no cluster):

- `run` brings the cluster up first, unless a kubeconfig is given;
- the pytest command carries the plugin options and the report paths named
  after the implementation, and --negative-controls only when given;
- `load-images` parses `<ref> <context>` lines and refuses malformed or `latest` ones;
- a failing command reports its command line, exit code and output;
- `run` ends with the path of the HTML page the run wrote, never a stale one;
- `run` loads the profile once in the launcher: the preflight's is passed on.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conformance.errors import CommandError
from conformance.errors import DataError
from conformance.implementations import driving
from conformance.implementations import images
from conformance.implementations import profiles
from plumbing import forwarding
from wpc import suite_cli as cli
from wpc.run import launching
from wpc.run import preflight


def request(
    *, workers: int = 0, pytest_args: tuple[str, ...] = (), **options: object
) -> launching.RunRequest:
    values: dict[str, object] = {"wpc_implementation": "reference"}
    values.update(options)
    return launching.RunRequest(
        options=values,
        reports_dir=Path("reports"),
        workers=workers,
        pytest_args=pytest_args,
    )


def test_run_brings_the_cluster_up_first():
    assert launching.cluster_commands(request()) == [
        [sys.executable, "-m", "clusters", "up", "--provider", "local", "--name", "wpc"]
    ]
    assert launching.cluster_commands(request(wpc_kubeconfig=Path("/k"))) == []


def test_pytest_command_names_reports_after_the_implementation():
    argv = launching.pytest_command(request(workers=2, pytest_args=("-k", "Hello")))
    joined = " ".join(argv)
    assert "--wpc-implementation reference --wpc-layout both" in joined
    assert "--wpc-report reports/conformance-reference.yaml" in joined
    assert "--wpc-junit reports/junit-reference.xml" in joined
    assert "--alluredir reports/allure-reference" in joined
    assert "--wpc-provider local --wpc-cluster wpc" in joined
    assert argv[-4:] == ["-n", "2", "-k", "Hello"]


def test_negative_controls_are_forwarded_only_when_given(monkeypatch):
    seen: list[launching.RunRequest] = []
    monkeypatch.setattr(launching, "run", lambda r: seen.append(r) or 0)
    monkeypatch.setattr(preflight, "check", lambda values: None)
    argv = ["run", "--implementation", "reference"]
    assert cli.main([*argv, "--negative-controls", "reports/n.yaml"]) == 0
    assert cli.main(argv) == 0
    given, absent = (launching.pytest_command(r) for r in seen)
    assert given[given.index("--wpc-negative-controls") + 1] == "reports/n.yaml"
    assert "--wpc-negative-controls" not in absent


def test_image_contexts_are_parsed():
    found = images.parse_contexts(
        "# built\nwpc.local/a:1 /tmp/a\n\nwpc.local/b:2 /tmp/b\n"
    )
    assert [(i.ref, str(i.context)) for i in found] == [
        ("wpc.local/a:1", "/tmp/a"),
        ("wpc.local/b:2", "/tmp/b"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wpc.local/a:1\n", "expected '<image ref> <context dir>'"),
        ("x:latest /c\n", "must not use the latest tag"),
    ],
)
def test_bad_image_contexts_are_refused(text, message):
    with pytest.raises(DataError, match=message):
        images.parse_contexts(text)


def test_failing_command_carries_evidence(tmp_path):
    argv = [sys.executable, "-c", "import sys; print('proxy said no'); sys.exit(3)"]
    with pytest.raises(CommandError) as info:
        driving.run_command(argv, log_path=tmp_path / "x.log", timeout=30)
    message = str(info.value)
    assert "exit code 3" in message
    assert "proxy said no" in message
    assert f"log file: {tmp_path / 'x.log'}" in message


def test_run_forwards_its_options_to_pytest_prefixed():
    from conformance.plugin.selection import options

    args = cli.parser().parse_args(
        [
            "run",
            "--implementation",
            "reference",
            "--cluster-name",
            "c1",
            "--profile-var",
            "fault=x",
            "--require-must-coverage",
        ]
    )
    assert args.wpc_cluster_name == "c1"
    argv = launching.pytest_command(
        launching.RunRequest(
            options={o.dest: getattr(args, o.dest) for o in options.OPTIONS},
            reports_dir=Path("reports"),
        )
    )
    joined = " ".join(argv)
    assert "--wpc-cluster c1" in joined
    assert "--wpc-profile-var fault=x" in joined
    assert "--wpc-require-must-coverage" in joined


def test_pytest_takes_the_old_cluster_name_spelling(pytester):
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        ["*--wpc-cluster=WPC_CLUSTER_NAME, --wpc-cluster-name=WPC_CLUSTER_NAME*"]
    )


def _fake_pytest(page: Path | None, returncode: int):
    def run(command, env=None):
        if page is not None:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text("<!DOCTYPE html>")
        return returncode

    return run


def test_run_ends_with_the_html_path_it_wrote(tmp_path, monkeypatch, capsys):
    report = tmp_path / "r" / "conformance-reference.yaml"
    page = tmp_path / "r" / "conformance-reference.html"
    monkeypatch.setattr(forwarding, "run_forwarding", _fake_pytest(page, 1))
    done = launching.run(request(wpc_kubeconfig=Path("/k"), wpc_report=report))
    assert done == 1
    assert capsys.readouterr().out.splitlines()[-1] == f"HTML report: {page}"


def test_run_names_no_stale_html_from_an_earlier_run(tmp_path, monkeypatch, capsys):
    report = tmp_path / "conformance-reference.yaml"
    page = tmp_path / "conformance-reference.html"
    page.write_text("old")
    os.utime(page, (0, 0))
    monkeypatch.setattr(forwarding, "run_forwarding", _fake_pytest(None, 4))
    assert launching.run(request(wpc_kubeconfig=Path("/k"), wpc_report=report)) == 4
    assert "HTML report" not in capsys.readouterr().out


def test_run_loads_the_profile_once_in_the_launcher(tmp_path, monkeypatch):
    loaded: list[str] = []
    real_load = profiles.load

    def counting_load(name_or_path, **kwargs):
        loaded.append(name_or_path)
        return real_load(name_or_path, **kwargs)

    commands: list[list[str]] = []
    monkeypatch.setattr(profiles, "load", counting_load)
    monkeypatch.setattr(
        forwarding,
        "run_forwarding",
        lambda command, env=None: commands.append(command) or 0,
    )
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\n")
    argv = ["run", "--implementation", "reference", "--kubeconfig", str(kubeconfig)]

    assert cli.main([*argv, "--reports-dir", str(tmp_path / "r")]) == 0

    assert loaded == ["reference"]  # preflight's; pytest_command and run reuse it
    (command,) = commands
    report = command[command.index("--wpc-report") + 1]
    assert report == str(tmp_path / "r" / "conformance-reference.yaml")
