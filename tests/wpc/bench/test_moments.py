"""We test these aspects of combining the API's whole-second timestamps with
watch arrival times: the midpoint and the upper bound of what both allow (the
API's second alone, the arrival alone, an arrival within or after that second,
an arrival that crossed the second boundary), and the boot-clock skew bounds
that tell whether a container shares this host's clock.
"""

from __future__ import annotations

import pytest

from wpc.bench import moments


@pytest.mark.parametrize(
    ("api", "seen", "expected"),
    [
        (100.0, None, 100.5),  # only the API's second: its middle
        (None, 100.3, 100.3),  # only the arrival
        (100.0, 100.2, 100.1),  # arrived within the second: [100, 100.2]
        (100.0, 103.0, 100.5),  # arrived late: the second bounds it
        (100.0, 99.8, 100.0),  # arrival just before the truncated second
        (None, None, None),
    ],
)
def test_the_estimate_is_the_midpoint_of_what_both_sources_allow(api, seen, expected):
    assert moments.Moment(api=api, seen=seen).estimate() == pytest.approx(expected)


@pytest.mark.parametrize(
    ("api", "seen", "expected"),
    [
        (100.0, None, 100.5),  # only the API's second: its middle
        (None, 100.3, 100.3),  # only the arrival
        (100.0, 100.2, 100.2),  # arrived within the second: the arrival
        (100.0, 103.0, 101.0),  # arrived late: the end of the second
        (100.0, 99.8, 100.0),  # arrival just before the truncated second
    ],
)
def test_the_latest_moment_is_the_upper_bound_both_allow(api, seen, expected):
    assert moments.Moment(api=api, seen=seen).latest() == pytest.approx(expected)


def test_later_skips_unknown_moments():
    assert moments.later(None, 2.0, 1.0) == 2.0
    assert moments.later(None, None) is None


@pytest.mark.parametrize(
    ("skew", "ok"), [(-1.0, True), (0.0, True), (4.0, True), (-2.0, False), (95, False)]
)
def test_clock_skew_bounds(skew, ok):
    assert moments.skew_ok(skew) is ok
