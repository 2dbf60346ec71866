"""We test the skip gate of `make test` (tests/skipgate.py, tests/capabilities.py).

Aspects: under WPC_STRICT_SKIPS=1 a declared skip passes and is listed; an undeclared
one fails the session and is named with its reason (also a module-level skip, also
across xdist workers); a declared reason at a test the row does not name is undeclared;
skips outside tests/ and xfail markers are not judged, but an imperative pytest.xfail()
is judged as a skip (also in a fixture); without the variable nothing is judged;
a bad value is a usage error. The table: malformed rows are rejected naming the row,
every row names test files that exist, and the real skip sites (run where their input
is missing) give reasons their rows accept.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import capabilities
from tests.capabilities import Capability

REPO = Path(__file__).resolve().parent.parent
PENDING = """
import pytest

def test_row():
    pytest.skip("pending: no scenario kills this fault yet")
"""
UNDECLARED = """
import pytest

def test_needs_a_tool():
    pytest.skip("frobnicate is not installed")

def test_runs():
    pass
"""


@pytest.fixture
def gated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("WPC_STRICT_SKIPS", "1")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "tests.skipgate", "-p", "no:cacheprovider", *args)


def test_a_declared_skip_passes_and_is_listed(gated):
    gated.makepyfile(**{"tests/negative/test_negative_controls": PENDING})
    result = run(gated)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*declared skips*",
            "negative-pending-row: tests/negative/*::test_row: pending*",
        ]
    )
    assert "UNDECLARED" not in result.stdout.str()


def test_an_undeclared_skip_fails_the_session_and_is_named(gated):
    gated.makepyfile(**{"tests/test_tools": UNDECLARED})
    result = run(gated)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*WPC_STRICT_SKIPS: 1 undeclared skip(s) fail the session*",
            "UNDECLARED SKIP tests/test_tools.py::test_needs_a_tool: "
            "frobnicate is not installed",
        ]
    )


def test_a_skipif_marker_is_judged_like_a_skip_call(gated):
    gated.makepyfile(
        **{
            "tests/test_marked": """
import pytest

@pytest.mark.skipif(True, reason="kubectl is not installed")
def test_rbac():
    pass
"""
        }
    )
    result = run(gated)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["UNDECLARED SKIP tests/test_marked.py::test_rbac: kubectl is not installed"]
    )


def test_a_module_level_skip_is_judged(gated):
    gated.makepyfile(
        **{
            "tests/test_module": """
import pytest

pytest.skip("no frobnicator", allow_module_level=True)

def test_never():
    pass
"""
        }
    )
    result = run(gated)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["UNDECLARED SKIP tests/test_module.py: no frobnicator"]
    )


def test_a_declared_reason_elsewhere_is_undeclared(gated):
    gated.makepyfile(**{"tests/test_elsewhere": PENDING})
    result = run(gated)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["UNDECLARED SKIP tests/test_elsewhere.py::test_row:*"])


def test_skips_outside_tests_and_xfails_are_not_judged(gated):
    gated.makepyfile(
        **{
            "conformance/tests/test_scenario": UNDECLARED,
            "tests/test_xfail": """
import pytest

@pytest.mark.xfail(reason="known", strict=True)
def test_known():
    assert False
