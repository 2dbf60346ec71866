"""We test these aspects of selecting tests by the names users see (`--select`):

- `wpc run --implementation reference --select HelloWorld --list` lists exactly
  the 2 HelloWorld items, and counts what it left out; with `--layout legacy`
  the other layout's HelloWorld item is "not selected" and no other test shows;
- a clause ID, an area and a glob select the items citing or named by them, and
  selectors add up;
- a selector matching nothing is an error naming it (exit 10), also beside a
  good one, from `--list`, from `wpc run` before any cluster is touched, and
  from plain pytest's `--wpc-select`;
- under plain pytest only the selected items run and reach the report.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from conformance.exitcodes import ExitCode
from conformance.implementations import preparing
from conformance.plugin.selection import listing
from plumbing import forwarding
from tests.conformance.conftest import wpc_args
from wpc import cli as wpc_cli
from wpc import suite_cli as cli
from wpc.run import launching
from wpc.run import targeting


def refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"a dud --select reached the cluster: {args} {kwargs}")


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing" / "kubeconfig"))
    monkeypatch.setattr(forwarding, "run_to_end", refuse)
    monkeypatch.setattr(forwarding, "run_forwarding", refuse)
    monkeypatch.setattr(launching, "run", refuse)
    monkeypatch.setattr(preparing, "prepare_run", refuse)
    return tmp_path


def listed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The listing's lines after the first, which names the cluster a run would use."""
    cluster, *lines = capsys.readouterr().out.splitlines()
    assert cluster.startswith(targeting.PREFIX), cluster
    return lines


def entries(capsys: pytest.CaptureFixture[str], *selectors: str) -> list[str]:
    argv = ["run", "--implementation", "reference", "--list"]
    for selector in selectors:
        argv += ["--select", selector]
    assert wpc_cli.main(argv) == 0
    lines = listed(capsys)
    return [line for line in lines[:-1] if not line.startswith("collection error")]


def id_of(line: str) -> str:
    """The identity column of a listing line (after the status and layout columns)."""
    return line[25:].split()[0]


def test_a_short_name_lists_exactly_its_items(no_cluster, capsys) -> None:
    argv = ["run", "--implementation", "reference", "--select", "HelloWorld", "--list"]
    assert wpc_cli.main(argv) == 0
    lines = listed(capsys)
    assert [line.split()[:3] for line in lines[:-1]] == [
        ["run", "legacy", "HelloWorld[legacy]"],
        ["run", "initless", "HelloWorld[initless]"],
    ]
    assert lines[-1].startswith("2 run, 0 skip, 0 not selected, 0 not applicable, ")
    assert lines[-1].endswith(" left out by --select")


def test_with_one_layout_only_the_selection_is_listed(no_cluster, capsys) -> None:
    argv = ["run", "--implementation", "reference", "--layout", "legacy"]
    assert wpc_cli.main([*argv, "--select", "HelloWorld", "--list"]) == 0
    lines = listed(capsys)
    assert [(line[:14].strip(), id_of(line)) for line in lines[:-1]] == [
        ("run", "HelloWorld[legacy]"),
        ("not selected", "HelloWorld[initless]"),
    ]


def test_a_clause_an_area_and_a_glob_select_what_they_name(no_cluster, capsys) -> None:
    by_clause = entries(capsys, "WPC-KILL-003")
    assert by_clause
    assert all("WPC-KILL-003" in line for line in by_clause)
    assert {id_of(line) for line in by_clause} == {
        "KillSidecars[legacy]",
        "KillSidecars[initless]",
    }
    by_area = entries(capsys, "KILL")
    assert len(by_area) > len(by_clause)
    assert all(" WPC-KILL-" in line for line in by_area)
    by_glob = entries(capsys, "Status*")
    assert by_glob
    assert all(id_of(line).startswith("Status") for line in by_glob)
    both = entries(capsys, "WPC-KILL-003", "HelloWorld")
    assert len(both) == len(by_clause) + 2


@pytest.mark.parametrize(
    "selectors", [["Nope"], ["HelloWorld", "Nope"], ["WPC-NOPE-*"]], ids=repr
)
def test_a_selector_matching_nothing_is_an_error_naming_it(
    no_cluster, capsys, selectors: list[str]
) -> None:
    argv = ["run", "--implementation", "reference", "--list"]
    for selector in selectors:
        argv += ["--select", selector]
    assert cli.main(argv) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert f"--select {selectors[-1]!r}: matches no test" in err
    assert "HelloWorld'" not in err  # the good one is not blamed


def test_a_run_with_a_dud_selector_stops_before_the_cluster(no_cluster, capsys) -> None:
    kubeconfig = no_cluster / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\n")
    argv = ["run", "--implementation", "reference", "--kubeconfig", str(kubeconfig)]
    assert cli.main([*argv, "--select", "Nope"]) == ExitCode.INVALID_INPUT
    assert "--select 'Nope': matches no test" in capsys.readouterr().err


def test_the_launcher_passes_the_selection_to_pytest() -> None:
    request = launching.RunRequest(
        options={"wpc_implementation": "reference", "wpc_select": ["A", "WPC-X-*"]},
        reports_dir=Path("reports"),
    )
    for args in (launching.pytest_command(request), launching.list_arguments(request)):
        joined = " ".join(args)
        assert "--wpc-select A --wpc-select WPC-X-*" in joined


TWO = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Finalizer", clauses=["WPC-FINALIZER-001"])
    def test_finalizer():
        pass
    """
)
OTHER = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Pods", clauses=["WPC-POD-001"])
    def test_pods():
        pass
    """
)


def test_plain_pytest_runs_and_reports_only_the_selection(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_finalizer=TWO, test_pods=OTHER)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(
        *wpc_args("--wpc-report", str(report), "--wpc-select", "WPC-POD-*")
    )
    result.assert_outcomes(passed=2)
    doc = yaml.safe_load(report.read_text())
    assert [t["id"] for t in doc["tests"]] == ["Pods[legacy]", "Pods[initless]"]


def test_plain_pytest_stops_on_a_dud_selector(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_finalizer=TWO)
    result = suite.runpytest(*wpc_args("--wpc-select", "Nope"))
    assert result.ret == ExitCode.INVALID_INPUT
    result.stdout.fnmatch_lines(["*--select 'Nope': matches no test*"])


def test_the_listing_counts_what_a_selection_left_out() -> None:
    found = listing.Listing(0, (), (), left_out=3)
    assert found.lines() == [
        "0 run, 0 skip, 0 not selected, 0 not applicable, 3 left out by --select"
    ]
