"""Faults of commission: negative controls that do a wrong thing, described as data.

The enum faults (`controller/faults.py`, `executor/faults.py`) mostly leave something
out, and each needs code of its own. A fault of commission (a wrong value, path, label,
message, signal, exit code) is one small change at one generic hook of the controller or
the executor, so each is a row of `commission_table.TABLE` instead of code:

=================  ==========  ========================================================
hook               side        what the row gives and where it is applied
=================  ==========  ========================================================
`pod`              controller  path operations on every pod `build_pod` returns (last
                               step, so they win over everything the builder did)
`status`           controller  regular-expression rewrites of a string field of the
                               workflow's status or of its nodes (dotted for a nested
                               one: `outputs.exitCode`), just before the controller
                               writes the Workflow
`taskResult`       executor    path operations on every WorkflowTaskResult body the
                               executor writes (create and patch)
`exit`             executor    exit codes swapped (`from` -> `to`), in the named
                               containers or all: the emissary's exit and exitcode
                               file, the supervisor's exit
`signals`          executor    a signal swapped where the executor sends it: `forward`
                               (a caught one to the command), `sidecar` (a sidecar
                               stopping itself), `kill` (`argoexec kill`)
`messages`         executor    regular-expression rewrites of the status marker's body
                               (`marker`), a termination message (`termination`) or
                               an init-less input artifact's symlink target (`link`)
`cleanup`          controller  path operations on the merge patch the controller sends
                               to clean a pod up (label it completed, drop the status
                               finalizer), just before it is sent
`ignoreSignals`    controller  stop signals (15 SIGTERM, 2 SIGINT) the controller
                               ignores instead of stopping on them
`files`            executor    a file the executor leaves for others, by its role: the
                               mode of `ctr-dir` (ctr/<c>/, once made) or `template`
                               (/var/run/argo/template, as written), or a
                               regular-expression rewrite of `stdout`, `combined`
                               (ctr/<c>/, once the command exited), `parameter`
                               (outputs/parameters/<path>, once copied),
                               `termination-log` (the command's own, once it exited)
                               `artifact` (an input artifact loaded as a file, once
                               in place) or `output-artifact` (an output artifact's
                               file as main's emissary archives it, main's own file
                               untouched); `containers` limits an entry to the named
                               containers' executors
=================  ==========  ========================================================

A row is selected by its name through `WPC_REFERENCE_FAULT`, exactly like an enum fault.
With no fault set nothing here runs. A row's hooks are all of one side (`side`); the
controller passes an executor row's name through to the pods
(`controller.faults.executor_side`) and the executor reads it into
`ExecutorSettings.commission`.

Why a Python literal and not a YAML file: the executor is bundled with the standard
library only, and both programs are frozen from `.py` files (`reference_impl/images`);
a data file beside them would not reach the images. `load()` checks the table like a
schema would, and every error names the table's file and the key that is wrong
(`faults[3].pod[0].path`).

A `status` rewrite changes a string that is there; with `absent: True` a missing field
counts as the empty string, so a pattern matching it (`^$`) can add the field (a message
on a node that has none). The field is written only when the rewrite changes it.

Paths (`pod`, `cleanup`, `taskResult`): segments separated by `/`, each a dict key
(JSON-pointer escapes: `~1` is `/`, `~0` is `~`; a `/` inside a selector needs none),
`*` (every key or item), a list index, `-` (append, for `add` only), or a selector
`[k=v,k2!=v2]` matching the list items (dicts) whose fields all compare as given. A
path that matches nothing changes nothing: the fault applies to the pods (patches, task
results) that have what it changes. Operations:

- `replace`: set `value` where the path exists;
- `add`: set `value` at the path (creating the last key; `-` appends to a list);
- `remove`: delete what the path matches;
- `copy`: `add` the value found at `from` (first match; nothing when there is none);
- `sub`: `re.sub(pattern, replacement)` on the string at the path;
- `move-last`: move the matched list items to the end of their list;
- `remove-keys`: delete the keys of the mapping at the path that `pattern` matches
  (`re.search`), for a whole class of keys (user annotations) whose names the row
  cannot list.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

Json = dict[str, Any]

CONTROLLER = "controller"
EXECUTOR = "executor"
LAYOUTS = ("legacy", "initless")
POD_OPS = frozenset(
    {"replace", "add", "remove", "copy", "sub", "move-last", "remove-keys"}
)
STATUS_TARGETS = frozenset({"workflow", "nodes"})
MAX_NAME = 23
"""A negative control's instance ID `wpc-neg-<name>-initless` is a DNS label of at most
40 characters (conformance/profiles/reference-faulty.yaml)."""
_CLAUSE = re.compile(r"^WPC-[A-Z]+-\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SELECTOR = re.compile(r"^\[(?P<body>[^\]]+)\]$")
_HOOKS = {
    "pod": CONTROLLER,
    "status": CONTROLLER,
    "cleanup": CONTROLLER,
    "ignoreSignals": CONTROLLER,
    "taskResult": EXECUTOR,
    "exit": EXECUTOR,
    "signals": EXECUTOR,
    "messages": EXECUTOR,
    "files": EXECUTOR,
}
SIGNAL_SITES = frozenset({"forward", "sidecar", "kill"})
"""Where the executor sends a signal: forwarding one the emissary caught to its
command, a template sidecar stopping itself once main is done, `argoexec kill`."""
STOP_SIGNALS = frozenset({2, 15})
"""The signals the controller stops on (SIGINT, SIGTERM): all `ignoreSignals` may name."""
MESSAGE_FILES = frozenset({"marker", "termination", "link"})
"""Texts the executor writes: the status marker's body, a termination message, the
target of the symlink main's emissary makes at an input artifact's path (init-less)."""
MODE_FILES = frozenset({"ctr-dir", "template"})
"""Files (`files` hook) whose mode a row changes: ctr/<c>/, /var/run/argo/template."""
TEXT_FILES = frozenset(
    {
        "stdout",
        "combined",
        "parameter",
        "termination-log",
        "artifact",
        "output-artifact",
    }
)
"""Files (`files` hook) whose content a row rewrites, once their writer is done."""


class TableError(ValueError):
    """The commission table is malformed; the message names the file and the key."""


@dataclasses.dataclass(frozen=True)
class PathOp:
    """One operation of the `pod` hook."""

    op: str
    path: str
    value: Any = None
    source: str = ""
    """`copy`: the path to read."""
    pattern: str = ""
    replacement: str = ""
    layouts: tuple[str, ...] = LAYOUTS
    """`pod` only: the layouts whose pods the operation changes."""


@dataclasses.dataclass(frozen=True)
class Rewrite:
    """One `status` rewrite: `re.sub` on `field` of the workflow status or of each node.

    `field` may be dotted (`outputs.exitCode`): a string below the subject.
    """

    target: str
    field: str
    pattern: str
    replacement: str
    when: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Only nodes (or a status) whose fields equal these."""
    absent: bool = False
    """A missing field counts as `""` (so `^$` can add it)."""


