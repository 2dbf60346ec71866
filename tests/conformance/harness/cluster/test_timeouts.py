"""We test these aspects of the named timeouts:

- every field has an attribute docstring (the spec's limit, or why the budget);
- the waits that check a spec limit state it as "Max value for a conformant implementation";
- scaled() multiplies the harness budgets but never a spec bound: every field
  whose docstring states a spec limit is in SPEC_BOUNDS (so a new one cannot be
  forgotten), and neither those nor the timing tolerance nor the poll interval
  move: at scale 3 a heartbeat 13 s late still breaks "every 5 s";
- a scale is a finite number of at least 1: NaN, infinity and anything below 1
  are refused (DataError naming the option);
- the spec bounds the slow scenarios wait on are the values SPEC.md states (its
  sentence quoted), the deleted-pod limit never undercuts upstream's 2-minute
  backstop, and the handshake scenario's own constants equal them (issue 27).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import itertools
import math
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.harness.cluster import timeouts


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


def _spec_text() -> str:
    path = Path(timeouts.__file__).parents[2] / "SPEC.md"
    return " ".join(path.read_text(encoding="utf-8").split())


@pytest.mark.parametrize(
    ("name", "seconds", "sentence"),
    [
        (
            "status_marker_appears",
            30,
            "If `/var/run/argo/status` does not exist 30 s after",
        ),
        ("status_marker_stale", 30, "modification time is more than 30 s old"),
        ("heartbeat_interval", 5, "MUST rewrite it at least every 5 s"),
        ("controller_stopped", 10, "the controller MUST stop on its own within 10 s"),
        ("plugin_socket", 120, "the 120 s plugin-socket wait"),
    ],
)
def test_each_spec_bound_is_the_value_spec_md_states(name, seconds, sentence):
    # Issue 27 item 2 cuts the slow scenarios' waiting, never a bound: these
    # are the limits SPEC.md sets, word for word, and the suite's values.
    assert sentence in _spec_text()
    assert getattr(timeouts.Timeouts(), name) == seconds
    assert name in timeouts.SPEC_BOUNDS


def test_the_deleted_pod_limit_never_undercuts_upstreams_2_minute_backstop():
    # RecoveryWithStatusFinalizer sits this out: the spec lets the controller keep
    # the finalizer of a deleted pod 2 minutes past its last condition transition.
    assert (
        "MAY keep the finalizer until 2 minutes after the pod's last condition "
        "transition" in _spec_text()
    )
    assert timeouts.Timeouts().status_finalizer_removed >= 120
    assert "status_finalizer_removed" in timeouts.SPEC_BOUNDS


def test_the_slow_scenarios_use_the_spec_values_not_copies_of_their_own():
    from conformance.tests.handshake import test_handshake_marker

    base = timeouts.Timeouts()
    assert base.heartbeat_interval == test_handshake_marker.HEARTBEAT
    assert base.status_marker_stale == test_handshake_marker.DEAD_AFTER
    module = importlib.import_module(
        "conformance.tests.recovery.test_recovery_with_status_finalizer"
    )
    assert "timeouts.status_finalizer_removed" in inspect.getsource(module)
