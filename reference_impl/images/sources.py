"""What a frozen program is made of: its project modules and its PyPI distributions.

Starting from the program's `__main__` module, follow every import statement
(also those inside functions, which is how the executor defers heavy imports)
through the project's own package. The result is the exact set of source files
to copy into the build and hash into its cache key (so editing the controller
does not rebuild the executor), plus the top-level third-party names, mapped to
the distributions and versions installed in the interpreter running this code
(the project's venv), which the packaging venv then installs pinned.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
from dataclasses import dataclass
from pathlib import Path

from reference_impl.images.errors import SourceError


@dataclass(frozen=True)
class SourceSet:
    """The files of a program and what it needs from PyPI."""

    files: dict[str, Path]
    """Path relative to the source root (e.g. `reference_impl/common.py`) -> file."""
    third_party: frozenset[str]
    """Top-level import names outside the stdlib and the project."""


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _imports(path: Path, module: str) -> set[str]:
    """Absolute names imported by the module (incl. `from pkg import submodule`)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def closure(*, root: Path, entry: str) -> SourceSet:
    """Follow imports from module `entry` (e.g. `reference_impl.executor.__main__`)."""
    project = entry.split(".")[0]
    files: dict[str, Path] = {}
    third_party: set[str] = set()
    pending = [entry]
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _module_file(root, module)
        if path is None:
            continue  # `from pkg import name` where name is not a module
        files[path.relative_to(root).as_posix()] = path
        parts = module.split(".")
        pending += [
            ".".join(parts[:i]) for i in range(1, len(parts))
        ]  # parent packages
        for name in _imports(path, module):
            top = name.split(".")[0]
            if top == project:
                pending.append(name)
            elif top and top not in sys.stdlib_module_names and top != "__future__":
                third_party.add(top)
    if (
        f"{entry.replace('.', '/')}.py" not in files
        and _module_file(root, entry) is None
    ):
        raise SourceError(f"entry module {entry} not found under {root}")
    return SourceSet(files=files, third_party=frozenset(third_party))


def requirements(third_party: frozenset[str]) -> list[str]:
    """Pin each third-party import to the distribution version installed here."""
    by_name = importlib.metadata.packages_distributions()
    pins: set[str] = set()
    for name in sorted(third_party):
        dists = by_name.get(name)
        if not dists:
            raise SourceError(
                f"import {name!r} is not provided by any installed distribution"
            )
        for dist in dists:
            pins.add(f"{dist}=={importlib.metadata.version(dist)}")
    return sorted(pins)