@dataclasses.dataclass(frozen=True)
class CodeMap:
    """One `exit` entry: exit `to` instead of `from_`, in the named containers (all if empty)."""

    from_: int
    to: int
    containers: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class SignalMap:
    """One `signals` entry: at `site`, send `to` where the contract says `from_`."""

    site: str
    from_: int
    to: int


@dataclasses.dataclass(frozen=True)
class TextRewrite:
    """One `messages` entry: `re.sub` on what the executor writes to `file`."""

    file: str
    pattern: str
    replacement: str


@dataclasses.dataclass(frozen=True)
class FileChange:
    """One `files` entry: a mode for `file` (MODE_FILES) or `re.sub` on its text."""

    file: str
    mode: int | None = None
    pattern: str = ""
    replacement: str = ""
    containers: tuple[str, ...] = ()
    """The containers whose executor applies it (all if empty)."""

    def applies(self, file: str, container: str) -> bool:
        """True where `container`'s executor handles `file`."""
        return self.file == file and (
            not self.containers or container in self.containers
        )


@dataclasses.dataclass(frozen=True)
class Fault:
    """One row: a named, deliberate wrong behaviour breaking one clause."""

    name: str
    clause: str
    side: str
    summary: str
    pod: tuple[PathOp, ...] = ()
    status: tuple[Rewrite, ...] = ()
    task_result: tuple[PathOp, ...] = ()
    exits: tuple[CodeMap, ...] = ()
    signals: tuple[SignalMap, ...] = ()
    messages: tuple[TextRewrite, ...] = ()
    cleanup: tuple[PathOp, ...] = ()
    ignore_signals: tuple[int, ...] = ()
    files: tuple[FileChange, ...] = ()


