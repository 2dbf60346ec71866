"""A template's `timeout` and `pendingTimeout`: deadlines counted from the node's start (#16).

Upstream turns `timeout` into the pod's `activeDeadlineSeconds` when it builds the pod
(`workflow/controller/workflowpod.go` `build`), so the kubelet stops a pod that runs too
long and the node fails with the pod's message `Pod was active on the node longer than
the specified deadline`. In addition, each time the node's template is executed
(`workflow/controller/operator.go` `checkTemplateTimeouts`), a node still Pending past
its `timeout` or `pendingTimeout` fails with `timeout` and its pod is deleted. Both
deadlines are the node's `startedAt` plus the duration (`getTimeoutAsDeadline`).
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import timestamps
from reference_impl.controller.templates.execution import TemplateError

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
logger = logging.getLogger(__name__)

TIMEOUT_MESSAGE = "timeout"
"""The message of upstream's `ErrTimeout`, which becomes the node's message."""


class TimedOut(TemplateError):
    """A node stayed Pending past its template's `timeout` or `pendingTimeout`."""


def parse_duration(text: str) -> datetime.timedelta:
    """Return a duration as `wfv1.ParseStringToDuration` reads it: a bare integer is seconds.

    Anything else must be a Go duration (`time.ParseDuration`). Raises WorkflowError with
    upstream's `invalid timeout format ...` message otherwise.
    """
    try:
        return string_to_duration(text)
    except errors.WorkflowError as err:
        raise errors.WorkflowError(f"invalid timeout format {err}") from None


def string_to_duration(text: str) -> datetime.timedelta:
    """Return a duration as `wfv1.ParseStringToDuration` reads it (a bare integer is seconds).

    Raises WorkflowError `unable to parse <text> as a duration: <Go's reason>`.
    """
    if re.fullmatch(r"[+-]?\d+", text):
        return datetime.timedelta(seconds=int(text))
    seconds, cause = _go_duration(text)
    if cause:
        raise errors.WorkflowError(f"unable to parse {text} as a duration: {cause}")
    return datetime.timedelta(seconds=seconds)


def _go_duration(text: str) -> tuple[float, str]:
    """Return (seconds, "") or (0, Go's error text), following `time.ParseDuration`."""
    quoted = json.dumps(text, ensure_ascii=False)
    rest = text[1:] if text[:1] in "+-" else text
    sign = -1.0 if text[:1] == "-" else 1.0
    if rest == "0":
        return 0.0, ""
    if not rest:
        return 0.0, f"time: invalid duration {quoted}"
    total = 0.0
    while rest:
        number = re.match(r"\d*(\.\d*)?", rest)
        digits = number.group(0) if number else ""
        if digits in ("", "."):
            return 0.0, f"time: invalid duration {quoted}"
        rest = rest[len(digits) :]
        unit = re.match(r"[^\d.]*", rest)
        name = unit.group(0) if unit else ""
        if not name:
            return 0.0, f"time: missing unit in duration {quoted}"
        if name not in _UNITS:
            return 0.0, f"time: unknown unit {json.dumps(name)} in duration {quoted}"
        total += float(digits) * _UNITS[name]
        rest = rest[len(name) :]
    return sign * total, ""


_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def deadline(
    template: Json, node: Json | None, field: str = "timeout"
) -> datetime.datetime | None:
    """Return the node's `startedAt` plus the template's `timeout` (or `pendingTimeout`).

    Raises WorkflowError when the duration cannot be parsed.
    """
    text = template.get(field)
    started = timestamps.parse_time((node or {}).get("startedAt"))
    if not text or started is None:
        return None
    return started + parse_duration(str(text))


def check(op: Operation, node_name: str, template: Json, node: Json) -> None:
    """Fail a node Pending past its deadline; otherwise ask to be called again at the deadline.

    Raises TimedOut after marking the node Failed (its pod deleted), and TemplateError
    after marking it Failed when a duration cannot be parsed, as upstream returns
    `checkTemplateTimeouts`' error from `executeTemplate`.
    """
    pending = node.get("phase") == "Pending"
    try:
        timeout = deadline(template, node)
        pending_timeout = (
            deadline(template, node, "pendingTimeout") if pending else None
        )
    except errors.WorkflowError as err:
        op.mark_node(node_name, "Failed", str(err))
        raise TemplateError(str(err)) from err
    due = [d for d in (timeout, pending_timeout) if d is not None]
    if pending and any(op.now > d for d in due):
        logger.info("%s Node %s timed out while Pending.", op.prefix, node_name)
        pod = op.pods_by_node_id.get(node["id"])
        if pod is not None:
            op.effects.delete_pod(op.namespace, pod["metadata"]["name"])
        op.mark_node(node_name, "Failed", TIMEOUT_MESSAGE)
        raise TimedOut(TIMEOUT_MESSAGE)
    upcoming = [d for d in due if d > op.now]
    if upcoming:
        op.requeue((min(upcoming) - op.now).total_seconds())
