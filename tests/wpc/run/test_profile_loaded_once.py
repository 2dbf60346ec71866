"""We test these aspects of how often the launcher of `wpc run` reads the profile
(issue 25 item 3: a profile is loaded once per process, and passed on):

- `wpc run --list` parses and validates it once (the in-process collection);
- `wpc run` and `wpc run --select NAME` parse it once, in the preflight: the
  collection that checks the selection takes that Profile object, and so do
  the pytest command line and the report paths;
- a profile preloaded for other `--profile-var` values is not taken: the
  collection loads its own.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from conformance.implementations import profiles
from conformance.plugin.selection import listing
from conformance.plugin.state import preloaded
from tests import profileloads
from wpc import suite_cli as cli
from wpc.run import launching


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `profiles.load` of this process from now on, by the name it loaded."""
    return profileloads.counted(monkeypatch)


def run(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()):
        return cli.main(argv)


def test_run_list_loads_the_profile_once(loads: list[str]) -> None:
    assert run(["run", "--implementation", "reference", "--list"]) == 0
    assert loads == ["reference"]


@pytest.mark.parametrize("select", [[], ["--select", "HelloWorld"]])
def test_run_loads_the_profile_once_and_passes_it_on(
    loads: list[str], monkeypatch: pytest.MonkeyPatch, select: list[str]
) -> None:
    started: list[launching.RunRequest] = []
    monkeypatch.setattr(launching, "run", lambda r: started.append(r) or 0)
    assert run(["run", "--implementation", "reference", *select]) == 0
    assert loads == ["reference"]
    request = started[0]
    assert request.profile is not None
    launching.pytest_command(request)
    launching.report_path(request)
    assert loads == ["reference"]


def test_a_profile_loaded_for_other_variables_is_not_taken(loads: list[str]) -> None:
    profile = profiles.load("reference")
    other = preloaded.Preloaded(
        profile=profile, implementation="reference", variables={"tag": "other"}
    )
    args = ["--wpc-implementation", "reference", "--wpc-select", "HelloWorld"]
    with contextlib.redirect_stdout(io.StringIO()):
        found = listing.collect(args, profile=other)
    assert found.exit_code == 0
    assert loads == ["reference", "reference"]