# -- loading -------------------------------------------------------------------------------


def _fail(source: str, key: str, message: str) -> TableError:
    return TableError(f"{source}: {key}: {message}")


def _string(row: Mapping[str, Any], field: str, key: str, source: str) -> str:
    value = row.get(field)
    if not isinstance(value, str) or not value:
        raise _fail(
            source, f"{key}.{field}", f"a non-empty string is required, got {value!r}"
        )
    return value


def _known_keys(
    row: Mapping[str, Any], allowed: Sequence[str], key: str, source: str
) -> None:
    if not isinstance(row, Mapping):
        raise _fail(source, key, f"a mapping is required, got {row!r}")
    for field in row:
        if field not in allowed:
            raise _fail(
                source, f"{key}.{field}", f"unknown key (known: {', '.join(allowed)})"
            )


def _path_op(item: Any, key: str, source: str) -> PathOp:
    allowed = ["op", "path", "value", "from", "pattern", "replacement"]
    _known_keys(item, [*allowed, "layouts"], key, source)
    op = _string(item, "op", key, source)
    if op not in POD_OPS:
        raise _fail(source, f"{key}.op", f"{op!r} is not one of {sorted(POD_OPS)}")
    path = _string(item, "path", key, source)
    _check_path(path, f"{key}.path", source)
    needs = {
        "replace": ["value"],
        "add": ["value"],
        "copy": ["from"],
        "sub": ["pattern", "replacement"],
        "remove-keys": ["pattern"],
    }.get(op, [])
    for field in needs:
        if field not in item:
            raise _fail(source, f"{key}.{field}", f"required by op {op!r}")
    if op in ("sub", "remove-keys"):
        try:
            re.compile(item["pattern"])
        except re.error as err:
            raise _fail(
                source, f"{key}.pattern", f"not a regular expression: {err}"
            ) from None
    layouts = tuple(item.get("layouts", LAYOUTS))
    for layout in layouts:
        if layout not in LAYOUTS:
            raise _fail(source, f"{key}.layouts", f"{layout!r} is not one of {LAYOUTS}")
    if op == "copy":
        _check_path(item["from"], f"{key}.from", source)
    return PathOp(
        op=op,
        path=path,
        value=copy.deepcopy(item.get("value")),
        source=str(item.get("from", "")),
        pattern=str(item.get("pattern", "")),
        replacement=str(item.get("replacement", "")),
        layouts=layouts,
    )


def _segments(path: str) -> list[str]:
    """Split at `/` outside selectors (a selector's value may hold a `/`)."""
    segments, depth, current = [], 0, ""
    for char in path:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "/" and depth == 0:
            segments.append(current)
            current = ""
        else:
            current += char
    return [*segments, current]


def _check_path(path: str, key: str, source: str) -> None:
    for segment in _segments(path):
        if not segment:
            raise _fail(source, key, f"empty segment in {path!r}")
        if segment.startswith("[") and _conditions(segment) is None:
            raise _fail(source, key, f"malformed selector {segment!r} in {path!r}")


