"""We test these aspects of the named timeouts:

- every field has an attribute docstring (the spec's limit, or why the budget);
- the waits that check a spec limit state it as "Max value for a conformant implementation";
- scaled() multiplies the harness budgets but never a spec bound: every field
  whose docstring states a spec limit is in SPEC_BOUNDS (so a new one cannot be
  forgotten), and neither those nor the timing tolerance nor the poll interval
  move: at scale 3 a heartbeat 13 s late still breaks "every 5 s";
- a scale is a finite number of at least 1: NaN, infinity and anything below 1
  are refused (DataError naming the option).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import math

import pytest

from conformance.errors import DataError
from conformance.harness import timeouts


def _field_docstrings() -> dict[str, str]:
    tree = ast.parse(inspect.getsource(timeouts.Timeouts))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, following in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr):
            assert isinstance(node.target, ast.Name)
            assert isinstance(following.value, ast.Constant)
            docs[node.target.id] = str(following.value.value)
    return docs


def test_every_timeout_is_documented():
    names = {f.name for f in dataclasses.fields(timeouts.Timeouts)}
    assert set(_field_docstrings()) == names


@pytest.mark.parametrize(
    "name",
    [
        "status_marker_appears",
        "status_marker_stale",
        "heartbeat_interval",
        "plugin_socket",
        "controller_stopped",
    ],
)
def test_spec_limits_are_stated(name):
    assert "Max value for a conformant implementation" in _field_docstrings()[name]


def test_scaling_multiplies_waits_only():
    base = timeouts.Timeouts()
    doubled = base.scaled(2)
    assert doubled.workflow_completed == 2 * base.workflow_completed
    assert doubled.poll_interval == base.poll_interval
    assert doubled.heartbeat_interval == base.heartbeat_interval


@pytest.mark.parametrize("factor", [0, -1, 0.5, math.nan, math.inf, -math.inf])
def test_a_scale_below_1_or_not_finite_is_refused(factor):
    # A NaN wait never runs out; below 1 the windows in which nothing must happen
    # shrink (issue 29, item 5).
    with pytest.raises(
        DataError, match=r"^--scale .*: must be a finite number of at least 1"
    ):
        timeouts.checked_scale(factor, "--scale")
    with pytest.raises(DataError, match="at least 1"):
        timeouts.Timeouts().scaled(factor)


@pytest.mark.parametrize("factor", [1, 1.0, 2.5])
def test_a_finite_scale_of_at_least_1_is_taken(factor):
    assert timeouts.checked_scale(factor, "--scale") == factor


SPEC_LIMIT = "Max value for a conformant implementation"


def test_every_stated_spec_limit_is_a_spec_bound():
    stated = {n for n, doc in _field_docstrings().items() if SPEC_LIMIT in doc}
    assert stated == timeouts.SPEC_BOUNDS - {"timing_tolerance"}


def test_scaling_never_moves_a_spec_bound():
    base = timeouts.Timeouts()
    tripled = base.scaled(3)
    for name in timeouts.SPEC_BOUNDS:
        assert getattr(tripled, name) == getattr(base, name), name
    assert tripled.namespace_deleted == 3 * base.namespace_deleted
    # The handshake clause's bound: "every 5 s", plus the named tolerance.
    assert tripled.heartbeat_interval + tripled.timing_tolerance < 13.0
