"""Fail on any import cycle between the project's modules (`make lint`).

import-linter checks the contracts written down in pyproject.toml; a cycle
between two modules that no contract orders (inside one room, or between rooms
that are allowed to import each other) passes it. This check reads every
module's source with `ast` and takes every import statement as an edge: at the
top, inside a function (the usual way a cycle is hidden: it only breaks when the
function runs first) and under `if TYPE_CHECKING:` (a type-only cycle is still
two modules that cannot be understood apart). `from a import b` is an edge to
the module `a.b` when there is one, else to `a`; a module's parent packages are
not edges (importing `a.b` runs `a/__init__.py`, but that is Python's doing,
not the module's).

Each cycle is printed as a path with the file, line and statement of every
edge, shortest first, and the exit code is 1; none: one line and exit code 0.

One knot is allowed, by name and only as it is (`ALLOWED`): its type-only edges
are left out of the graph, and an entry that no longer matches any edge fails
the check, so the allowance goes when the knot is untied.

    python ci/import_cycles.py [--root DIR] PACKAGE...
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import deque
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("plumbing", "clusters", "conformance", "chaos", "reference_impl", "wpc")
"""The project's packages (pyproject.toml's root packages), checked by default."""


@dataclass(frozen=True)
class Allowed:
    """Type-only imports of one module from the modules of one package, and why."""

    package: str
    """The importers: this package's modules (not its subpackages')."""
    imported: str
    reason: str

    def covers(self, edge: Edge) -> bool:
        """True for a type-only import of `imported` by a module of `package`."""
        importer_package = edge.importer.rpartition(".")[0]
        return (
            edge.type_only
            and importer_package == self.package
            and edge.imported == self.imported
        )


TEMPLATES = "reference_impl.controller.templates"
ALLOWED = tuple(
    Allowed(
        package=f"{TEMPLATES}.{room}",
        imported=f"{TEMPLATES}.operation",
        reason="the template kinds of this room (dags, steps, retries, ...) annotate "
        "the `Operation` that dispatches to them, under TYPE_CHECKING; untying it (a "
        "protocol of what they use of it) is still to do",
    )
    for room in ("composites", "nodes")
)
"""The knots allowed as they are; every other cycle fails `make lint`."""


@dataclass(frozen=True)
class Edge:
    """One import statement from a module of the project to another."""

    importer: str
    imported: str
    path: Path
    line: int
    statement: str
    local: bool
    """Inside a function (or a class body): run only when that code runs."""
    type_only: bool
    """Under `if TYPE_CHECKING:`: never run, read by the type checker."""

    def describe(self, root: Path) -> str:
        """`path:line  statement` and where it sits."""
        where = " (inside a function)" if self.local else ""
        where += " (type-only)" if self.type_only else ""
        return f"{self.path.relative_to(root)}:{self.line}  {self.statement}{where}"


def modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of `packages` under `root`, by dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        base = root / package
        if not (base / "__init__.py").is_file():
            raise SystemExit(f"error: {base} is not a package (no __init__.py)")
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    test = node.test
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
    return name == "TYPE_CHECKING"


Statement = tuple[ast.Import | ast.ImportFrom, bool, bool]
"""An import statement, whether it is inside a function, whether it is type-only."""


def _statements(tree: ast.AST) -> Iterator[Statement]:
    """Every import statement, anywhere in the module."""
    pending: list[tuple[ast.AST, bool, bool]] = [(tree, False, False)]
    while pending:
        node, local, type_only = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, local, type_only
            continue
        # A class body runs on import like the module's; a function's when called.
        inner = local or isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        )
        if isinstance(node, ast.If) and _is_type_checking(node):
            # The `else:` of `if TYPE_CHECKING:` runs: only the body is type-only.
            pending += [(stmt, inner, True) for stmt in node.body]
            pending += [(stmt, inner, type_only) for stmt in node.orelse]
        else:
            pending += [
                (child, inner, type_only) for child in ast.iter_child_nodes(node)
            ]


def _longest_known(name: str, known: Mapping[str, Path]) -> str | None:
    """`name`, or the nearest package above it, that is a module of the project."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def _targets(
    node: ast.Import | ast.ImportFrom,
    module: str,
    is_package: bool,
    known: Mapping[str, Path],
) -> set[str]:
    """The project's modules one import statement of `module` names."""
    if isinstance(node, ast.Import):
        found = (_longest_known(alias.name, known) for alias in node.names)
        return {name for name in found if name is not None}
    base = node.module or ""
    if node.level:
        # Relative: `.` is the module's own package (the module itself for __init__).
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    targets = set()
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if alias.name != "*" and submodule in known:
            targets.add(submodule)
        else:
            near = _longest_known(base, known)
            if near is not None:
                targets.add(near)
    return targets


