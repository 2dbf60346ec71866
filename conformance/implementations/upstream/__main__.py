"""`python -m conformance.implementations.upstream`: argument parsing only (see `building`, `manifests`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from clusters.errors import ClusterError
from conformance.errors import ConformanceError
from conformance.implementations.upstream import building
from conformance.implementations.upstream import manifests
from conformance.implementations.upstream import pins


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m conformance.implementations.upstream", description=__doc__
    )
    sub = p.add_subparsers(dest="verb", required=True)
    ctx = sub.add_parser(
        "contexts", help="build both binaries; print '<ref> <context-dir>' lines"
    )
    ctx.add_argument("--version", default=pins.VERSION)
    ctx.add_argument("--cache-dir", type=Path, required=True)
    ctx.add_argument("--registry", default="wpc.local/argoproj")
    crd = sub.add_parser("crds", help="write the module's CRDs to a file")
    crd.add_argument("--version", default=pins.VERSION)
    crd.add_argument("--output", type=Path, required=True)
    man = sub.add_parser("manifests", help="write one controller instance's manifests")
    for flag in (
        "--instance-id",
        "--layout",
        "--namespace",
        "--controller-image",
        "--executor-image",
    ):
        man.add_argument(flag, required=True)
    man.add_argument("--output", type=Path, required=True)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one verb; errors print their evidence and exit 1."""
    args = _parser().parse_args(argv)
    try:
        if args.verb == "contexts":
            for ref, context in building.image_contexts(
                args.version, args.cache_dir, registry=args.registry
            ):
                sys.stdout.write(f"{ref} {context}\n")
        elif args.verb == "crds":
            source = building.download(args.version)
            manifests.write(
                manifests.crds(source.directory, pins.CRDS_DIR), args.output
            )
        else:
            objects = manifests.render(
                instance_id=args.instance_id,
                layout=args.layout,
                namespace=args.namespace,
                controller_image=args.controller_image,
                executor_image=args.executor_image,
            )
            manifests.write(objects, args.output)
    except (ConformanceError, ClusterError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
