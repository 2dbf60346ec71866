"""A DAG task's `depends` (or `dependencies`): whether it runs once its dependencies are done.

Mirrors upstream's `evaluateDependsLogic` (`workflow/controller/dag.go`) and the
`dependencies` to `depends` expansion (`workflow/common/ancestry.go`): task names,
`.Succeeded|Failed|Errored|Skipped|Omitted|Daemoned|AnySucceeded|AllFailed`, `&&`, `||`, `!`
and parentheses. `AnySucceeded` and `AllFailed` look at the items of a looping task (#13).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from reference_impl.controller import errors

Json = dict[str, Any]
_TOKEN = re.compile(
    r"\s*(&&|\|\||!|\(|\)|[A-Za-z0-9][-A-Za-z0-9_]*(?:\.[A-Z][A-Za-z]+)?)"
)


def task_results(node: Json, nodes: dict[str, Json]) -> dict[str, bool]:
    """Return what `depends` can ask of a finished task (upstream's `TaskResults`)."""
    phase = node.get("phase")
    any_succeeded = all_failed = False
    if node.get("type") == "TaskGroup":
        children = [nodes.get(c) for c in node.get("children") or []]
        all_failed = bool(children)
        for child in children:
            if child is None:
                all_failed = False
                continue
            any_succeeded = any_succeeded or child.get("phase") == "Succeeded"
            all_failed = all_failed and child.get("phase") == "Failed"
    return {
        "Succeeded": phase == "Succeeded",
        "Failed": phase == "Failed",
        "Errored": phase == "Error",
        "Skipped": phase == "Skipped",
        "Omitted": phase == "Omitted",
        "Daemoned": False,
        "AnySucceeded": any_succeeded,
        "AllFailed": all_failed,
    }


def depends_logic(task: Json, tasks: dict[str, Json]) -> str:
    """Return the task's `depends` expression, expanding `dependencies` like Argo."""
    if task.get("depends"):
        return str(task["depends"])
    return " && ".join(
        _expand(name, tasks.get(name, {})) for name in task.get("dependencies") or []
    )


def evaluate_depends(
    logic: str, results: dict[str, dict[str, bool]], tasks: dict[str, Json]
) -> bool:
    """Evaluate a `depends` expression given each dependency's `task_results`.

    Raises WorkflowError `unable to evaluate expression '<logic>'` for a malformed one.
    """
    tokens: list[str] = [t for t in _TOKEN.findall(logic) if t]
    if "".join(tokens) != re.sub(r"\s+", "", logic):
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def chain(
        symbol: str, operand: Callable[[], bool], combine: Callable[[bool, bool], bool]
    ) -> bool:
        """Parse `operand (symbol operand)*`; every operand is parsed, none skipped."""
        value = operand()
        while peek() == symbol:
            take()
            value = combine(operand(), value)
        return value

    def disjunction() -> bool:
        return chain("||", conjunction, operator.or_)

    def conjunction() -> bool:
        return chain("&&", unary, operator.and_)

    def unary() -> bool:
        token = peek()
        if token == "!":
            take()
            return not unary()
        if token == "(":
            take()
            value = disjunction()
            if take() != ")":
                raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
            return value
        if token is None or token in ("&&", "||", ")"):
            raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
        take()
        if "." not in token:
            return evaluate_depends(
                _expand(token, tasks.get(token, {})), results, tasks
            )
        name, result = token.split(".", 1)
        return results.get(name, {}).get(result, False)

    try:
        value = disjunction()
    except IndexError:
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'") from None
    if position != len(tokens):
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
    return value


def _expand(name: str, task: Json) -> str:
    results = [f"{name}.Succeeded", f"{name}.Skipped", f"{name}.Daemoned"]
    continue_on = task.get("continueOn") or {}
    if continue_on.get("error"):
        results.append(f"{name}.Errored")
    if continue_on.get("failed"):
        results.append(f"{name}.Failed")
    return "(" + " || ".join(results) + ")"
