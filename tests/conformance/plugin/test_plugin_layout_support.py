"""We test how a run claims only the layouts its build can run, end to end with pytester:

- when preparing finds that the build cannot run a layout the profile claims (the
  profile's `layouts` command; upstream v4.0.x has no init-less layout), that
  layout's items are skipped as not claimed, with the build's reason, and the
  other layout's items run;
- the header says which layouts are claimed and why one is not;
- the ConformanceReport claims only the layout the build runs, drops its feature,
  names the other with its reason, and still validates;
- pytest-xdist workers narrow their claims alike (they collect and skip).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from conformance.report.runs import documents
from tests.conformance.conftest import FAKE_CLUSTER_CONFTEST
from tests.conformance.conftest import wpc_args

REPO = Path(__file__).resolve().parents[3]
REASON = "no init-less layout in this source"
HELLO = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Hello", clauses=["WPC-POD-001"])
    def test_hello():
        pass
    """
)


@pytest.fixture
def legacy_only_build(pytester: pytest.Pytester) -> pytest.Pytester:
    """The fake cluster hook, preparing a build that has no init-less layout."""
    hook = FAKE_CLUSTER_CONFTEST.replace(
        "instances=tuple(profile.instance(l) for l in settings.layouts if l in profile.layouts),",
        "instances=(profile.instance('legacy'),),\n"
        f"            unsupported_layouts={{'initless': {REASON!r}}},",
    )
    assert hook != FAKE_CLUSTER_CONFTEST  # the fake hook still has that line
    pytester.makeconftest(hook)
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_hello=HELLO)
    return pytester


def test_the_layout_the_build_lacks_is_not_claimed_and_says_why(
    legacy_only_build: pytest.Pytester,
) -> None:
    report = legacy_only_build.path / "reports" / "conformance-fake.yaml"
    result = legacy_only_build.runpytest(*wpc_args("-rs", "--wpc-report", str(report)))
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "wpc: layouts selected legacy, initless; claimed legacy",
            f"wpc: layout initless not claimed: {REASON}",
            "SKIPPED * implementation does not claim INITLESS_LAYOUT "
            f"(INITLESS_LAYOUT: {REASON})",
        ]
    )
    doc = yaml.safe_load(report.read_text())
    documents.validate(doc)
    implementation = doc["implementation"]
    assert implementation["claimedLayouts"] == ["legacy"]
    assert "INITLESS_LAYOUT" not in implementation["claimedFeatures"]
    assert "LEGACY_LAYOUT" in implementation["claimedFeatures"]
    assert implementation["unsupportedLayouts"] == {"initless": REASON}
    assert "INITLESS_LAYOUT" not in doc["run"]["selectedFeatures"]
    page = report.with_suffix(".html").read_text()
    assert f"not initless: {REASON}" in page


def test_a_build_with_every_layout_claims_what_the_profile_claims(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_hello=HELLO)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report)))
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["wpc: layouts selected legacy, initless; claimed legacy, initless"]
    )
    assert "wpc: layout initless not claimed" not in result.stdout.str()
    implementation = yaml.safe_load(report.read_text())["implementation"]
    assert implementation["claimedLayouts"] == ["legacy", "initless"]
    assert implementation["unsupportedLayouts"] == {}


@pytest.mark.slow
def test_xdist_workers_skip_the_layout_the_build_lacks(
    legacy_only_build: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The subprocess imports this checkout's suite, not whichever one is installed.
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    result = legacy_only_build.runpytest_subprocess(*wpc_args("-n", "2", "-rs"))
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"SKIPPED * implementation does not claim INITLESS_LAYOUT (*{REASON})"]
    )
