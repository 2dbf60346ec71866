"""A test item's stable identity, the key every report and its consumers use.

pytest's node IDs name a test by its file path relative to pytest's rootdir,
which follows the working directory: the same item reads
`conformance/tests/test_hello_world.py::test_x[legacy]` from a checkout and
`venv/lib/python3.11/site-packages/conformance/tests/...` from elsewhere, so
two reports of the same code could not be matched. The identity uses only what
the suite itself defines:

    ShortName[params]              the test file defines one test function
    ShortName::function[params]    it defines several (each keeps its own name)

`params` are pytest's parameter IDs, the layout first (`HelloWorld[legacy]`,
`StatusShutdownDags::test_stop_runs_every_task_of_a_dag_exit_handler[initless]`); a layout
divergence check is `ShortName[layout-divergence]`. Whether a file has several
tests is read from the file's source (top-level `def test...`), never from what
a run happened to select, so the identity of an item does not depend on `-k`
or `--select` either.

The file's folder is not part of the identity: the suite keeps one folder per
clause area (`conformance/tests/status/test_hello_world.py`), and a report made
before the files moved there (`conformance/tests/test_hello_world.py`) names
the same items.

Reports written before the identity existed carry node IDs only;
`upgrade()` gives each of their items the identity it would have now (and
their layout divergences the scenario, the identity without the layout), so
`wpc diff`, `layout-diff`, `qualify` and `history` compare old and new reports
item by item.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from pathlib import Path
from pathlib import PurePosixPath
from typing import Any

SUITE_DIR = Path(__file__).resolve().parents[2] / "tests"
"""The bundled suite (conformance/tests), whose files decide old reports' identities."""

FUNCTION_PREFIX = "test"
"""pytest's default `python_functions`, which the suite keeps."""

FILE_PATTERN = "test_*.py"
"""pytest's default `python_files` that the suite's file names follow."""


@functools.cache
def suite_files(suite_dir: Path = SUITE_DIR) -> tuple[Path, ...]:
    """The suite's test files in every folder below `suite_dir`, sorted.

    The bundled suite keeps one folder per clause area (`status/`, `kill/`);
    the listing is cached, as the files do not change while a process runs.
    """
    return tuple(sorted(suite_dir.rglob(FILE_PATTERN)))


def suite_file(name: str, suite_dir: Path = SUITE_DIR) -> Path:
    """The suite's test file called `name` in whichever folder holds it.

    File names are unique across the suite's folders (pytest imports each file
    by its name), so a node ID made before the files moved into their folders
    still finds its file; `suite_dir / name` when no folder has it.
    """
    found = [path for path in suite_files(suite_dir) if path.name == name]
    return found[0] if found else suite_dir / name


@functools.cache
def test_functions(path: Path) -> tuple[str, ...]:
    """The top-level test functions a test file defines, in order; () if unreadable.

    Parsed, not imported: importing a suite module pulls in the harness, and
    the old-report mapping must work without a cluster or the test's imports.
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith(FUNCTION_PREFIX)
    )


def compose(short_name: str, function: str, params: str, *, several: bool) -> str:
    """`ShortName[params]`, or `ShortName::function[params]` when the file has several."""
    name = f"{short_name}::{function}" if several else short_name
    return f"{name}[{params}]" if params else name


def _parts(nodeid: str) -> tuple[str, str, str]:
    """`dir/test_x.py::test_y[legacy]` -> (`dir/test_x.py`, `test_y`, `legacy`)."""
    base, _, params = nodeid.partition("[")
    file_part, _, function = base.rpartition("::")
    return file_part, function, params.removesuffix("]")


def short_name_of(path: PurePosixPath | Path) -> str:
    """`test_executor_retry_backoff.py` -> `ExecutorRetryBackoff` (the marker must agree)."""
    stem = path.stem.removeprefix("test_")
    return "".join(part.capitalize() for part in stem.split("_") if part)


def of_nodeid(nodeid: str, short_name: str = "", *, path: Path | None = None) -> str:
    """The identity of the item pytest calls `nodeid`, from any rootdir or install.

    `path` is the test file when known (the plugin passes the collected file);
    otherwise the bundled suite's file of the same name decides, in whichever
    folder it now is, and a file the suite no longer has keeps the function's
    name (it cannot be told apart).
    Without `short_name` (old entries that did not record it) the file name
    gives it, as the marker's validation guarantees.
    """
    file_part, function, params = _parts(nodeid)
    name = PurePosixPath(file_part).name
    source = path if path is not None else suite_file(name)
    several = len(test_functions(source)) != 1
    short = short_name or short_name_of(PurePosixPath(name))
    return compose(short, function, params, several=several)


def of_test(test: Mapping[str, Any]) -> str:
    """The identity of one report entry: its `id`, or its node ID's mapped."""
    found = test.get("id")
    if isinstance(found, str) and found:
        return found
    short_name = test.get("shortName", test.get("name", ""))
    return of_nodeid(str(test["nodeid"]), str(short_name))


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """Give every item of a read report an `id` (old reports have node IDs only).

    Changes `document` in place and returns it: the tests, the failed, errored
    and skipped references of each result bucket, and the retried items. The
    result stays valid against the report schema (`id` is optional there).
    """
    entries: list[dict[str, Any]] = list(document.get("tests") or [])
    for result in document.get("results") or []:
        for bucket in ("core", "extended"):
            for key in ("failedTests", "erroredTests", "skippedTests"):
                entries += (result.get(bucket) or {}).get(key) or []
    entries += (document.get("attempts") or {}).get("retried") or []
    for entry in entries:
        entry["id"] = of_test(entry)
    found = document.get("layoutDivergences") or {}
    for entry in [*(found.get("undeclared") or []), *(found.get("declared") or [])]:
        entry["scenario"] = of_scenario(entry)
    return document


def of_scenario(entry: Mapping[str, Any]) -> str:
    """A layout divergence entry's scenario: the identity without the layout.

    Old reports name it by the node ID without the layout (a file path, `::`,
    the function), which is mapped; an identity is kept as it is.
    """
    scenario = str(entry["scenario"])
    if ".py::" not in scenario:
        return scenario
    return of_nodeid(scenario, str(entry.get("shortName", "")))
