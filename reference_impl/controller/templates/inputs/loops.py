"""`withItems`, `withParam` and `withSequence`: one step or task per item (#13).

Mirrors upstream's `expandStep` (`workflow/controller/steps.go`), `expandTask`
(`workflow/controller/dag.go`), `processItem`, `generateNodeName` and `expandSequence`
(`workflow/controller/operator.go`) and `wfv1.Item` (`pkg/apis/workflow/v1alpha1/item.go`).
The item becomes `{{item}}` (and `{{item.<key>}}` for a map) everywhere in the step or task,
and part of its name: `name(<index>:<item>)`, where a string shows as itself, a number or a
bool as its JSON text, a map as its sorted `key:value` pairs joined by commas and a list as
`[a b]`, with parentheses removed. The names must match upstream's exactly: they determine
node IDs and pod names.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import gojson
from reference_impl.controller.formats import substitution
from reference_impl.controller.templates.inputs import conditions

Json = dict[str, Any]
LOOP_FIELDS = ("withItems", "withParam", "withSequence")
EMPTY_MESSAGE = "Skipped, empty params"


def has_loop(step: Json) -> bool:
    """Return whether a step or task expands into items (`ShouldExpand`)."""
    return (
        bool(step.get("withItems"))
        or bool(step.get("withParam"))
        or (step.get("withSequence") is not None)
    )


def items(step: Json) -> list[Any]:
    """Return the items of a (substituted) step or task.

    Raises WorkflowError with upstream's message for a `withParam` that is not a JSON
    list or a bad `withSequence`, unless the step's `when` is plainly false (then there
    are no items), as upstream's `expandStep` does.
    """
    try:
        if step.get("withItems"):
            return list(step["withItems"])
        if step.get("withParam"):
            return _param_items(str(step["withParam"]))
        return sequence(step.get("withSequence") or {})
    except errors.WorkflowError:
        try:
            must_execute = conditions.should_execute(str(step.get("when") or ""))
        except errors.WorkflowError:
            must_execute = True
        if must_execute:
            raise
        return []


def _param_items(text: str) -> list[Any]:
    try:
        value = gojson.loads(text)
    except ValueError as err:
        raise errors.WorkflowError(
            f"withParam value could not be parsed as a JSON list: {text.strip()}: {err}"
        ) from None
    if value is None:
        return []
    if not isinstance(value, list):
        kind = {dict: "object", str: "string", bool: "bool"}.get(type(value), "number")
        raise errors.WorkflowError(
            f"withParam value could not be parsed as a JSON list: {text.strip()}: "
            f"json: cannot unmarshal {kind} into Go value of type []v1alpha1.Item"
        )
    return value


def sequence(spec: Json) -> list[str]:
    """Return the items of a `withSequence` (`expandSequence`): formatted integers, as strings."""
    start = _atoi(spec.get("start")) if spec.get("start") is not None else 0
    if spec.get("end") is not None:
        end = _atoi(spec["end"])
    elif spec.get("count") is not None:
        count = _atoi(spec["count"])
        if count == 0:
            return []
        end = start + count - 1
    else:
        raise errors.WorkflowError(
            "neither end nor count was specified in withSequence"
        )
    step = 1 if start <= end else -1
    fmt = str(spec.get("format") or "%d")
    return [_go_sprintf(fmt, i) for i in range(start, end + step, step)]


def _atoi(value: Any) -> int:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if not re.fullmatch(r"[+-]?\d+", text):
        raise errors.WorkflowError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def _go_sprintf(fmt: str, value: int) -> str:
    """Format one integer with a Go format (`%d`, `%02d`, `%x`, `%v`; `%%` is a percent)."""
    verbs = re.compile(r"%([-+# 0]*)(\d*)([dvxXo%])")
    used = False

    def one(match: re.Match[str]) -> str:
        nonlocal used
        flags, width, verb = match.groups()
        if verb == "%":
            return "%"
        if used:
            return f"%!{verb}(MISSING)"
        used = True
        if verb == "v":
            verb = "d"
        return ("%" + flags + width + verb) % value

    text = verbs.sub(one, fmt)
    return text if used else f"{text}%!(EXTRA int={value})"


def item_kind(item: Any) -> str:
    """Return upstream's `Item.GetType()` of an item: Number, Bool, String, Map or List."""
    if isinstance(item, bool):
        return "Bool"
    if isinstance(item, int | float | gojson.RawNumber):
        return "Number"
    if isinstance(item, dict):
        return "Map"
    if isinstance(item, list) or item is None:
        return "List"
    return "String"


def item_text(item: Any) -> str:
    """Return `Item.String()`: a string without quotes, anything else as compact JSON."""
    if isinstance(item, str) and not isinstance(item, gojson.RawNumber):
        return gojson.fix(gojson.quote(item)[1:-1])
    return gojson.fix(gojson.dumps([] if item is None else item))


def item_params(item: Any) -> dict[str, str]:
    """Return the variables an item defines: `item`, and `item.<key>` for a map."""
    kind = item_kind(item)
    if kind == "String":
        return {"item": str(item)}
    if kind == "Map":
        params = {f"item.{k}": item_text(v) for k, v in item.items()}
        params["item"] = gojson.dumps(item, sort_keys=True)
        return params
    if kind == "List":
        return {"item": gojson.dumps([] if item is None else item)}
    return {"item": item_text(item)}


def item_name(name: str, index: int, item: Any) -> str:
    """Return an expanded step's or task's name (`generateNodeName`): `name(<i>:<item>)`."""
    kind = item_kind(item)
    if kind == "Map":
        description = ",".join(sorted(f"{k}:{item_text(v)}" for k, v in item.items()))
    elif kind == "List":
        description = "[" + " ".join(item_text(v) for v in item or []) + "]"
    else:
        description = item_text(item)
    description = description.replace("(", "").replace(")", "")
    return f"{name}({index}:{description})"


def expand(step: Json, params: dict[str, str]) -> list[Json]:
    """Return one step or task per item, named and substituted (`expandStep`, `expandTask`).

    `params` are the variables in scope besides the item. Raises WorkflowError for an
    item substitution that leaves a variable unresolved, unless the step's `when` is
    plainly false (upstream then leaves such variables as they are).
    """
    body = {k: copy.deepcopy(v) for k, v in step.items() if k not in LOOP_FIELDS}
    try:
        lenient = not conditions.should_execute(str(step.get("when") or ""))
    except errors.WorkflowError:
        lenient = False
    expanded = []
    for index, item in enumerate(items(step)):
        local = {**params, **item_params(item)}
        new = substitution.substitute_tree(body, local)
        if not lenient:
            for tag in substitution.unresolved(new):
                raise errors.WorkflowError(f"failed to resolve {tag}")
        new["name"] = item_name(str(step["name"]), index, item)
        new["template"] = step.get("template", "")
        expanded.append(new)
    return expanded
