"""We test these aspects of `python -m conformance run --list` (and `wpc run --list`):

- for the reference profile it lists test_hello_world to run in both layouts, a
  test skipped because the implementation does not claim its feature (with that
  reason), and a test not applicable in a layout its clauses do not cover;
- --layout legacy lists the initless items as not selected, and `-- -k` narrows
  the listing as it would narrow a run;
- it touches no cluster and changes nothing: KUBECONFIG names a missing file,
  and `clusters up`, the run's preparation and every Kubernetes client refuse;
- a bad option or profile (malformed, not UTF-8) fails with exit 10 (invalid input,
  as `run` says in preflight) naming the mistake, not an empty list nor a traceback;
- the command itself, run as a user runs it (a new process, where pytest
  starts after the launcher imported the project), lists the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.exitcodes import ExitCode
from conformance.implementations import preparing
from conformance.plugin.selection import listing
from plumbing import forwarding
from wpc import cli as wpc_cli
from wpc import suite_cli as cli
from wpc.run import launching

HELLO = "HelloWorld"
"""test_hello_world.py's one test, by its identity without the layout."""


def refuse(*args, **kwargs):
    raise AssertionError(f"--list touched the cluster or the host: {args} {kwargs}")


@pytest.fixture
def no_cluster(monkeypatch, tmp_path):
    import kubernetes.config

    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing" / "kubeconfig"))
    # What the launcher starts its children with (`clusters up`, pytest).
    monkeypatch.setattr(forwarding, "run_to_end", refuse)
    monkeypatch.setattr(forwarding, "run_forwarding", refuse)
    monkeypatch.setattr(preparing, "prepare_run", refuse)
    monkeypatch.setattr(kubernetes.config, "new_client_from_config", refuse)
    monkeypatch.setattr(kubernetes.config, "load_kube_config", refuse)
    return tmp_path


def listed(capsys, *argv: str) -> list[str]:
    assert cli.main(["run", "--implementation", "reference", "--list", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def line_of(lines: list[str], status: str, layout: str, test_id: str) -> str:
    found = [
        line
        for line in lines
        if line.startswith(f"{status} ")
        and f" {layout} " in line
        and f" {test_id}  " in line
    ]
    assert len(found) == 1, (status, layout, test_id, lines)
    return found[0]


def test_reference_lists_hello_world_in_both_layouts_and_says_why_others_skip(
    no_cluster, capsys
):
    lines = listed(capsys)
    line_of(lines, "run", "legacy", f"{HELLO}[legacy]")
    line_of(lines, "run", "initless", f"{HELLO}[initless]")
    skipped = line_of(
        lines,
        "skip",
        "initless",
        "InitlessArtifactPlugins[initless]",
    )
    assert skipped.endswith("(implementation does not claim ARTIFACT_PLUGINS)")
    not_applicable = line_of(
        lines,
        "not applicable",
        "legacy",
        "InitlessPodShape[legacy]",
    )
    assert not_applicable.endswith("(its clauses apply only to initless)")
    assert lines[-1].endswith("0 not selected, 14 not applicable")
    assert not (no_cluster / "missing").exists()


def test_one_layout_and_a_keyword_narrow_the_listing_as_they_narrow_a_run(
    no_cluster, capsys
):
    lines = listed(capsys, "--layout", "legacy", "--", "-k", "test_hello_world")
    line_of(lines, "run", "legacy", f"{HELLO}[legacy]")
    assert "layout not selected with --layout" in line_of(
        lines, "not selected", "initless", f"{HELLO}[initless]"
    )
    assert lines[-1].startswith("1 run, 0 skip")


def test_wpc_run_list_is_the_same_command(no_cluster, capsys):
    assert wpc_cli.main(["run", "--implementation", "reference", "--list"]) == 0
    line_of(
        capsys.readouterr().out.splitlines(), "run", "initless", f"{HELLO}[initless]"
    )


def test_an_unknown_feature_is_invalid_input_not_an_empty_list(no_cluster, capsys):
    code = cli.main(
        ["run", "--implementation", "reference", "--features", "NOPE", "--list"]
    )
    assert code == ExitCode.INVALID_INPUT
    assert "unknown feature(s) NOPE" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"name: [unclosed\n", "not valid YAML"),
        (b"name: caf\xe9\n", "is not UTF-8 text: byte 0xe9 at offset 9"),
    ],
)
def test_a_broken_profile_is_invalid_input(no_cluster, capsys, content, named):
    # Before: a malformed profile exited 4, one that is not UTF-8 3 (INTERNALERROR).
    profile = no_cluster / "broken.yaml"
    profile.write_bytes(content)
    code = cli.main(["run", "--implementation", str(profile), "--list"])
    err = capsys.readouterr().err
    assert code == ExitCode.INVALID_INPUT, err
    assert f"{profile}: " in err
    assert named in err
    assert "Traceback" not in err
    assert "INTERNALERROR" not in err


def test_the_lister_refuses_to_prepare_a_run():
    with pytest.raises(Exception, match="never prepares a run"):
        listing.Lister().pytest_wpc_prepare_run(config=None)


def test_list_arguments_leave_the_reports_out():
    request = launching.RunRequest(
        options={"wpc_implementation": "reference", "wpc_report": "r.yaml"},
        reports_dir=Path("reports"),
        pytest_args=("-k", "x"),
    )
    args = launching.list_arguments(request)
    assert args[:4] == ["--wpc-implementation", "reference", "--wpc-layout", "both"]
    assert "--wpc-report" not in args
    assert args[-2:] == ["-k", "x"]


def test_the_command_as_users_run_it_lists(tmp_path: Path):
    # In-process tests above run inside pytest, where the plugin is loaded already;
    # only a new process shows what `python -m conformance run --list` does.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--implementation",
            "reference",
            "--list",
        ],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "KUBECONFIG": str(tmp_path / "missing")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{HELLO}[legacy]" in proc.stdout


def test_shards_list_each_item_once_and_add_up_to_the_whole(no_cluster, capsys):
    """An item another shard runs is listed once, as not selected, and says why."""

    def counted(*argv: str) -> tuple[list[str], str]:
        lines = listed(capsys, *argv)
        return lines, lines[-1]

    _, whole = counted()
    assert whole.startswith("111 run, 19 skip, 0 not selected"), whole
    all_runs, all_skips = (int(w) for w in whole.replace(",", "").split()[0:3:2])
    runs = skips = 0
    for index in (1, 2, 3, 4):
        lines, total = counted("--shard", f"{index}/4")
        items = [line.split()[2] for line in lines if line.split()[:1] == ["run"]]
        assert len(items) == len(set(items)), f"shard {index}: {total}"
        words = total.replace(",", "").split()
        runs, skips = runs + int(words[0]), skips + int(words[2])
        assert words[4:7] == [
            str(all_runs + all_skips - int(words[0]) - int(words[2])),
            "not",
            "selected",
        ]
        assert total.endswith("14 not applicable"), total
        assert any("(in another shard (--shard))" in line for line in lines)
    assert (runs, skips) == (all_runs, all_skips)