def _rewrite(item: Any, key: str, source: str) -> Rewrite:
    _known_keys(
        item,
        ["target", "field", "pattern", "replacement", "when", "absent"],
        key,
        source,
    )
    target = _string(item, "target", key, source)
    if target not in STATUS_TARGETS:
        raise _fail(
            source,
            f"{key}.target",
            f"{target!r} is not one of {sorted(STATUS_TARGETS)}",
        )
    pattern = _substitution(item, key, source)
    when = item.get("when", {})
    if not isinstance(when, Mapping) or not all(
        isinstance(v, str) for v in when.values()
    ):
        raise _fail(source, f"{key}.when", "a mapping of field to string is required")
    absent = item.get("absent", False)
    if not isinstance(absent, bool):
        raise _fail(
            source, f"{key}.absent", f"true or false is required, got {absent!r}"
        )
    return Rewrite(
        target=target,
        field=_string(item, "field", key, source),
        pattern=pattern,
        replacement=item["replacement"],
        when=dict(when),
        absent=absent,
    )


def _integer(item: Mapping[str, Any], field: str, key: str, source: str) -> int:
    value = item.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 256:
        raise _fail(
            source, f"{key}.{field}", f"an integer 0..255 is required, got {value!r}"
        )
    return value


def _one_of(
    item: Mapping[str, Any], field: str, allowed: frozenset[str], key: str, source: str
) -> str:
    value = _string(item, field, key, source)
    if value not in allowed:
        raise _fail(
            source, f"{key}.{field}", f"{value!r} is not one of {sorted(allowed)}"
        )
    return value


def _code_map(item: Any, key: str, source: str) -> CodeMap:
    _known_keys(item, ["from", "to", "containers"], key, source)
    return CodeMap(
        from_=_integer(item, "from", key, source),
        to=_integer(item, "to", key, source),
        containers=_containers(item, key, source),
    )


def _signal_map(item: Any, key: str, source: str) -> SignalMap:
    _known_keys(item, ["at", "from", "to"], key, source)
    return SignalMap(
        site=_one_of(item, "at", SIGNAL_SITES, key, source),
        from_=_integer(item, "from", key, source),
        to=_integer(item, "to", key, source),
    )


def _substitution(item: Any, key: str, source: str) -> str:
    """The row's `pattern` (a valid regular expression), once `replacement` is a string."""
    pattern = _string(item, "pattern", key, source)
    try:
        re.compile(pattern)
    except re.error as err:
        raise _fail(
            source, f"{key}.pattern", f"not a regular expression: {err}"
        ) from None
    if not isinstance(item.get("replacement"), str):
        raise _fail(source, f"{key}.replacement", "a string is required")
    return pattern


def _stop_signal(item: Any, key: str, source: str) -> int:
    if not isinstance(item, int) or isinstance(item, bool) or item not in STOP_SIGNALS:
        raise _fail(
            source, key, f"{item!r} is not a stop signal {sorted(STOP_SIGNALS)}"
        )
    return int(item)


def _text_rewrite(item: Any, key: str, source: str) -> TextRewrite:
    _known_keys(item, ["file", "pattern", "replacement"], key, source)
    pattern = _substitution(item, key, source)
    return TextRewrite(
        file=_one_of(item, "file", MESSAGE_FILES, key, source),
        pattern=pattern,
        replacement=item["replacement"],
    )


def _containers(item: Mapping[str, Any], key: str, source: str) -> tuple[str, ...]:
    containers = item.get("containers", [])
    if not isinstance(containers, list) or not all(
        isinstance(c, str) and c for c in containers
    ):
        raise _fail(
            source, f"{key}.containers", "a list of container names is required"
        )
    return tuple(containers)


