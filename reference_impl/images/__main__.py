"""`python -m reference_impl.images build [--only NAME] [--out DIR]`.

Prepares the build contexts and prints `<image ref> <context dir>` per image,
so a caller can chain `python -m clusters build-image --context DIR --tag REF
--output TAR` and `python -m clusters load-image TAR`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from reference_impl.images import contexts
from reference_impl.images.errors import ImageError
from reference_impl.images.settings import PackagingSettings


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, prepare the contexts, print one line per image."""
    parser = argparse.ArgumentParser(prog="python -m reference_impl.images")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="prepare image build contexts")
    build.add_argument("--only", choices=sorted(contexts.PREPARERS), action="append")
    build.add_argument(
        "--out", type=Path, help="contexts go here (default: $WPC_CACHE_DIR/contexts)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stderr
    )
    settings = PackagingSettings.from_env()
    out = args.out or settings.cache_dir / "contexts"
    try:
        for name in args.only or list(contexts.PREPARERS):
            ref, prepare = contexts.PREPARERS[name]
            context = prepare(settings=settings, out=out.resolve())
            sys.stdout.write(f"{ref} {context}\n")
            sys.stdout.flush()
    except ImageError as err:
        sys.stderr.write(f"error: {err}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
