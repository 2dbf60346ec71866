"""We test these aspects of the profile the plugin runs with (issue 25 item 3):

- a pytest process with the plugin active parses and validates the profile
  once, in `pytest_configure`, however many items it runs;
- handed a profile loaded for the same implementation and variables
  (`preloaded.Preloaded`, as `wpc run` does for its in-process collection), it
  loads none and selects exactly what it selects when it loads the profile.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from conformance.implementations import profiles
from conformance.plugin.selection import listing
from conformance.plugin.state import preloaded
from tests import profileloads
from tests.conformance.conftest import PROFILE
from tests.conformance.conftest import wpc_args


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `profiles.load` of this process from now on, by the name it loaded."""
    return profileloads.counted(monkeypatch)


def test_a_run_loads_its_profile_once(suite: pytest.Pytester, loads: list[str]) -> None:
    for name in ("one", "two", "three"):
        suite.makepyfile(
            **{
                f"test_{name}": f"""
                import pytest

                @pytest.mark.conformance(short_name="{name.title()}", clauses=["WPC-POD-001"])
                def test_{name}():
                    pass
                """
            }
        )
    result = suite.runpytest(*wpc_args())
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=6)
    assert loads == [str(PROFILE)]


def listed(profile: preloaded.Preloaded | None) -> listing.Listing:
    args = ["--wpc-implementation", "reference", "--wpc-select", "HelloWorld"]
    with contextlib.redirect_stdout(io.StringIO()):
        return listing.collect(args, profile=profile)


def test_a_preloaded_profile_is_taken_as_it_is(loads: list[str]) -> None:
    loaded = listed(None)
    assert loads == ["reference"]
    given = preloaded.Preloaded(
        profile=profiles.load("reference"), implementation="reference"
    )
    loads.clear()
    assert listed(given) == loaded
    assert loads == []
