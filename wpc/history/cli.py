"""The `history` verb of `python -m conformance` (`make history`, `make history-list`).

`history` (or `history list`) prints the fixes and their counts, as it always
did; `history run` plans, builds what it must, runs and judges. Only parses
arguments and hands over: `proving` plans and runs with a
`qualifying.running.SuiteRunner`, `results` writes the HistoryResult,
`rendering` has the text. Exit codes: 0 every fix that ran was caught,
`ExitCode.NOT_CAUGHT` when one was missed or failed after its fix,
`ExitCode.PREPARE_FAILED` when one could not be judged (a run left no report,
the scenario errored or ran in no layout), `ExitCode.INVALID_INPUT` for bad
arguments or a bad history file.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

from conformance import spec
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.instances import layouts
from conformance.report.scores import provenance
from conformance.spec import SpecError
from conformance.spec import history
from conformance.spec import history_listing
from wpc.history import ancestry
from wpc.history import caching
from wpc.history import experiments
from wpc.history import keeping
from wpc.history import plans
from wpc.history import proving
from wpc.history import rendering
from wpc.history import results
from wpc.history.results import Outcome
from wpc.qualify import builds
from wpc.qualify import chaos_running
from wpc.qualify import running
from wpc.qualify.cli import SOURCE_ENV

RESULT_NAME = "history-result.yaml"
TABLE_NAME = "history-result.txt"
DEFAULT_OUT = Path("reports") / "history"

DESCRIPTION = f"""\
Upstream's fixed bugs (conformance/spec/history.yaml) as mutants.

  history [list]   list every fix, where it is and which scenario should catch it
  history run      build each fix's two tags, run its scenario on both, judge it

`history run` takes every fix that is in scope, observable and names a scenario
or a chaos experiment (or those --entry names), and needs two tags per fix: the
last with the bug (before: its killer must fail) and the first without it
(after: it must pass). Each tag is built once by the profile (unless already
built) and run once, both layouts, selecting the scenarios of every fix that
uses it with -k, and, when its fixes name experiments, once through the chaos
suite (python -m chaos run) selecting those; an experiment is judged as a
scenario is, and a fix with both is caught when either catches it.
Verdicts: caught, missed (passed before), broken-after (failed after),
not-run (no report, harness error, or not run in any layout); the other fixes
are listed with their reason. The historical mutation score is fixed bugs
caught / fixed bugs in scope. Files: <out>/<tag>/conformance.yaml per tag,
<out>/<tag>/chaos/chaos-<profile>.yaml per tag with experiments,
<out>/{RESULT_NAME} (HistoryResult) and <out>/{TABLE_NAME}.

