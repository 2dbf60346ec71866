"""`python -m conformance.implementations.upstream`: argument parsing only.

The work is in `sources` (where the tree comes from), `building`,
`layouts` (which pod layouts the tree has) and `manifests`. Every verb that
needs the source takes `--source DIR [--ref REF]` (or `WPC_ARGO_SOURCE`);
without one, the module proxy is asked for `--version`. `manifests` reads the
source only when given `--cache-dir`: without it, it writes the manifests of
the pinned release, which has both layouts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from clusters.errors import ClusterError
from conformance import contract
from conformance.errors import ConformanceError
from conformance.errors import DataError
from conformance.implementations.profiles import IMAGE_TAG
from conformance.implementations.upstream import building
from conformance.implementations.upstream import layouts
from conformance.implementations.upstream import manifests
from conformance.implementations.upstream import pins
from conformance.implementations.upstream import sources


def _source_flags(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    parser.add_argument("--version", default=pins.VERSION, help="module proxy version")
    parser.add_argument(
        "--source",
        default="",
        help=f"an argo-workflows source tree or git repository (default: ${sources.SOURCE_ENV})",
    )
    parser.add_argument(
        "--ref", default="", help="with a git repository: the tag or commit"
    )
    parser.add_argument("--cache-dir", type=Path, required=required)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m conformance.implementations.upstream", description=__doc__
    )
    sub = p.add_subparsers(dest="verb", required=True)
    ctx = sub.add_parser(
        "contexts", help="build both binaries; print '<ref> <context-dir>' lines"
    )
    _source_flags(ctx)
    ctx.add_argument("--registry", default="wpc.local/argoproj")
    ctx.add_argument(
        "--tag",
        default="",
        help="the images' tag (default: --ref, else --version, as the profile's build)",
    )
    crd = sub.add_parser("crds", help="write the source's CRDs to a file")
    _source_flags(crd)
    crd.add_argument("--output", type=Path, required=True)
    desc = sub.add_parser(
        "describe", help="print what the source is: version and commit"
    )
    _source_flags(desc)
    lay = sub.add_parser(
        "layouts",
        help="print, as JSON, each pod layout: null if the source has it, else why not",
    )
    _source_flags(lay)
    man = sub.add_parser("manifests", help="write one controller instance's manifests")
    _source_flags(man, required=False)
    for flag in (
        "--instance-id",
        "--layout",
        "--namespace",
        "--controller-image",
        "--executor-image",
    ):
        man.add_argument(flag, required=True)
    man.add_argument(
        "--artifact-repository", default="", help="the ConfigMap's artifactRepository"
    )
    man.add_argument("--output", type=Path, required=True)
    return p


def _source(args: argparse.Namespace) -> sources.Source | None:
    directory = sources.from_env(args.source)
    if directory is None:
        if args.ref:
            # Without a tree the module proxy builds --version: the ref would be
            # silently ignored and the images tagged as something they are not.
            raise DataError(
                f"--ref {args.ref} needs a git repository: give --source DIR "
                f"or set {sources.SOURCE_ENV}"
            )
        return None
    return sources.resolve(directory, ref=args.ref or None, cache_dir=args.cache_dir)


def _module_dir(args: argparse.Namespace) -> Path:
    source = _source(args)
    return source.directory if source else building.download(args.version).directory


def _tag(args: argparse.Namespace) -> str:
    """The images' tag: --tag, else the ref built, else the module version.

    Named after what was built, as the profile's `build` is, so that building a
    ref by hand never writes its binaries into another tag's image contexts
    (`<cache>/images/argo-<component>-<tag>`); a ref that is no image tag (a
    branch with a slash) needs --tag.
    """
    tag = args.tag or args.ref or args.version
    if not IMAGE_TAG.match(tag):
        raise DataError(f"contexts: {tag!r} is not a valid image tag; give --tag NAME")
    return str(tag)


def main(argv: list[str] | None = None) -> int:
    """Run one verb; errors print their evidence and exit 1."""
    args = _parser().parse_args(argv)
    try:
        if args.verb == "contexts":
            tag = _tag(args)  # before the build: a bad tag costs nothing
            source = _source(args)
            bindir = (
                building.build_source(source, args.cache_dir)
                if source
                else building.build_binaries(args.version, args.cache_dir)
            )
            for ref, context in building.image_contexts(
                bindir, args.cache_dir, registry=args.registry, tag=tag
            ):
                sys.stdout.write(f"{ref} {context}\n")
        elif args.verb == "crds":
            module_dir = _module_dir(args)
            manifests.write(
                manifests.crds(module_dir, manifests.crds_dir(module_dir)), args.output
            )
        elif args.verb == "describe":
            source = _source(args)
            sys.stdout.write(
                (source.describe if source else f"{args.version} (module proxy)") + "\n"
            )
        elif args.verb == "layouts":
            missing = layouts.unsupported(_module_dir(args))
            support = {layout: missing.get(layout) for layout in contract.LAYOUTS}
            sys.stdout.write(json.dumps(support) + "\n")
        else:
            if (args.source or args.ref) and not args.cache_dir:
                # The source would be ignored, and a v4.0 build given v4.1's ConfigMap.
                raise DataError("manifests: --source and --ref need --cache-dir")
            objects = manifests.render(
                instance_id=args.instance_id,
                layout=args.layout,
                namespace=args.namespace,
                controller_image=args.controller_image,
                executor_image=args.executor_image,
                artifact_repository=args.artifact_repository,
                unsupported=(
                    layouts.unsupported(_module_dir(args)) if args.cache_dir else {}
                ),
            )
            manifests.write(objects, args.output)
    except (ConformanceError, ClusterError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
