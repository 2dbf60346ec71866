"""The suite's verbs (`wpc VERB`, `python -m conformance VERB`): parsing only.

run            cluster up, install, the suite in the selected layouts, reports
bench          pod startup by phase and throughput of an implementation, per layout
bench-compare  two bench results side by side, with ratios
diff           two ConformanceReports: regressions, fixes, clauses, claims, timings
qualify        two git refs built, run, diffed, differing items rerun (needs a cluster)
layout-diff    two implementations' reports: where legacy and init-less differ in each
differential   a corpus of Workflows under two implementations, every difference reported
history        upstream's fixed bugs (conformance/spec/history.yaml), with counts;
               `history run` builds each fix's tags and judges its scenario (cluster)
html           a ConformanceReport YAML as one self-contained HTML page
merge          shard reports (run --shard I/N) joined into one report, HTML, JUnit
stability      reports of runs of one selection: the items whose outcome flipped
summary        a report as a CI job shows it: Markdown verdict table, ::error lines
bench-suite    a run's wall time, item times, packing efficiency, slowest items
load-images    build an implementation's images and load them into the cluster
images         `images export DIR`: the tools and implementation images as OCI archives
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from clusters.errors import ClusterError
from conformance.errors import ClusterRefused
from conformance.errors import ConformanceError
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import layouts
from conformance.implementations import exporting
from conformance.implementations import images
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations import variables
from conformance.implementations.contexts import ClusterChoice
from conformance.plugin.selection import options
from conformance.report.rendering import html
from conformance.spec import SpecError
from plumbing import textfiles
from wpc import summary_cli
from wpc import timing_cli
from wpc.bench import cli as bench_cli
from wpc.diff import cli as diff_cli
from wpc.diff import layout_cli
from wpc.differential import cli as differential_cli
from wpc.history import cli as history_cli
from wpc.qualify import cli as qualify_cli
from wpc.run import launching
from wpc.run import preflight
from wpc.run import targeting
from wpc.stability import cli as stability_cli
from wpc.stability import repeating


def _add_html_arguments(page: argparse.ArgumentParser) -> None:
    page.add_argument("report", type=Path, help="ConformanceReport YAML")
    page.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="HTML file to write (default: beside the report, .html)",
    )


@dataclasses.dataclass(frozen=True)
class _Delegated:
    """A verb whose options another module defines."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    description: str | None = None
    raw: bool = False
    """Whether `description` is shown as it is written (RawDescriptionHelpFormatter)."""


_DELEGATED = (
    _Delegated(
        "bench",
        "pod startup by phase and workflows per minute, per layout",
        bench_cli.add_bench_arguments,
        bench_cli.__doc__,
    ),
    _Delegated(
        "bench-compare",
        "two bench results side by side, with ratios",
        bench_cli.add_compare_arguments,
    ),
    _Delegated(
        "diff",
        "two ConformanceReports compared item by item and clause by clause",
        diff_cli.add_arguments,
        diff_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "qualify",
        "two versions built, run, diffed; differing items rerun (flaky or confirmed)",
        qualify_cli.add_arguments,
        qualify_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "layout-diff",
        "two implementations' reports: where their layouts differ, and alike or not",
        layout_cli.add_arguments,
        layout_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "differential",
        "run a corpus of Workflows under two implementations and compare them",
        differential_cli.add_arguments,
        differential_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "history",
        "upstream's fixed bugs: list them, or run each one's scenario before and "
        "after its fix (`history run`)",
        history_cli.add_arguments,
        history_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "html",
        "render a ConformanceReport YAML as one self-contained HTML page",
        _add_html_arguments,
    ),
    _Delegated(
        "merge",
        "join shard reports into the report of the whole selection",
        timing_cli.add_merge_arguments,
        timing_cli.MERGE_DESCRIPTION,
    ),
    _Delegated(
        "stability",
        "reports of runs of one selection compared: which items flipped",
        stability_cli.add_arguments,
        stability_cli.DESCRIPTION,
        raw=True,
    ),
    _Delegated(
        "summary",
        "a report as a CI job shows it: Markdown verdict table, ::error lines",
        summary_cli.add_arguments,
        summary_cli.DESCRIPTION,
    ),
    _Delegated(
        "bench-suite",
        "a run's wall time, sum of item times, packing efficiency, slowest items",
        timing_cli.add_bench_suite_arguments,
    ),
)
"""The verbs whose options another module defines, in the order `--help` lists them."""


