"""`python -m reference_impl.images build|bench-start ...`.

`build [--only NAME] [--out DIR]` prepares the build contexts and prints
`<image ref> <context dir>` per image, so a caller can chain `python -m
clusters build-image --context DIR --tag REF --output TAR` and `python -m
clusters load-image TAR`.

`bench-start [--executable PATH]... [--runs N] [--loads 0,2] [--sweep A:B:STEP]`
prints argoexec's start-up figures and its early-SIGTERM window per CPU load
(`benchmarking`); without `--executable` it benchmarks this tree's executor.
Needs root (a private mount namespace, and a PID namespace per run).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from reference_impl.images import benchmarking
from reference_impl.images import burning
from reference_impl.images import contexts
from reference_impl.images import figures
from reference_impl.images.errors import ImageError
from reference_impl.images.settings import PackagingSettings

_PRIVATE_FLAG = "--in-private-mounts"


def _delays(text: str) -> list[float]:
    start, stop, step = (int(part) for part in text.split(":"))
    return [ms / 1000 for ms in range(start, stop + 1, step)]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_impl.images")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="prepare image build contexts")
    build.add_argument("--only", choices=sorted(contexts.PREPARERS), action="append")
    build.add_argument(
        "--out", type=Path, help="contexts go here (default: $WPC_CACHE_DIR/contexts)"
    )
    bench = sub.add_parser("bench-start", help="argoexec start-up and signal window")
    bench.add_argument(
        "--executable",
        type=Path,
        action="append",
        help="repeatable; their starts alternate (default: this tree's argoexec)",
    )
    bench.add_argument("--runs", type=int, default=15)
    bench.add_argument(
        "--loads",
        default="0,2",
        help="busy processes per core added while measuring, e.g. 0,2",
    )
    bench.add_argument(
        "--sweep", type=_delays, default="0:1500:50", help="SIGTERM delays, ms"
    )
    bench.add_argument(_PRIVATE_FLAG, action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run one command."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stderr
    )
    settings = PackagingSettings.from_env()
    try:
        if args.command == "build":
            _build(settings, args.only, args.out or settings.cache_dir / "contexts")
        else:
            _bench(settings, args, list(sys.argv[1:] if argv is None else argv))
    except ImageError as err:
        sys.stderr.write(f"error: {err}\n")
        return 1
    return 0


def _build(settings: PackagingSettings, only: list[str] | None, out: Path) -> None:
    for name in only or list(contexts.PREPARERS):
        ref, prepare = contexts.PREPARERS[name]
        context = prepare(settings=settings, out=out.resolve())
        sys.stdout.write(f"{ref} {context}\n")
        sys.stdout.flush()


def _bench(
    settings: PackagingSettings, args: argparse.Namespace, argv: list[str]
) -> None:
    executables: list[Path] = args.executable or []
    if not executables:
        context = contexts.executor(
            settings=settings, out=settings.cache_dir / "contexts"
        )
        executables = [context / "rootfs" / "bin" / "argoexec"]
        argv += ["--executable", str(executables[0])]
    if not args.in_private_mounts:
        # /var/run/argo must be the benchmark's own, not the host's.
        unshare = ["unshare", "--mount", "--propagation", "private"]
        os.execvp("unshare", [*unshare, sys.executable, "-m", "reference_impl.images",
                              *argv, _PRIVATE_FLAG])  # fmt: skip
    benchmarking.mount_private_run_dir()
    cores = os.cpu_count() or 1
    for load in (int(part) for part in args.loads.split(",")):
        starts: dict[Path, list[benchmarking.StartRun]] = {e: [] for e in executables}
        with burning.busy(processes=load * cores):
            for _ in range(args.runs):
                for executable in executables:
                    starts[executable].append(benchmarking.start_once(executable))
            ends = {e: benchmarking.sweep(e, args.sweep) for e in executables}
        average = os.getloadavg()[0]
        for executable in executables:
            lines = [
                f"{executable} with {load} busy processes per core ({load * cores} "
                f"on {cores} cores; 1-min load average at the end: {average:.1f}), "
                f"{args.runs} starts:",
                *figures.render_starts(starts[executable]),
                *figures.render_sweep(ends[executable]),
            ]
            sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