def _file_change(item: Any, key: str, source: str) -> FileChange:
    _known_keys(
        item, ["file", "mode", "pattern", "replacement", "containers"], key, source
    )
    file = _one_of(item, "file", MODE_FILES | TEXT_FILES, key, source)
    containers = _containers(item, key, source)
    if file in MODE_FILES:
        for field in ("pattern", "replacement"):
            if field in item:
                raise _fail(source, f"{key}.{field}", f"{file!r} takes a mode only")
        mode = item.get("mode")
        if (
            not isinstance(mode, int)
            or isinstance(mode, bool)
            or not 0 <= mode <= 0o7777
        ):
            raise _fail(
                source,
                f"{key}.mode",
                f"a file mode 0..0o7777 is required, got {mode!r}",
            )
        return FileChange(file=file, mode=mode, containers=containers)
    if "mode" in item:
        raise _fail(source, f"{key}.mode", f"{file!r} takes a pattern, not a mode")
    pattern = _substitution(item, key, source)
    return FileChange(
        file=file,
        pattern=pattern,
        replacement=item["replacement"],
        containers=containers,
    )


def _items(row: Mapping[str, Any], field: str, key: str, source: str) -> list[Any]:
    value = row.get(field, [])
    if not isinstance(value, list) or (field in row and not value):
        raise _fail(source, f"{key}.{field}", "a non-empty list is required")
    return value


def _fault(row: Any, key: str, source: str) -> Fault:
    _known_keys(row, ["name", "clause", "summary", *_HOOKS], key, source)
    name = _string(row, "name", key, source)
    if not _NAME.match(name) or len(name) > MAX_NAME:
        raise _fail(
            source,
            f"{key}.name",
            f"{name!r} is not a kebab-case name of at most {MAX_NAME} characters",
        )
    clause = _string(row, "clause", key, source)
    if not _CLAUSE.match(clause):
        raise _fail(
            source, f"{key}.clause", f"{clause!r} is not a clause ID WPC-<AREA>-<NNN>"
        )
    hooks = [h for h in _HOOKS if h in row]
    if not hooks:
        raise _fail(source, key, f"one hook is required: {', '.join(_HOOKS)}")
    sides = {_HOOKS[h] for h in hooks}
    if len(sides) > 1:
        raise _fail(
            source, key, f"hooks of one side only (controller or executor), got {hooks}"
        )

    def each(field: str, parse_one: Any) -> tuple[Any, ...]:
        return tuple(
            parse_one(o, f"{key}.{field}[{i}]", source)
            for i, o in enumerate(_items(row, field, key, source))
        )

    return Fault(
        name=name,
        clause=clause,
        side=sides.pop(),
        summary=_string(row, "summary", key, source),
        task_result=each("taskResult", _path_op),
        exits=each("exit", _code_map),
        signals=each("signals", _signal_map),
        messages=each("messages", _text_rewrite),
        cleanup=each("cleanup", _path_op),
        ignore_signals=each("ignoreSignals", _stop_signal),
        files=each("files", _file_change),
        pod=tuple(
            _path_op(o, f"{key}.pod[{i}]", source)
            for i, o in enumerate(_items(row, "pod", key, source))
        ),
        status=tuple(
            _rewrite(o, f"{key}.status[{i}]", source)
            for i, o in enumerate(_items(row, "status", key, source))
        ),
    )


def parse(table: Any, *, source: str) -> dict[str, Fault]:
    """Check a table (a list of rows) and return its faults by name."""
    if not isinstance(table, list) or not table:
        raise _fail(source, "faults", "a non-empty list of rows is required")
    result: dict[str, Fault] = {}
    for index, row in enumerate(table):
        fault = _fault(row, f"faults[{index}]", source)
        if fault.name in result:
            raise _fail(
                source, f"faults[{index}].name", f"{fault.name!r} appears twice"
            )
        result[fault.name] = fault
    return result


def load() -> dict[str, Fault]:
    """The shipped table, checked; TableError names the file and the key."""
    from reference_impl import commission_table

    return parse(
        commission_table.TABLE,
        source=commission_table.__file__ or "commission_table.py",
    )


def lookup(name: str, *, side: str) -> Fault | None:
    """The table's fault `name` if it belongs to `side`, else None (also for "")."""
    fault = load().get(name.strip()) if name.strip() else None
    return fault if fault is not None and fault.side == side else None


