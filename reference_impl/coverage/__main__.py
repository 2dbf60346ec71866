"""`python -m reference_impl.coverage fields|doc`: regenerate the committed coverage files.

`fields` derives the field paths from upstream's CRD in the upstream checkout and writes
reference_impl/coverage/crd-fields.txt; `doc` writes docs/reference-coverage.md from the
committed paths. Run `fields` after upstream moves, classify what is new in
`reference_impl/controller/templates/checks/coverage.py`, then run `doc`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from reference_impl.controller.templates.checks import coverage
from reference_impl.coverage import crdfields
from reference_impl.coverage import document
from reference_impl.coverage import upstream
from reference_impl.coverage import uses

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
FIELDS = Path(__file__).resolve().parent / "crd-fields.txt"
DOC = ROOT / "docs" / "reference-coverage.md"


def derived_paths(mirror: Path, tag: str) -> list[str]:
    """Return the CRD's field paths at `tag`, not descending below whole-covered ones."""
    schema = crdfields.spec_schema(upstream.crd_text(mirror, tag))
    return crdfields.field_paths(schema, whole=coverage.covered_whole)


def committed_paths() -> list[str]:
    """Return the committed field paths."""
    return [line for line in FIELDS.read_text().splitlines() if line.strip()]


def rendered_doc() -> str:
    """Return the coverage document for the committed paths."""
    return document.render(committed_paths(), uses.first_uses(ROOT), upstream.TAG)


def main(argv: list[str] | None = None) -> int:
    """Regenerate one of the committed files; 1 with a message when something is wrong."""
    parser = argparse.ArgumentParser(prog="python -m reference_impl.coverage")
    parser.add_argument("what", choices=("fields", "doc"))
    parser.add_argument("--mirror", type=Path, default=upstream.MIRROR)
    parser.add_argument("--tag", default=upstream.TAG)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    try:
        if args.what == "fields":
            paths = derived_paths(args.mirror, args.tag)
            FIELDS.write_text("".join(f"{p}\n" for p in paths))
            unclassified = [p for p in paths if coverage.rule_for(p) is None]
            for path in unclassified:
                logger.error("unclassified: %s", path)
            return 1 if unclassified else 0
        DOC.write_text(rendered_doc())
    except (upstream.MirrorMissing, crdfields.CrdError, ValueError) as err:
        logger.error("error: %s", err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
