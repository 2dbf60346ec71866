"""Judge when a suspended step resumed across a controller outage.

A `suspend` template with `duration` is a Suspend node that succeeds once its
`startedAt` + duration has passed. A controller that was down when that moment
came must notice on start-up that it has passed: not resume early, not wait
for another full duration (a timer restarted at start-up), not forget the node.
Every time compared here comes from the node's side (the controller's
`startedAt`/`finishedAt`, the kubelet's pod `startTime`), so no clock of this
machine enters the verdict. Pure functions: the probes do the I/O.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chaos.errors import Inconclusive
from chaos.errors import Unexpected

SUSPEND = "Suspend"
"""The node type of a `suspend` template."""

_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_PART = re.compile(r"(\d+(?:\.\d*)?)(ms|h|m|s)")


def duration_seconds(text: str) -> float:
    """A suspend `duration` in seconds: a bare integer is seconds, else `1m30s` style.

    ValueError naming the text for anything else (the experiment's workflow
    is wrong, not the controller).
    """
    value = text.strip()
    if value.isdigit():
        return float(value)
    parts = _PART.findall(value)
    if not value or "".join(n + u for n, u in parts) != value:
        raise ValueError(
            f"suspend duration {text!r} is neither whole seconds nor like '1m30s'"
        )
    return sum(float(number) * _UNITS[unit] for number, unit in parts)


def epoch(stamp: str) -> float:
    """An RFC 3339 status timestamp (`2026-01-02T03:04:05Z`) as unix seconds."""
    return datetime.datetime.fromisoformat(stamp).timestamp()


def suspend_node(workflow: Mapping[str, Any], step: str) -> dict[str, Any] | None:
    """The Suspend node whose display name is `step`, or None (not created yet)."""
    nodes = (workflow.get("status") or {}).get("nodes") or {}
    found = [
        n
        for n in nodes.values()
        if n.get("type") == SUSPEND and n.get("displayName") == step
    ]
    if len(found) > 1:
        raise Unexpected(
            f"{len(found)} Suspend nodes named {step}: "
            + ", ".join(str(n.get("id")) for n in found)
        )
    return dict(found[0]) if found else None


def duration_of(workflow: Mapping[str, Any], node: Mapping[str, Any]) -> float:
    """The node's template's `suspend.duration` in seconds (read from the spec)."""
    name = node.get("templateName")
    templates = (workflow.get("spec") or {}).get("templates") or []
    template = next((t for t in templates if t.get("name") == name), None)
    duration = ((template or {}).get("suspend") or {}).get("duration")
    if duration is None:
        raise ValueError(
            f"node {node.get('displayName')}: template {name!r} has no "
            "suspend.duration in the workflow's spec"
        )
    return duration_seconds(str(duration))


@dataclass(frozen=True)
class Resume:
    """When a Suspend node started and finished, and when the controller came back."""

    started: float
    finished: float
    duration: float
    controller_started: float


def judge_resume(
    resume: Resume, *, node: str, started_before: float, within: float
) -> str:
    """Evidence that the node resumed at the right time after the restart; raise otherwise.

    `started_before`: the node's `startedAt` seen before the outage (it must
    not move: a controller that restarts the timer moves it); `within`: how
    long after the controller pod started the node must have resumed, held
    below the duration (a timeout scale can stretch it): a timer restarted at
    start-up resumes a whole duration after the controller came back, and a
    bound that long would let it pass. Timestamps are whole seconds, so
    `finished == started + duration` is on time.
    """
    within = min(within, resume.duration - 1.0)
    ends = resume.started + resume.duration
    if resume.started != started_before:
        raise Unexpected(
            f"{node}: startedAt moved from {_utc(started_before)} to "
            f"{_utc(resume.started)} across the restart (the duration was restarted)"
        )
    if resume.controller_started <= ends:
        raise Inconclusive(
            f"{node}: the controller pod started at {_utc(resume.controller_started)}, "
            f"not after the duration ended ({_utc(ends)}): the outage did not span "
            "the end of the duration"
        )
    if resume.finished < ends:
        raise Unexpected(
            f"{node}: resumed at {_utc(resume.finished)}, "
            f"{ends - resume.finished:g} s before its duration ended ({_utc(ends)})"
        )
    late = resume.finished - resume.controller_started
    if late > within:
        raise Unexpected(
            f"{node}: resumed at {_utc(resume.finished)}, {late:g} s after the "
            f"controller pod started ({_utc(resume.controller_started)}); more than "
            f"{within:g} s"
        )
    return (
        f"{node}: started {_utc(resume.started)}, duration {resume.duration:g} s "
        f"(ended {_utc(ends)}); the controller pod started "
        f"{resume.controller_started - ends:g} s after that, and the node resumed "
        f"{late:g} s after the controller pod started ({_utc(resume.finished)})"
    )


def _utc(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%H:%M:%S")