# -- paths ---------------------------------------------------------------------------------


def _conditions(segment: str) -> list[tuple[str, bool, str]] | None:
    match = _SELECTOR.match(segment)
    if match is None:
        return None
    result = []
    for part in match.group("body").split(","):
        negate = "!=" in part
        field, sep, value = part.partition("!=" if negate else "=")
        if not sep or not field:
            return None
        result.append((field.strip(), negate, value.strip()))
    return result


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _selects(item: Any, conditions: list[tuple[str, bool, str]]) -> bool:
    if not isinstance(item, dict):
        return False
    return all(
        (str(item.get(field)) == value) != negate for field, negate, value in conditions
    )


def _children(node: Any, segment: str) -> Iterator[tuple[Any, Any]]:
    """(container, key) pairs the segment names below `node` (existing ones only)."""
    if isinstance(node, dict):
        if segment == "*":
            yield from ((node, k) for k in list(node))
        elif _unescape(segment) in node:
            yield node, _unescape(segment)
    elif isinstance(node, list):
        conditions = _conditions(segment)
        if segment == "*":
            yield from ((node, i) for i in range(len(node)))
        elif conditions is not None:
            yield from (
                (node, i) for i, v in enumerate(node) if _selects(v, conditions)
            )
        elif segment.isdigit() and int(segment) < len(node):
            yield node, int(segment)


def _parents(document: Any, path: str) -> list[tuple[Any, str]]:
    """(parent, last segment) for every match of all but the path's last segment."""
    *head, last = _segments(path)
    nodes = [document]
    for segment in head:
        nodes = [c[k] for n in nodes for c, k in _children(n, segment)]
    return [(n, last) for n in nodes]


def _matches(document: Any, path: str) -> list[tuple[Any, Any]]:
    return [
        m for parent, last in _parents(document, path) for m in _children(parent, last)
    ]


def _add(parent: Any, last: str, value: Any) -> None:
    if isinstance(parent, dict) and last != "*" and not last.startswith("["):
        parent[_unescape(last)] = copy.deepcopy(value)
    elif isinstance(parent, list) and last == "-":
        parent.append(copy.deepcopy(value))
    else:
        for container, key in _children(parent, last):
            container[key] = copy.deepcopy(value)


def apply_ops(document: Json, ops: Sequence[PathOp]) -> Json:
    """Apply path operations to `document` in place and return it."""
    for op in ops:
        if op.op == "replace":
            for container, key in _matches(document, op.path):
                container[key] = copy.deepcopy(op.value)
        elif op.op == "add":
            for parent, last in _parents(document, op.path):
                _add(parent, last, op.value)
        elif op.op == "copy":
            found = _matches(document, op.source)
            if found:
                container, key = found[0]
                for parent, last in _parents(document, op.path):
                    _add(parent, last, container[key])
        elif op.op == "sub":
            for container, key in _matches(document, op.path):
                if isinstance(container[key], str):
                    container[key] = re.sub(op.pattern, op.replacement, container[key])
        elif op.op == "remove-keys":
            for container, key in _matches(document, op.path):
                if isinstance(container[key], dict):
                    for name in [k for k in container[key] if re.search(op.pattern, k)]:
                        del container[key][name]
        else:  # remove, move-last
            _take(_matches(document, op.path), move=op.op == "move-last")
    return document


def _take(matched: list[tuple[Any, Any]], *, move: bool) -> None:
    """Remove the matched entries; `move`: put list items back at the end, in order."""
    by_container: dict[int, tuple[Any, list[Any]]] = {}
    for container, key in matched:
        by_container.setdefault(id(container), (container, []))[1].append(key)
    for container, keys in by_container.values():
        if isinstance(container, dict):
            for key in keys:
                value = container.pop(key)
                if move:
                    container[key] = value
            continue
        chosen = set(keys)
        kept = [v for i, v in enumerate(container) if i not in chosen]
        moved = [v for i, v in enumerate(container) if i in chosen]
        container[:] = kept + moved if move else kept


