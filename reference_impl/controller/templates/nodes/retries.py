"""`retryStrategy`: a Retry node whose children `<name>(0)`, `<name>(1)`, ... are the attempts.

Mirrors Argo's `executeTemplate` retry branch and `processNodeRetries`: the policy decides
which failures are retried (`OnFailure` by default), `limit` caps the retries (so there are
at most limit+1 attempts), `backoff` spaces them, shutdown and the workflow deadline stop
them; `affinity.nodeAntiAffinity` keeps retried pods off the hosts earlier attempts failed
on (`pods.retryhosts`). A retry `expression` is not supported (validation rejects it).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import math
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import durations
from reference_impl.controller.formats import naming
from reference_impl.controller.formats import substitution
from reference_impl.controller.formats import timestamps
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.inputs import scopes
from reference_impl.controller.templates.nodes import inference

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
MAX_WAIT_SECONDS = (2**63 - 1) / 1e9
"""Go's largest `time.Duration`, in seconds: the longest backoff upstream waits."""


def execute(
    op: Operation, retry_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Drive the Retry node `retry_name`: decide its phase, or start/continue an attempt."""
    strategy = template["retryStrategy"]
    node = op.template_node(
        retry_name, template, opts, node_type="Retry", phase="Running"
    )
    try:
        proceed, execution_deadline = _process(op, node, strategy)
    except errors.WorkflowError as err:
        op.mark_node(retry_name, "Error", str(err))
        raise TemplateError(str(err)) from err
    if not proceed:
        return node
    children = scopes.attempts(op.nodes, node)
    last = children[-1] if children else None
    if inference.fulfilled(node):
        if last is not None and last.get("outputs") is not None:
            node["outputs"] = copy.deepcopy(last["outputs"])
        return node
    if last is not None and not inference.fulfilled(last):
        attempt, child_name = len(children) - 1, last["name"]
    else:
        attempt = len(children)
        child_name = naming.retry_child_name(retry_name, attempt)
        op.add_child(retry_name, child_name)
    params = _attempt_params(op, template, child_name, attempt, last)
    child_template = substitution.substitute_tree(template, params)
    child_opts = dataclasses.replace(
        opts, hooked=False, execution_deadline=execution_deadline
    )
    try:
        child = op.execute_processed(child_name, child_template, child_opts)
    except TemplateError:
        if _policy(strategy) not in ("Always", "OnError"):
            raise
        return node
    if not inference.fulfilled(node) and inference.fulfilled(child):
        return execute(op, retry_name, template, opts)
    return node


def _attempt_params(
    op: Operation, template: Json, child_name: str, attempt: int, last: Json | None
) -> dict[str, str]:
    params = {"retries": str(attempt), "node.name": child_name}
    if template.get("container") is not None or template.get("script") is not None:
        params["pod.name"] = naming.pod_name(
            workflow_name=op.name, node_name=child_name, template_name=template["name"]
        )
    outputs = (last or {}).get("outputs") or {}
    started = timestamps.parse_time((last or {}).get("startedAt"))
    finished = timestamps.parse_time((last or {}).get("finishedAt"))
    params["retries.lastExitCode"] = str(outputs.get("exitCode", "0"))
    params["retries.lastStatus"] = str((last or {}).get("phase", ""))
    params["retries.lastDuration"] = (
        str((finished - started).total_seconds()) if started and finished else "0"
    )
    params["retries.lastMessage"] = str((last or {}).get("message", ""))
    return params


def _policy(strategy: Json) -> str:
    return str(strategy.get("retryPolicy") or "OnFailure")


def _process(
    op: Operation, node: Json, strategy: Json
) -> tuple[bool, datetime.datetime | None]:
    """Return (whether to go on executing, the attempt's execution deadline)."""
    if inference.fulfilled(node):
        return True, None
    children = scopes.attempts(op.nodes, node)
    if not children or not inference.fulfilled(children[-1]):
        return True, None
    last = children[-1]
    name = node["name"]
    if last.get("phase") not in inference.FAILED_OR_ERROR:
        if last.get("outputs") is not None:
            node["outputs"] = copy.deepcopy(last["outputs"])
        op.mark_node(name, "Succeeded")
        return True, None
    if op.shutdown or op.deadline_exceeded():
        message = (
            f"Stopped with strategy '{op.shutdown}'"
            if op.shutdown
            else f"retry exceeded workflow deadline {_go_time(op.workflow_deadline)}"
        )
        op.mark_node(name, last["phase"], message)
        return True, None
    execution_deadline = None
    backoff = strategy.get("backoff")
    if backoff:
        max_deadline = None
        if backoff.get("maxDuration"):
            first_started = (
                timestamps.parse_time(children[0].get("startedAt")) or op.now
            )
            max_deadline = first_started + datetime.timedelta(
                seconds=durations.parse(str(backoff["maxDuration"]))
            )
            if op.now > max_deadline:
                op.mark_node(name, last["phase"], "Max duration limit exceeded")
                return True, None
        if not backoff.get("duration"):
            raise errors.WorkflowError("no base duration specified for retryStrategy")
        wait = backoff_wait(
            durations.parse(str(backoff["duration"])),
            int(str(backoff.get("factor") or 0)),
            len(children) - 1,
        )
        if backoff.get("cap"):
            wait = min(wait, durations.parse(str(backoff["cap"])))
        finished = timestamps.parse_time(last.get("finishedAt")) or op.now
        waiting_deadline = finished + datetime.timedelta(seconds=wait)
        if max_deadline is not None and waiting_deadline > max_deadline:
            op.mark_node(name, last["phase"], "Backoff would exceed max duration limit")
            return True, None
        limit = _limit(strategy)
        if op.now < waiting_deadline and limit is not None and len(children) <= limit:
            op.requeue((waiting_deadline - op.now).total_seconds())
            op.mark_node(name, node["phase"], f"Backoff for {_humanize(wait)}")
            return False, None
        execution_deadline = max_deadline
        op.mark_node(name, node["phase"], "")
    policy = _policy(strategy)
    if last.get("message") == "pod deleted" and op.settings.has_fault(
        Fault.NO_RETRY_POD_DELETED
    ):
        op.mark_node(name, last["phase"], last.get("message", ""))
        return True, None
    retry_failed = policy in ("Always", "OnFailure")
    retry_error = policy in ("Always", "OnError")
    if (last["phase"] == "Failed" and not retry_failed) or (
        last["phase"] == "Error" and not retry_error
    ):
        op.mark_node(name, last["phase"], last.get("message", ""))
        return True, None
    limit = _limit(strategy)
    if limit is not None and len(children) > limit:
        op.mark_node(name, last["phase"], "No more retries left")
        return True, None
    return True, execution_deadline


def backoff_wait(duration: float, factor: int, exponent: int) -> float:
    """Return the wait before the next attempt: `duration * factor**exponent` seconds.

    Upstream's `processNodeRetries` (workflow/controller/operator.go, fix b8cf9ed8 of
    v4.0.1 and v4.1.0) raises the factor to the exponent as a float and, when the product
    would pass Go's largest `time.Duration` (2^63 - 1 ns, about 292 years), waits exactly
    that long instead of letting int64 nanoseconds wrap (v4.0.0 wrapped, often to a
    negative wait, and retried at once). A float that overflows is Go's +Inf here.
    """
    if factor <= 0:
        return duration
    try:
        scale = float(factor) ** exponent
    except OverflowError:
        scale = math.inf
    if duration == 0:
        return 0.0
    if scale > MAX_WAIT_SECONDS / duration:
        return MAX_WAIT_SECONDS
    return duration * math.floor(scale)


def _limit(strategy: Json) -> int | None:
    value = strategy.get("limit")
    if value is None:
        return None
    try:
        return int(str(value))
    except ValueError:
        raise errors.WorkflowError(
            f"retryStrategy.limit {value!r} is not an integer"
        ) from None


def _go_time(moment: datetime.datetime | None) -> str:
    return (
        ""
        if moment is None
        else moment.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S +0000 UTC")
    )


def _humanize(seconds: float) -> str:
    """Return a duration like Argo's `humanize.Duration` (`10 seconds`, `1 minute 5 seconds`)."""
    whole = int(seconds)
    if whole < 60:
        return "1 second" if whole == 1 else f"{whole} seconds"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        head = "1 minute" if minutes == 1 else f"{minutes} minutes"
        return f"{head} {rest} seconds"
    hours, minutes = divmod(minutes, 60)
    head = "1 hour" if hours == 1 else f"{hours} hours"
    return f"{head} {minutes} minutes"