exit codes: 0 every fix run was caught, {int(ExitCode.NOT_CAUGHT)} one was missed \
or broken after its fix, {int(ExitCode.PREPARE_FAILED)} one could not be judged, \
{int(ExitCode.INVALID_INPUT)} bad arguments or history file
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `history` verb: `--file`, then the optional `list` or `run`."""
    parser.add_argument(
        "--file",
        type=Path,
        default=None,
        help="a history file (default: the shipped one)",
    )
    actions = parser.add_subparsers(dest="history_action", metavar="ACTION")
    listing = actions.add_parser("list", help="list the fixes and the counts (default)")
    listing.add_argument("--file", type=Path, default=argparse.SUPPRESS)
    run = actions.add_parser(
        "run",
        help="build each fix's tags, run its scenario before and after, judge",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--file",
        type=Path,
        default=argparse.SUPPRESS,
        help="a history file (default: the shipped one)",
    )
    run.add_argument(
        "--source",
        default=None,
        help=f"the argoproj/argo-workflows git repository (default: ${SOURCE_ENV})",
    )
    run.add_argument(
        "--entry",
        action="append",
        default=[],
        metavar="ID",
        help="run only this fix (repeatable; default: every fix that can run)",
    )
    layouts.add_argument(run)
    run.add_argument(
        "--substitute-built",
        action="store_true",
        help="use an already built tag on the same side of a fix (by git ancestry) "
        "instead of building the tag the history names; every swap is recorded",
    )
    run.add_argument(
        "--plan",
        action="store_true",
        help="print the tags, substitutions and commands, then stop: reads git "
        "and the build cache only",
    )
    run.add_argument(
        "--keep-reports",
        action="store_true",
        help="read a tag's reports already in the output directory instead of "
        "running it again (resume a stopped run, or judge again); the wall time "
        "then covers only what ran",
    )
    run.add_argument(
        "--implementation", default="argo-workflows", help="profile name or path"
    )
    run.add_argument(
        "--output-dir",
        type=Path,
        default=DEFAULT_OUT,
        help=f"where the reports and the result go (default: {DEFAULT_OUT})",
    )
    running.add_suite_arguments(run)


def _load(path: Path | None) -> history.History:
    """The history, with every clause, scenario and experiment it names checked."""
    loaded = history.load(path)
    problems = history.check_references(loaded, spec.load())
    problems += experiments.problems(loaded)
    if problems:
        raise SpecError(f"{path or history.HISTORY_PATH}: " + "; ".join(problems))
    return loaded


def exit_code(outcome: Outcome) -> int:
    """The exit code of a finished run.

    NOT_CAUGHT for a miss or a failure after the fix, else PREPARE_FAILED for a
    fix that could not be judged, else 0.
    """
    found = {e.verdict for e in outcome.entries}
    if found & {plans.MISSED, plans.BROKEN_AFTER}:
        return ExitCode.NOT_CAUGHT
    if plans.NOT_RUN in found:
        return ExitCode.PREPARE_FAILED
    return 0


def _commands(
    plan: plans.Plan,
    tag_run: plans.TagRun,
    runner: running.SuiteRunner,
    chaos_runner: chaos_running.ChaosSuiteRunner,
    out_dir: Path,
) -> str:
    """The command lines one tag's runs are, as `--plan` prints them."""
    found = []
    if tag_run.scenarios:
        found.append(shlex.join(runner.command(proving.run_of(plan, tag_run, out_dir))))
    if tag_run.experiments:
        chaos = proving.chaos_run_of(plan, tag_run, out_dir)
        environment = " ".join(
            f"{k}={shlex.quote(v)}" for k, v in chaos_runner.environment(chaos).items()
        )
        found.append(f"{environment} {shlex.join(chaos_runner.commands(chaos)[-1])}")
    return "\n    ".join(found)


def _run(args: argparse.Namespace, loaded: history.History) -> int:
    source = args.source if args.source is not None else os.environ.get(SOURCE_ENV, "")
    if not source:
        raise DataError(
            f"history run: give --source (an argoproj/argo-workflows git repository "
            f"holding the history's tags) or set {SOURCE_ENV}"
        )
    started = time.monotonic()
    selection = plans.select(loaded, args.entry)
    if not selection.runnable:
        raise DataError(
            "history run: no fix in the history is in scope, observable and names a "
            "scenario or an experiment, so there is nothing to run"
        )
    repo = ancestry.GitRepository(Path(source))
    repo.check()
    cache = caching.cache_dir()
    plan = proving.make_plan(
        loaded,
        selection,
        source=source,
        layout=args.layout,
        substitute_built=args.substitute_built,
        repo=repo,
        is_built=lambda commit: caching.is_built(commit, cache),
    )
    for tag_run in plan.runs:
        builds.check_profile(args.implementation, tag_run.build)
    runner = running.runner_from_args(args)
    chaos_runner = chaos_running.runner_from_args(args)
    commands = {
        r.tag: _commands(plan, r, runner, chaos_runner, args.output_dir)
        for r in plan.runs
    }
    sys.stdout.write(rendering.plan_text(plan, commands))
    sys.stdout.flush()
    if args.plan:
        return 0
    outcome = proving.prove(
        plan,
        keeping.Kept(runner, lambda run: run.report) if args.keep_reports else runner,
        out_dir=args.output_dir,
        implementation=args.implementation,
        history_file=str(args.file or history.HISTORY_PATH),
        started=started,
        chaos_runner=keeping.Kept(chaos_runner, chaos_runner.report)
        if args.keep_reports
        else chaos_runner,
    )
    measured_on = provenance.current(str(spec.load().version))
    path = results.write(
        results.document(outcome, measured_on), args.output_dir / RESULT_NAME
    )
    text = rendering.table(outcome, str(path))
    (args.output_dir / TABLE_NAME).write_text(text)
    sys.stdout.write("\n" + text)
    return exit_code(outcome)


def main(args: argparse.Namespace) -> int:
    """List (no action, or `list`) or run; SpecError / DataError for bad input."""
    loaded = _load(args.file)
    if getattr(args, "history_action", None) == "run":
        return _run(args, loaded)
    sys.stdout.write(history_listing.render(loaded))
    return 0