# -- hooks ---------------------------------------------------------------------------------


def apply_pod(pod: Json, fault: Fault | None, *, initless: bool) -> Json:
    """The `pod` hook: `fault`'s operations for this layout, applied to the built pod."""
    if fault is None or not fault.pod:
        return pod
    layout = "initless" if initless else "legacy"
    return apply_ops(pod, [op for op in fault.pod if layout in op.layouts])


def _rewrite_one(subject: Json, rewrite: Rewrite) -> None:
    if any(str(subject.get(k)) != v for k, v in rewrite.when.items()):
        return
    *head, last = rewrite.field.split(".")
    holder: Any = subject
    for key in head:  # a dotted field (`outputs.exitCode`) names a nested string
        holder = holder.get(key) if isinstance(holder, dict) else None
    value = holder.get(last) if isinstance(holder, dict) else None
    if value is None and rewrite.absent and isinstance(holder, dict):
        value = ""
    if isinstance(value, str):
        result = re.sub(rewrite.pattern, rewrite.replacement, value)
        if result != value:
            holder[last] = result


def apply_status(status: Json, fault: Fault | None) -> Json:
    """The `status` hook: rewrite the workflow's status and its nodes in place."""
    if fault is None:
        return status
    for rewrite in fault.status:
        subjects: list[Json] = (
            [status]
            if rewrite.target == "workflow"
            else [
                n for n in (status.get("nodes") or {}).values() if isinstance(n, dict)
            ]
        )
        for subject in subjects:
            _rewrite_one(subject, rewrite)
    return status


def apply_cleanup(patch: Json, fault: Fault | None) -> Json:
    """The `cleanup` hook: a copy of a pod clean-up merge patch, changed."""
    if fault is None or not fault.cleanup:
        return patch
    return apply_ops(copy.deepcopy(patch), fault.cleanup)


def ignored_signals(fault: Fault | None) -> frozenset[int]:
    """The `ignoreSignals` hook: stop signals the controller must not stop on."""
    return frozenset(fault.ignore_signals if fault is not None else ())


# -- executor hooks ------------------------------------------------------------------------


def apply_task_result(body: Json, fault: Fault | None) -> Json:
    """The `taskResult` hook: a copy of a task-result body (create or patch), changed."""
    if fault is None or not fault.task_result:
        return body
    return apply_ops(copy.deepcopy(body), fault.task_result)


def exit_code(fault: Fault | None, code: int, *, container: str) -> int:
    """The `exit` hook: the code `container` exits with (and writes) instead of `code`."""
    for entry in fault.exits if fault is not None else ():
        if entry.from_ == code and (
            not entry.containers or container in entry.containers
        ):
            return entry.to
    return code


def signal_for(fault: Fault | None, site: str, signum: int) -> int:
    """The `signals` hook: the signal sent at `site` where the contract says `signum`."""
    for entry in fault.signals if fault is not None else ():
        if entry.site == site and entry.from_ == signum:
            return entry.to
    return signum


def rewrite_text(fault: Fault | None, file: str, text: str) -> str:
    """The `messages` hook: what the executor writes to `file` instead of `text`."""
    for entry in fault.messages if fault is not None else ():
        if entry.file == file:
            text = re.sub(entry.pattern, entry.replacement, text)
    return text


def file_mode(fault: Fault | None, file: str, *, container: str) -> int | None:
    """The `files` hook: the mode `container`'s executor gives `file`, or None (its own)."""
    for entry in fault.files if fault is not None else ():
        if entry.mode is not None and entry.applies(file, container):
            return entry.mode
    return None


def rewrite_file(fault: Fault | None, file: str, text: str, *, container: str) -> str:
    """The `files` hook: what `file` holds instead of `text` once its writer is done."""
    for entry in fault.files if fault is not None else ():
        if entry.mode is None and entry.applies(file, container):
            text = re.sub(entry.pattern, entry.replacement, text)
    return text
