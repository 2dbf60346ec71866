"""Build and load an implementation's images into the cluster.

`python -m conformance load-images --provider P --cluster C --workdir D -- CMD...`
runs CMD, which prints `<image ref> <build context dir>` lines (as
`python -m reference_impl.images build` and `python -m conformance.implementations.upstream
contexts` do), writes each image as an OCI archive with
`python -m clusters build-image` and imports it with `python -m clusters load-image`.
"""

from __future__ import annotations

import json
import re
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import CommandError
from conformance.errors import DataError
from plumbing import commands


@dataclass(frozen=True)
class ImageContext:
    """One image to build: its reference and its build context."""

    ref: str
    context: Path


CLUSTERS_CLI = (sys.executable, "-m", "clusters")


def _run(argv: list[str]) -> str:
    return commands.capture(argv, error=CommandError)


def parse_contexts(output: str) -> list[ImageContext]:
    """Parse `<ref> <context-dir>` lines; blank lines and `#` comments are skipped."""
    found = []
    for number, line in enumerate(output.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise DataError(
                f"line {number}: expected '<image ref> <context dir>', got {line!r}"
            )
        if parts[0].endswith(":latest"):
            raise DataError(
                f"line {number}: image {parts[0]} must not use the latest tag"
            )
        found.append(ImageContext(ref=parts[0], context=Path(parts[1])))
    return found


def archive_name(ref: str) -> str:
    """A file name for an image reference."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", ref) + ".tar"


def tools_command() -> list[str]:
    """The command printing the suite's own tools image and its context."""
    return [sys.executable, "-m", "conformance.tools", "contexts"]


def build_archives(*, command: list[str], workdir: Path) -> list[tuple[str, Path]]:
    """Build every image CMD names as an OCI archive in `workdir`: (ref, archive)."""
    images = parse_contexts(_run(command))
    workdir.mkdir(parents=True, exist_ok=True)
    built = []
    for image in images:
        archive = workdir / archive_name(image.ref)
        _run(
            [
                *CLUSTERS_CLI,
                "build-image",
                "--context",
                str(image.context),
                "--tag",
                image.ref,
                "--output",
                str(archive),
            ]
        )
        built.append((image.ref, archive))
    return built


def load_images(
    *, command: list[str], provider: str, cluster: str, workdir: Path
) -> list[str]:
    """Build every image CMD names and load it into the cluster; return the refs."""
    built = build_archives(command=command, workdir=workdir)
    for _, archive in built:
        _run(
            [
                *CLUSTERS_CLI,
                "load-image",
                "--provider",
                provider,
                "--name",
                cluster,
                str(archive),
            ]
        )
    return [ref for ref, _ in built]


def archive_digest(archive: Path) -> str | None:
    """The manifest digest an OCI archive written by `clusters build-image` holds."""
    try:
        with tarfile.open(archive) as tar:
            member = tar.extractfile("index.json")
            index = json.load(member) if member is not None else {}
        return str(index["manifests"][0]["digest"])
    except (OSError, tarfile.TarError, ValueError, KeyError, IndexError):
        return None  # not one of ours: the caller falls back to the cluster's view


def loaded_digests(root: Path, refs: list[str], *, since: float) -> dict[str, str]:
    """Digests of the archives under `root/*/` written for `refs` at or after `since`.

    `load_images` writes one archive per image into its workdir (a folder of the
    cache's `images/`) and imports it; an archive written before this run may
    not be what the cluster holds, so it is left out.
    """
    found: dict[str, str] = {}
    for ref in refs:
        archives = [
            path
            for path in root.glob(f"*/{archive_name(ref)}")
            if path.stat().st_mtime >= since
        ]
        if archives:
            newest = max(archives, key=lambda path: path.stat().st_mtime)
            digest = archive_digest(newest)
            if digest is not None:
                found[ref] = digest
    return found
