"""docs/vendors.md's commands do what its prose says.

We test these aspects, without a cluster:

- the guide's own `wpc profile init acme.yaml --name acme` writes the profile
  the other examples name;
- every `wpc run` command of its shell blocks, run with `--list` (which touches
  no cluster and changes nothing), lists at least one test to run (before
  `--select`, the guide's `-- -k HelloWorld` selected none);
- a command with `--select` lists only items its selectors name, and the
  HelloWorld example exactly HelloWorld's 2 items, one per layout, as its prose
  says.
"""

from __future__ import annotations

import itertools
import re
import shlex
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from conformance.implementations import preparing
from conformance.plugin.selection import listing
from wpc import cli as wpc_cli
from wpc.run import targeting

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "vendors.md"
SHELL_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
PROFILE_INIT = ["profile", "init", "acme.yaml", "--name", "acme"]
PROSE_COUNTS = {("HelloWorld",): 2}
"""What the prose beside a `--select` example says it lists, by its selectors."""


def commands(text: str) -> list[list[str]]:
    """Every `wpc ...` command of the guide's shell blocks, as argv after `wpc`."""
    found = []
    for block in SHELL_BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            at = next(
                (i for i, w in enumerate(words) if w == "wpc" or w.endswith("/wpc")),
                None,
            )
            if at is not None:
                found.append(words[at + 1 :])
    return found


RUNS = [argv for argv in commands(GUIDE.read_text()) if argv[:1] == ["run"]]


def selectors(argv: list[str]) -> tuple[str, ...]:
    return tuple(b for a, b in itertools.pairwise(argv) if a == "--select")


def names(line: str) -> list[str]:
    """What a selector may match in one listing line: identity, ShortName, clauses, areas."""
    test_id, *clauses = line[25:].split("  (")[0].split()
    scenario = test_id.rpartition("[")[0]
    areas = [c.split("-")[1] for c in clauses]
    return [test_id, scenario, scenario.partition("::")[0], *clauses, *areas]


def refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"--list touched the cluster: {args} {kwargs}")


@pytest.fixture(scope="module")
def profile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("vendor")
    assert PROFILE_INIT in commands(GUIDE.read_text())
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        assert wpc_cli.main(PROFILE_INIT) == 0
    return where


def test_the_guide_has_run_examples_with_and_without_a_selection() -> None:
    assert len(RUNS) >= 5
    assert any(selectors(argv) for argv in RUNS)
    assert "-k HelloWorld" not in GUIDE.read_text()


@pytest.mark.parametrize("argv", RUNS, ids=shlex.join)
def test_each_run_example_lists_what_its_prose_says(
    argv: list[str],
    profile_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(profile_dir)
    monkeypatch.setenv("KUBECONFIG", str(profile_dir / "missing" / "kubeconfig"))
    monkeypatch.setattr(preparing, "prepare_run", refuse)
    args = argv if "--list" in argv else [*argv, "--list"]
    assert wpc_cli.main(args) == 0, capsys.readouterr().err
    cluster, *lines = capsys.readouterr().out.splitlines()
    # First the cluster a run would use (with --provider existing, why there is none).
    assert cluster.startswith(targeting.PREFIX), cluster
    entries = [line for line in lines[:-1] if line.startswith(listing.RUNS + " ")]
    assert entries, lines[-1]
    chosen = selectors(argv)
    if chosen:
        listed = lines[:-1]
        assert all(
            any(fnmatchcase(n, s) for n in names(line) for s in chosen)
            for line in listed
        ), listed
        if chosen in PROSE_COUNTS:
            assert len(listed) == PROSE_COUNTS[chosen], listed


OTHERS = [argv for argv in commands(GUIDE.read_text()) if argv[:1] not in ([], ["run"])]
"""The guide's other commands; `[]`: a path ending in /wpc, not a command."""


@pytest.mark.parametrize("argv", OTHERS, ids=shlex.join)
def test_every_other_command_of_the_guide_runs_or_parses(
    argv: list[str],
    profile_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`profile` commands run; what needs a cluster or image builds parses, option by option."""
    from clusters import cli as clusters_cli
    from wpc import suite_cli

    verb, rest = argv[0], argv[1:]
    if verb == "profile":
        # `init` writes the file the other commands read: a fresh directory for it.
        monkeypatch.chdir(tmp_path if argv[:2] == ["profile", "init"] else profile_dir)
        assert wpc_cli.main(argv) == 0, argv
        return
    if verb == "cluster":
        _, unknown = clusters_cli._parser().parse_known_args(rest)
    else:
        assert verb in wpc_cli.SUITE_VERBS, f"wpc has no verb {verb!r}: {argv}"
        _, unknown = suite_cli.parser().parse_known_args([verb, *rest])
    assert not unknown, f"{argv}: not options of {verb}: {unknown}"