""",
        }
    )
    result = run(gated)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)
    assert "UNDECLARED" not in result.stdout.str()


@pytest.mark.parametrize(
    ("where", "source"),
    [
        (
            "test_bails_out",
            "def test_bails_out():\n    pytest.xfail('no frobnicator')\n",
        ),
        (
            "test_uses_it",
            "@pytest.fixture\ndef it():\n    pytest.xfail('no frobnicator')\n\n"
            "def test_uses_it(it):\n    pass\n",
        ),
    ],
)
def test_an_imperative_xfail_is_judged_like_a_skip(gated, where, source):
    # Before: pytest.xfail() ended a test as "xfailed", past the gate (issue 29, item 7).
    gated.makepyfile(**{"tests/test_bail": "import pytest\n\n" + source})
    result = run(gated)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(
        [f"UNDECLARED SKIP tests/test_bail.py::{where}: xfail: no frobnicator"]
    )


def test_a_declared_imperative_xfail_passes(gated, monkeypatch):
    accepting = row(
        name="bail-row",
        reason=re.compile(r"^xfail: no frobnicator"),
        where=re.compile(r"^tests/test_bail\.py::"),
    )
    monkeypatch.setattr(capabilities, "DECLARED", (accepting,))
    gated.makepyfile(
        **{
            "tests/test_bail": "import pytest\n\ndef test_b():\n    pytest.xfail('no frobnicator')\n"
        }
    )
    result = gated.runpytest_inprocess("-p", "tests.skipgate", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["bail-row: tests/test_bail.py::test_b: xfail: no frobnicator"]
    )


def test_the_gate_is_off_without_the_variable(gated, monkeypatch):
    monkeypatch.delenv("WPC_STRICT_SKIPS")
    gated.makepyfile(**{"tests/test_tools": UNDECLARED})
    result = run(gated)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)
    assert "WPC_STRICT_SKIPS" not in result.stdout.str()


def test_zero_is_off_too(gated, monkeypatch):
    monkeypatch.setenv("WPC_STRICT_SKIPS", "0")
    gated.makepyfile(**{"tests/test_tools": UNDECLARED})
    assert run(gated).ret == pytest.ExitCode.OK


def test_another_value_is_a_usage_error(gated, monkeypatch):
    monkeypatch.setenv("WPC_STRICT_SKIPS", "yes")
    gated.makepyfile(**{"tests/test_tools": UNDECLARED})
    result = run(gated)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*WPC_STRICT_SKIPS='yes': use 1 (on) or 0*"])


@pytest.mark.slow
def test_xdist_workers_skips_reach_the_gate(gated, monkeypatch):
    # make test runs the unit stage with -n 2: the controller judges the workers' skips.
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    gated.makepyfile(**{"tests/test_tools": UNDECLARED})
    result = gated.runpytest_subprocess(
        "-p", "tests.skipgate", "-p", "no:cacheprovider", "-n", "2"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["UNDECLARED SKIP tests/test_tools.py::test_needs_a_tool: *"]
    )


def row(**changes: object) -> Capability:
    fields: dict[str, object] = {
        "name": "some-tool",
        "reason": re.compile(r"^some tool is absent"),
        "where": re.compile(r"^tests/test_x\.py::"),
        "why": "a good reason in several words",
    }
    fields.update(changes)
    return Capability(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([row(name="Bad Name")], r"capability name 'Bad Name'"),
        ([row(), row()], r"'some-tool' is declared twice"),
        ([row(reason=re.compile("absent"))], r"'some-tool': reason 'absent' must be"),
        ([row(where=re.compile("^.*"))], r"'some-tool': where '\^\.\*' must be"),
        ([row(why="because")], r"'some-tool': say why"),
    ],
)
def test_a_malformed_row_is_rejected_naming_it(rows, message):
    with pytest.raises(capabilities.DeclarationError, match=message):
        capabilities.check(rows)


def test_a_row_accepts_only_its_reason_at_its_tests():
    (ok,) = capabilities.check([row()])
    assert capabilities.declared("tests/test_x.py::t", "some tool is absent", [ok])
    assert not capabilities.declared("tests/test_y.py::t", "some tool is absent", [ok])
    assert not capabilities.declared("tests/test_x.py::t", "another reason", [ok])


@pytest.mark.parametrize("declared", capabilities.DECLARED, ids=lambda c: c.name)
def test_every_declared_row_names_test_files_that_exist(declared):
    files = [
        p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")
    ]
    assert [f for f in files if declared.where.match(f"{f}::test")], declared.where


def skip_of(call: Callable[[], object]) -> str:
    """The reason a real skip site gives, by running it where its input is missing."""
    with pytest.raises(pytest.skip.Exception) as skipped:
        call()
    return str(skipped.value.msg)


def test_the_real_skip_sites_give_declared_reasons(tmp_path, monkeypatch):
    # Each declared row against the reason its site produces today, so a reworded
    # skip does not turn into a failing make test on a machine the author lacks.
    from reference_impl.coverage import upstream
    from tests import test_packaging
    from tests.conformance import test_history
    from tests.negative import controls
    from tests.negative import test_negative_controls as negative
    from tests.reference_impl.coverage import test_fields

    monkeypatch.setattr(upstream, "MIRROR", tmp_path / "no-mirror")
    monkeypatch.setattr(test_packaging, "REPO", tmp_path)
    monkeypatch.setattr(negative, "record", lambda verdict: None)
    (mark,) = test_history.test_commits_exist_and_sit_between_their_tags.pytestmark
    chaos = next(r for r in controls.load() if r.status == controls.CHAOS)
    pending = dataclasses.replace(chaos, status=controls.PENDING)
    judge = (
        negative.test_the_suite_fails_the_killers_and_passes_the_canaries_of_each_fault
    )
    neg = "tests/negative/test_negative_controls.py::test_x"
    sites = {
        "tests/reference_impl/coverage/test_fields.py::t": skip_of(
            test_fields.test_upstreams_crd_yields_exactly_the_committed_paths
        ),
        "tests/conformance/test_history.py::t": mark.kwargs["reason"],
        "tests/test_packaging.py::t": skip_of(test_packaging._tracked_files),
        f"{neg}[chaos]": skip_of(lambda: judge(chaos, None)),
        f"{neg}[pending]": skip_of(lambda: judge(pending, None)),
    }
    assert {k: v for k, v in sites.items() if not capabilities.declared(k, v)} == {}


def test_a_run_with_conftests_below_the_root_collects_with_the_gate_on(gated):
    """pluggy keeps plugins in sets: an unhashable gate was an INTERNALERROR here.

    (A plain run of the cluster stage, which has conftest.py files in subfolders,
    hit it: `TypeError: unhashable type: 'Gate'` while collecting.)
    """
    gated.makepyfile(
        **{
            "tests/sub/conftest": "",
            "tests/sub/test_one": "def test_one():\n    pass\n",
            "tests/other/conftest": "",
            "tests/other/test_two": "def test_two():\n    pass\n",
        }
    )
    result = run(gated, "-m", "not nothing")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=2)
