"""Compile Python sources into one stored zip of `.pyc` files: the bundle's `python311.zip`.

Run as a script by the interpreter that will execute the bundle (`bundling`
calls `<Debian python> -I -S archiving.py OUT SOURCE_ROOT...`), because
bytecode belongs to the interpreter that compiled it. Each SOURCE_ROOT is
`DIR` (every `.py` below it) or `DIR=LISTFILE` (only the relative paths listed);
`--exclude NAME` drops top-level packages and modules of every root.

The zip is deterministic (sorted entries, fixed times), stored uncompressed
(imports read it directly), and holds sourceless `.pyc` files marked
"unchecked hash" (there is no source beside them to check against).
"""

from __future__ import annotations

import argparse
import importlib.util
import marshal
import sys
import zipfile
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path

_UNCHECKED_HASH = (1).to_bytes(4, "little")
"""PEP 552 flags: hash-based (bit 0), do not check the source (bit 1 clear)."""


def _sources(root: str, excludes: set[str]) -> Iterator[tuple[Path, str]]:
    directory, _, listing = root.partition("=")
    base = Path(directory)
    if listing:
        relatives = sorted(Path(listing).read_text().split())
        paths = [base / rel for rel in relatives]
    else:
        paths = sorted(base.rglob("*.py"))
    for path in paths:
        rel = path.relative_to(base)
        top = rel.parts[0].removesuffix(".py")
        if top in excludes or "__pycache__" in rel.parts:
            continue
        if len(rel.parts) > 1 and not top.isidentifier():
            continue  # not a package: config-3.11-x86_64-linux-gnu/ and the like
        yield path, rel.as_posix()


def _pyc(source: bytes, name: str) -> bytes | None:
    try:
        code = compile(source, name, "exec", dont_inherit=True)
    except SyntaxError:
        return None  # intentionally skipped: Python 2 test data and the like
    return (
        importlib.util.MAGIC_NUMBER
        + _UNCHECKED_HASH
        + importlib.util.source_hash(source)
        + marshal.dumps(code)
    )


def write(out: Path, roots: Sequence[str], excludes: set[str]) -> int:
    """Write the zip; return the number of modules in it."""
    entries: dict[str, bytes] = {}
    for root in roots:
        for path, rel in _sources(root, excludes):
            pyc = _pyc(path.read_bytes(), rel)
            if pyc is not None:
                entries[rel.removesuffix(".py") + ".pyc"] = pyc
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(info, entries[name])
    return len(entries)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and write the zip."""
    parser = argparse.ArgumentParser(prog="archiving.py")
    parser.add_argument("out", type=Path)
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args(argv)
    count = write(args.out, args.roots, set(args.exclude))
    sys.stderr.write(f"archived {count} modules into {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