def parser(prog: str = "python -m conformance") -> argparse.ArgumentParser:
    """The command line of `python -m conformance` (and of `wpc run`)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="verb", required=True)
    run = sub.add_parser(
        "run", help="run the conformance suite against an implementation"
    )
    # The suite's options, exactly as plain pytest takes them.
    options.add_arguments(run)
    run.add_argument("--reports-dir", type=Path, default=Path("reports"))
    run.add_argument(
        "--context",
        metavar="NAME",
        default=None,
        help="with --provider existing (or --kubeconfig): the kubeconfig context to "
        "use (default: its current context); existing reads KUBECONFIG, merged as "
        "kubectl merges it, else ~/.kube/config",
    )
    run.add_argument(
        "-n", "--workers", type=int, default=0, help="pytest-xdist workers"
    )
    run.add_argument(
        "--list",
        action="store_true",
        help="list what would run for this implementation and layout(s), and why "
        "anything is skipped; no cluster, no host change",
    )
    run.add_argument(
        "--repeat",
        default="1",
        metavar="N",
        help="run N times back to back, each run's reports under "
        "REPORTS_DIR/run-K-of-N/, then compare the runs item by item: "
        "REPORTS_DIR/stability-conformance-<implementation>.yaml lists the items "
        f"whose outcome flipped (exit {int(ExitCode.UNSTABLE)})",
    )
    run.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    for verb in _DELEGATED:
        verb.add_arguments(
            sub.add_parser(
                verb.name,
                help=verb.help,
                description=verb.description,
                formatter_class=(
                    argparse.RawDescriptionHelpFormatter
                    if verb.raw
                    else argparse.HelpFormatter
                ),
            )
        )
    load = sub.add_parser(
        "load-images", help="build and load images named by a command"
    )
    load.add_argument("--provider", default="local")
    load.add_argument("--cluster", "--cluster-name", default="wpc")
    load.add_argument("--workdir", type=Path, required=True)
    load.add_argument(
        "command", nargs="+", help="command printing '<ref> <context>' lines"
    )
    exported = sub.add_parser(
        "images", help="export the suite's and an implementation's images"
    )
    actions = exported.add_subparsers(dest="action", required=True)
    export = actions.add_parser(
        "export",
        help="write the tools image and the implementation's images as OCI archives "
        f"into DIR, with {exporting.INDEX} listing name, tag, digest and archive",
    )
    export.add_argument("dir", type=Path, help="directory for the archives")
    export.add_argument(
        "--implementation",
        default="reference",
        help="profile name or path whose prepare commands' images to export "
        "(default: reference)",
    )
    export.add_argument(
        "--profile-var", action="append", default=[], metavar="NAME=VALUE"
    )
    rm = sub.add_parser(
        "uninstall",
        help="remove an implementation's shared controller instances (and their records)",
    )
    rm.add_argument("--implementation", required=True, help="profile name or path")
    layouts.add_argument(rm)
    rm.add_argument("--provider", default="local")
    rm.add_argument("--cluster", "--cluster-name", default="wpc")
    rm.add_argument("--kubeconfig", type=Path, default=None)
    rm.add_argument("--profile-var", action="append", default=[], metavar="NAME=VALUE")
    rm.add_argument(
        "--instance-id",
        default=None,
        help="remove this one instance (of --layout, which must then be legacy or "
        "initless) instead of the profile's shared ones, e.g. a differential run's",
    )
    rm.add_argument(
        "--force",
        action="store_true",
        help="take the instance over from the run that holds it although that run is "
        "not proven dead (its lease has not run out): you declare it abandoned",
    )
    return p


def _profile(args: argparse.Namespace) -> profiles.Profile:
    """The profile `--implementation` names, with its `--profile-var` values."""
    return profiles.load(
        args.implementation, variables=variables.parse(args.profile_var)
    )


def _uninstall(args: argparse.Namespace) -> int:
    profile = _profile(args)
    selected = layouts.parse_selection(args.layout)
    cluster = ClusterChoice.of(args)
    log_dir = Path("reports") / "logs"
    if args.instance_id is None:
        removed = preparing.uninstall_shared(
            cluster=cluster,
            profile=profile,
            layouts=selected,
            log_dir=log_dir,
            timeouts=Timeouts(),
            force=args.force,
        )
    else:
        if args.layout == layouts.BOTH:
            raise DataError("uninstall --instance-id: give --layout legacy or initless")
        removed = preparing.uninstall_instances(
            cluster=cluster,
            profile=profile,
            instances=[
                preparing.instance_of(
                    profile, layout=args.layout, instance_id=args.instance_id
                )
            ],
            log_dir=log_dir,
            timeouts=Timeouts(),
            force=args.force,
        )
    sys.stdout.write(f"uninstalled {profile.name}: {', '.join(removed) or 'nothing'}\n")
    return 0


def _export_images(args: argparse.Namespace) -> int:
    profile = _profile(args)
    # Not `listing`: that is the module `run` collects with.
    exported = exporting.export(profile, args.dir)
    sys.stdout.writelines(
        f"{entry.name}:{entry.tag} {entry.digest} {args.dir / entry.archive}\n"
        for entry in exported
    )
    sys.stdout.write(f"{args.dir / exporting.INDEX}\n")
    return 0


def _html(args: argparse.Namespace) -> int:
    document = html.read(args.report)
    output = args.output or html.path_beside(args.report)
    textfiles.write(output, html.render(document, output))
    sys.stdout.write(f"{output}\n")
    return 0


def _load_images(args: argparse.Namespace) -> int:
    refs = images.load_images(
        command=args.command,
        provider=args.provider,
        cluster=args.cluster,
        workdir=args.workdir,
    )
    sys.stdout.write("".join(f"loaded {ref}\n" for ref in refs))
    return 0


_VERBS: dict[str, Callable[[argparse.Namespace], int]] = {
    "uninstall": _uninstall,
    "bench": bench_cli.main_bench,
    "bench-compare": bench_cli.main_compare,
    "diff": diff_cli.main,
    "qualify": qualify_cli.main,
    "layout-diff": layout_cli.main,
    "differential": differential_cli.main,
    "history": history_cli.main,
    "html": _html,
    "merge": timing_cli.main_merge,
    "stability": stability_cli.main,
    "summary": summary_cli.main,
    "bench-suite": timing_cli.main_bench_suite,
    "images": _export_images,
    "load-images": _load_images,
}
"""Every verb but `run` (the default): what runs it, given the parsed arguments."""


def main(argv: list[str] | None = None, *, prog: str = "python -m conformance") -> int:
    """Run one verb; exit codes are `conformance.exitcodes.ExitCode` or pytest's."""
    p = parser(prog)
    args = p.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        verb = _VERBS.get(args.verb)
        if verb is not None:
            return verb(args)
        if args.wpc_implementation is None:
            p.error("run: the following arguments are required: --implementation")
        repeat = repeating.count_of(args.repeat)
        values = {o.dest: getattr(args, o.dest) for o in options.OPTIONS}
        request = launching.RunRequest(
            options=values,
            reports_dir=args.reports_dir,
            workers=args.workers,
            pytest_args=tuple(args.pytest_args),
            context=args.context,
        )
        if args.list:
            # Not preflight: its host checks are for a run that builds a cluster.
            return launching.list_tests(request)
        try:
            # Before `clusters up`: nothing on the host changes for a typo (#12).
            # The profile it checked is the run's: the launcher loads no other.
            request = dataclasses.replace(
                request,
                profile=preflight.check({**values, targeting.CONTEXT: args.context}),
            )
            if values.get("wpc_select"):
                # A --select naming nothing stops here; the plugin alone would stop
                # it only after the cluster and the install (collection comes later).
                listed = launching.collect(request)
                if listed.exit_code == ExitCode.INVALID_INPUT:
                    return ExitCode.INVALID_INPUT
            if repeat > 1:
                return repeating.suite(request, repeat)
            return launching.run(request)
        except KeyboardInterrupt:
            # Between the children (they get Ctrl-C passed on, see launching.run):
            # nothing of this process needs cleaning up, so no traceback either.
            sys.stderr.write("interrupted (Ctrl-C)\n")
            return pytest.ExitCode.INTERRUPTED
    except (DataError, SpecError, textfiles.TextFileError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return ExitCode.INVALID_INPUT
    except ClusterError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return ExitCode.CLUSTER_FAILED
    except ClusterRefused as exc:
        sys.stderr.write(f"error: {exc}\n")
        return ExitCode.CLUSTER_REFUSED
    except ConformanceError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return ExitCode.PREPARE_FAILED


if __name__ == "__main__":
    sys.exit(main())
