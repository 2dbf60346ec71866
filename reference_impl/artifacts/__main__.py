"""Command line: `python -m reference_impl.artifacts build|context --out DIR`.

Only parses arguments; the work is done by `building.build` and
`imaging.prepare_context`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from reference_impl.artifacts import building
from reference_impl.artifacts import imaging
from reference_impl.artifacts.errors import ArtifactError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_impl.artifacts")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build the S3 server; print its path")
    build.add_argument("--force", action="store_true", help="rebuild even if cached")
    context = sub.add_parser(
        "context",
        help="build if needed, prepare the image context; print '<ref> <dir>'",
    )
    context.add_argument("--out", type=Path, required=True, help="context directory")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the process exit code."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    settings = building.BuildSettings.from_env()
    try:
        binary = building.build(settings, force=getattr(args, "force", False))
        if args.command == "build":
            sys.stdout.write(f"{binary}\n")
        else:
            out = imaging.prepare_context(binary=binary, out_dir=args.out.resolve())
            sys.stdout.write(f"{imaging.IMAGE} {out}\n")
    except ArtifactError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
