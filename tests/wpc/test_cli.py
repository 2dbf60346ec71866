"""We test these aspects of the `wpc` console script (no cluster):

- `--help` lists every command and `--version` shows the single-sourced version;
- `wpc VERB --help` works for every verb and names the program `wpc VERB`; the
  `python -m conformance|chaos|clusters` shims keep their own names;
- `run`, `cluster` and `chaos` hand their arguments, unparsed, to the existing
  front ends, and `parse` checks a command line with those front ends' parsers;
- `profile init` writes a skeleton that `profile check` accepts, and never
  overwrites a file without --force;
- `profile check` names the file and the key of a mistake, with exit code 10.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import conformance
from conformance.exitcodes import ExitCode
from wpc import cli

ROOT = Path(__file__).resolve().parents[2]
VERBS = (
    "run",
    "profile",
    "cluster",
    "chaos",
    "bench",
    "bench-compare",
    "differential",
    "diff",
    "layout-diff",
    "qualify",
    "history",
    "html",
    "merge",
    "stability",
    "bench-suite",
    "uninstall",
    "load-images",
    "images",
)
"""Every verb of the front door (`run --list` lists; there is no `list` verb)."""


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for command in VERBS:
        assert re.search(rf"^    {command}\b", out, re.MULTILINE), command


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_help_under_the_name_wpc(capsys, verb):
    with pytest.raises(SystemExit) as exited:
        cli.main([verb, "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: wpc {verb} ")


@pytest.mark.parametrize(
    ("shim", "verb"),
    [("conformance", "html"), ("chaos", "check"), ("clusters", "status")],
)
def test_the_python_m_shims_keep_their_names(shim, verb):
    helped = subprocess.run(
        [sys.executable, "-m", shim, verb, "--help"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith(f"usage: python -m {shim} {verb} ")


def test_version_is_the_packages_version(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out == f"wpc {conformance.__version__}\n"


@pytest.mark.parametrize("verb", ["run", "differential", "qualify", "cluster", "chaos"])
def test_delegated_verbs_hand_over_their_arguments_unparsed(monkeypatch, verb):
    seen: list[list[str]] = []
    monkeypatch.setitem(cli.FRONT_ENDS, verb, lambda argv: seen.append(argv) or 7)
    assert cli.main([verb, "--help", "-x", "--", "y"]) == 7
    assert seen == [["--help", "-x", "--", "y"]]


def test_parse_uses_each_front_ends_own_parser():
    run = cli.parse(["run", "--implementation", "reference", "--layout", "legacy"])
    assert (run.wpc_implementation, run.wpc_layout) == ("reference", "legacy")
    cluster = cli.parse(["cluster", "up", "--provider", "kind", "--name", "ci"])
    assert (cluster.verb, cluster.provider, cluster.name) == ("up", "kind", "ci")
    chaos = cli.parse(["chaos", "check", "history.jsonl"])
    assert chaos.history == "history.jsonl"
    with pytest.raises(SystemExit):
        cli.parse(["cluster", "up", "--provider", "nosuch"])


def test_profile_init_writes_a_skeleton_that_checks(tmp_path, capsys):
    path = tmp_path / "acme.yaml"
    assert cli.main(["profile", "init", str(path), "--name", "acme"]) == 0
    assert yaml.safe_load(path.read_text())["name"] == "acme"
    assert cli.main(["profile", "check", str(path)]) == 0
    assert f"{path}: valid profile acme 0.1.0" in capsys.readouterr().out


def test_profile_init_never_overwrites_without_force(tmp_path, capsys):
    path = tmp_path / "mine.yaml"
    path.write_text("mine\n")
    assert cli.main(["profile", "init", str(path)]) == ExitCode.INVALID_INPUT
    assert "exists; pass --force" in capsys.readouterr().err
    assert path.read_text() == "mine\n"
    assert cli.main(["profile", "init", str(path), "--force"]) == 0


def test_profile_check_names_the_file_and_the_key(tmp_path, capsys):
    path = tmp_path / "typo.yaml"
    assert cli.main(["profile", "init", str(path)]) == 0
    path.write_text(
        path.read_text().replace("[STATUS_FINALIZER]", "[STATUS_FINALISER]")
    )
    assert cli.main(["profile", "check", str(path)]) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert f"{path}: features[0]: unknown feature 'STATUS_FINALISER'" in err


def test_profile_check_refuses_undeclared_variables(capsys):
    code = cli.main(["profile", "check", "reference", "--profile-var", "nosuch=1"])
    assert code == ExitCode.INVALID_INPUT
    assert "unknown profile variable(s) nosuch" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["diff", "differential", "qualify", "history"])
def test_conformance_verbs_reach_python_m_conformance_under_their_name(
    monkeypatch, verb
):
    from wpc import suite_cli as conformance_cli

    seen: list[tuple[list[str], str]] = []
    monkeypatch.setattr(
        conformance_cli, "main", lambda argv, prog: seen.append((argv, prog)) or 0
    )
    assert cli.main([verb, "a", "b"]) == 0
    assert seen == [([verb, "a", "b"], "wpc")]


@pytest.mark.parametrize(
    ("verb", "flag"),
    [
        (["profile", "check", "reference"], "--profile-var"),
        # Failed before: `dict(v.split("=", 1))` raised a ValueError traceback.
        (["uninstall", "--implementation", "reference"], "--profile-var"),
        (["images", "export", "out"], "--profile-var"),
        # Failed before: argparse's usage error (exit 2) for a missing `=`, and
        # SystemExit 1 for a name given twice.
        (["bench", "--skip-prepare"], "--profile-var"),
        (["differential", "--a", "reference", "--b", "reference"], "--profile-var-b"),
    ],
)
@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["novalue"], "must look like NAME=VALUE, not 'novalue'"),
        (["=x"], "must look like NAME=VALUE, not '=x'"),
        (["ref=a", "ref=b"], "ref given twice"),
    ],
)
def test_every_verb_refuses_a_bad_profile_variable_alike(
    capsys, verb, flag, given, message
):
    argv = [*verb, *(word for item in given for word in (flag, item))]
    assert cli.main(argv) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert f"error: {flag} {message}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "verb",
    [
        ["run", "--implementation", "reference"],
        ["bench"],
        ["uninstall", "--implementation", "reference"],
        ["qualify"],
        ["history", "run"],
        ["chaos", "run"],
    ],
)
def test_every_verb_refuses_a_bad_layout_alike(capsys, verb):
    # Failed before: argparse's "invalid choice", in each verb's own order of the
    # choices, and bench's "--layout --layout must be ..."; the plugin's ini key,
    # WPC_CHAOS_LAYOUT and the Makefile said it otherwise or not at all. Now
    # conformance.harness.instances.layouts says it once.
    with pytest.raises(SystemExit) as exited:
        cli.main([*verb, "--layout", "sideways"])
    assert exited.value.code == 2
    assert (
        "argument --layout: must be legacy, initless or both, not 'sideways'"
        in capsys.readouterr().err
    )


def test_the_differential_takes_one_layout_and_says_so_alike(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["differential", "--a", "x", "--b", "y", "--layout", "both"])
    assert exited.value.code == 2
    assert (
        "argument --layout: must be legacy or initless, not 'both'"
        in capsys.readouterr().err
    )
