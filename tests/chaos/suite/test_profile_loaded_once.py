"""We test these aspects of how often `wpc chaos run` reads the profile
(issue 25 item 3: a profile is loaded once per process, and passed on):

- the launcher parses and validates it once (the report it summarises is
  named after the profile), and `--list` not at all;
- a pytest process of the chaos suite loads it once, for its target, and every
  case reads that Profile object: whether the experiment applies, the report
  it writes to, the chaos instances it installs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from chaos.suite import experimenting
from chaos.suite import experiments
from chaos.suite import parallel
from conformance.harness.instances import layouts
from tests import profileloads


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `profiles.load` of this process from now on, by the name it loaded."""
    for name in ("WPC_CHAOS_IMPLEMENTATION", "WPC_CHAOS_PROFILE_VARS"):
        monkeypatch.delenv(name, raising=False)
    return profileloads.counted(monkeypatch)


def test_a_chaos_suite_process_loads_the_profile_once(loads: list[str]) -> None:
    target = experiments._target()
    cases = experimenting.cases(layouts.parse_selection(layouts.BOTH))
    assert len(cases) > 10
    for path, _layout in cases:
        experimenting.unmet(path, target)
        experimenting.profile_name(target)
    assert experimenting.profile_of(target) is target.profile
    assert loads == ["reference"]


def arguments(reports: Path, *, listing: bool) -> argparse.Namespace:
    return argparse.Namespace(
        list=listing, report=None, reports=reports, layout="both", pytest_args=[]
    )


def test_the_launcher_loads_the_profile_once_and_list_not_at_all(
    loads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(parallel, "_say", lambda text: None)
    assert parallel.run(arguments(tmp_path, listing=True)) == 0
    assert loads == []
    monkeypatch.setattr(parallel, "run_phases", lambda *args: [])
    monkeypatch.setattr(parallel, "summary", lambda report: [str(report)])
    assert parallel.run(arguments(tmp_path, listing=False)) == 0
    assert loads == ["reference"]