def edges(root: Path, known: Mapping[str, Path]) -> dict[str, list[Edge]]:
    """The import graph: each module's edges to other modules of the project."""
    graph: dict[str, list[Edge]] = {name: [] for name in known}
    for module, path in known.items():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
        lines = source.splitlines()
        statements = sorted(_statements(tree), key=lambda found: found[0].lineno)
        for node, local, type_only in statements:
            is_package = path.name == "__init__.py"
            for target in sorted(_targets(node, module, is_package, known)):
                if target == module:
                    continue
                graph[module].append(
                    Edge(
                        importer=module,
                        imported=target,
                        path=path,
                        line=node.lineno,
                        statement=lines[node.lineno - 1].strip(),
                        local=local,
                        type_only=type_only,
                    )
                )
    return graph


def components(graph: Mapping[str, Sequence[Edge]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = [edge.imported for edge in graph[node]]
            if position < len(targets):
                work.append((node, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(found, key=lambda members: (len(members), members))


def shortest_cycle(
    graph: Mapping[str, Sequence[Edge]], members: Sequence[str]
) -> list[Edge]:
    """A shortest cycle through the component's first module, as its edges."""
    inside = set(members)
    start = members[0]
    came: dict[str, Edge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in graph[node]:
            if edge.imported not in inside:
                continue
            if edge.imported == start:
                path = [edge]
                while path[0].importer != start:
                    path.insert(0, came[path[0].importer])
                return path
            if edge.imported not in came:
                came[edge.imported] = edge
                queue.append(edge.imported)
    raise AssertionError(f"no cycle through {start} in its own component")


def without_allowed(
    graph: Mapping[str, Sequence[Edge]], allowed: Sequence[Allowed]
) -> tuple[dict[str, list[Edge]], list[str]]:
    """The graph without the allowed edges, and a line for each stale allowance.

    An allowance for a package that is not checked is neither used nor stale.
    """
    used = {entry: 0 for entry in allowed}
    kept: dict[str, list[Edge]] = {}
    for module, found in graph.items():
        kept[module] = []
        for edge in found:
            covering = [entry for entry in allowed if entry.covers(edge)]
            for entry in covering:
                used[entry] += 1
            if not covering:
                kept[module].append(edge)
    stale = [
        f"allowed type-only imports of {entry.imported} by {entry.package}.* are "
        "gone: remove the entry from ALLOWED in ci/import_cycles.py"
        for entry, count in used.items()
        if count == 0 and entry.package in graph
    ]
    return kept, stale


def report(root: Path, graph: Mapping[str, Sequence[Edge]]) -> list[str]:
    """The lines that name every cycle (one per component), empty when there is none."""
    lines: list[str] = []
    for members in components(graph):
        cycle = shortest_cycle(graph, members)
        chain = " -> ".join([cycle[0].importer, *(edge.imported for edge in cycle)])
        lines.append(f"import cycle among {len(members)} modules: {chain}")
        lines += [f"  {edge.describe(root)}" for edge in cycle]
        if len(members) > len(cycle):
            lines.append(f"  (the same knot holds: {', '.join(members)})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Check the packages; exit 1 naming every cycle, 0 when there is none."""
    parser = argparse.ArgumentParser(
        prog="python ci/import_cycles.py", description=__doc__
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="the directory holding the packages (default: this checkout)",
    )
    parser.add_argument(
        "packages",
        nargs="*",
        default=list(PACKAGES),
        help="top-level packages to check",
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    known = modules(root, args.packages)
    graph, stale = without_allowed(edges(root, known), ALLOWED)
    lines = stale + report(root, graph)
    if lines:
        sys.stderr.write("\n".join(lines) + "\n")
        return 1
    sys.stdout.write(
        f"no import cycle among the {len(known)} modules of {', '.join(args.packages)}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
