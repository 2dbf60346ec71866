"""The quoted strings govaluate reads as times, and the Unix seconds they stand for.

govaluate (`parsing.go` `tryParseTime`) turns a quoted string in one of several time
layouts into a time, so `'2024-01-02' < '2024-02-01'` compares instants rather than
strings. The controller runs in UTC, as upstream's image does, so times without a zone
are UTC. Written from those facts, not copied.
"""

from __future__ import annotations

import datetime
import re

_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_ZONE = r"(Z|[+-]\d{2}:?\d{2})"
_TIME_FORMATS = [
    re.compile(rf"{_DATE}T(\d{{2}}):(\d{{2}}):(\d{{2}})(\.\d+)?{_ZONE}"),
    re.compile(_DATE),
    re.compile(rf"{_DATE} (\d{{2}}):(\d{{2}})()()"),
    re.compile(rf"{_DATE} (\d{{2}}):(\d{{2}}):(\d{{2}})()"),
    re.compile(rf"{_DATE} (\d{{2}}):(\d{{2}}):(\d{{2}})()([+-]\d{{2}}:\d{{2}})"),
    re.compile(rf"{_DATE}T(\d{{2}})()()(){_ZONE}"),
    re.compile(rf"{_DATE}T(\d{{2}}):(\d{{2}})()(){_ZONE}"),
]
_KITCHEN = re.compile(r"(\d{1,2}):(\d{2})(AM|PM)")
_DAYS_FROM_YEAR_0_TO_1970 = 719528


def parse_time(text: str) -> float | None:
    """Return the Unix time of a string govaluate reads as a time (`tryParseTime`), or None.

    Times without a zone are in the controller's zone, UTC. Covered: RFC 3339, the date and
    date-time forms, ISO 8601 with `Z0700`, and Kitchen (`3:04PM`, year 0); govaluate's
    ANSIC, UnixDate and RubyDate forms are not (docs/known-deviations.md).
    """
    match = _KITCHEN.fullmatch(text)
    if match:
        hour, minute = int(match.group(1)), int(match.group(2))
        if not 1 <= hour <= 12 or minute > 59:
            return None
        hour = hour % 12 + (12 if match.group(3) == "PM" else 0)
        return float(-_DAYS_FROM_YEAR_0_TO_1970 * 86400 + hour * 3600 + minute * 60)
    for pattern in _TIME_FORMATS:
        match = pattern.fullmatch(text)
        if match:
            return _to_unix(match.groups())
    return None


def _to_unix(groups: tuple[str | None, ...]) -> float | None:
    padded = [*groups, *([None] * (8 - len(groups)))]
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in padded[:6])
    zone = padded[7]
    try:
        moment = datetime.datetime(
            year, month, day, hour, minute, second, tzinfo=datetime.UTC
        )
    except ValueError:
        return None
    offset = 0
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        offset = (int(digits[:2]) * 3600 + int(digits[2:]) * 60) * (
            -1 if zone[0] == "-" else 1
        )
    return float(int(moment.timestamp()) - offset)
