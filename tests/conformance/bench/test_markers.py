"""We test these aspects of the start marker and API timestamps: the user
command reads the clock before anything else, a log with exactly one marker
parses (surrounded by other output), and missing, duplicated or malformed
markers raise MarkerError with the log tail; RFC 3339 timestamps with and
without fractions become epoch seconds.
"""

from __future__ import annotations

import pytest

from reference_impl.bench import markers
from reference_impl.bench import timestamps
from reference_impl.bench.errors import MarkerError


def test_the_script_reads_the_clock_first_with_a_builtin():
    assert markers.SCRIPT.startswith("read -r WPC_UP WPC_IDLE </proc/uptime;")


def test_one_marker_among_other_lines_parses():
    log = "noise\nwpc-bench-start uptime=4059.18 wall=1795318924\ntrailer\n"
    assert markers.parse(log) == markers.StartMarker(uptime=4059.18, wall=1795318924)


def test_integer_uptime_parses():
    assert markers.parse("wpc-bench-start uptime=12 wall=3").uptime == 12.0


@pytest.mark.parametrize(
    "log",
    [
        "",
        "hello\n",
        "wpc-bench-start uptime= wall=1\n",
        "wpc-bench-start uptime=1.0 wall=1.5\n",
        "wpc-bench-start uptime=1.0 wall=1\nwpc-bench-start uptime=2.0 wall=2\n",
    ],
)
def test_missing_duplicated_or_malformed_markers_raise(log):
    with pytest.raises(MarkerError, match="expected exactly one"):
        markers.parse(log)


def test_second_resolution_timestamp():
    assert timestamps.epoch("2026-11-22T03:23:12Z") == 1795317792.0


def test_sub_second_timestamp_with_offset():
    assert timestamps.epoch("2026-11-22T04:23:12.250000+01:00") == 1795317792.25


def test_timestamp_without_zone_is_rejected():
    with pytest.raises(ValueError, match="time zone"):
        timestamps.epoch("2026-11-22T03:23:12")
