"""`wpc images export DIR`: the suite's and an implementation's images as OCI archives.

Why: a managed cluster (EKS, GKE, AKS, OpenShift) pulls images from a registry
the user runs, often one the suite cannot push to itself (its own login, a
vendor's mirroring tool, an air gap). The export writes every image a run loads
(the suite's tools image, and each image the profile's `prepare` commands load
with `load-images`: for the reference, its controller, executor, test and S3
images) as an OCI image-layout tar, built exactly as a run builds it
(`images.build_archives`), and `images.json` beside them listing each one's name,
tag, manifest digest and archive, for skopeo (`oci-archive:`), crane or the
user's own tooling. The nodes then pull them through a mirror of their registry
host (`wpc.local`), as with `load-image --registry` (docs/vendors.md).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import DataError
from conformance.implementations import images
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice

INDEX = "images.json"
"""The listing written beside the archives."""
LOADER = "load-images"
"""The verb whose build command (after `--`) a `prepare` command's images come from."""
NO_CLUSTER = "-"
"""The cluster placeholders' value: an export touches no cluster."""


@dataclass(frozen=True)
class Exported:
    """One archive written: the image's name and tag, digest and file (in DIR)."""

    name: str
    tag: str
    digest: str
    archive: str


def build_commands(profile: profiles.Profile) -> list[list[str]]:
    """The tools image's command, then each `load-images` build command of `prepare`."""
    cluster = ClusterChoice(
        kubeconfig=None, provider=NO_CLUSTER, cluster=NO_CLUSTER, allow_foreign=False
    )
    values = profiles.placeholder_values(
        profile, preparing.base_values(cluster, NO_CLUSTER, NO_CLUSTER)
    )
    found = [images.tools_command()]
    for command in profile.commands.get("prepare", ()):
        argv = profiles.render(command, values)
        if LOADER in argv and "--" in argv[argv.index(LOADER) :]:
            found.append(argv[argv.index("--", argv.index(LOADER)) + 1 :])
    return found


def export(profile: profiles.Profile, out: Path) -> list[Exported]:
    """Write every image's archive and `images.json` into `out`; return the listing."""
    if out.exists() and not out.is_dir():
        raise DataError(f"images export: {out} exists and is not a directory")
    listing: dict[str, Exported] = {}
    for command in build_commands(profile):
        for ref, archive in images.build_archives(command=command, workdir=out):
            digest = images.archive_digest(archive)
            if digest is None:
                raise DataError(f"images export: {archive} is not an OCI archive")
            name, _, tag = ref.rpartition(":")
            listing[ref] = Exported(
                name=name, tag=tag, digest=digest, archive=archive.name
            )
    exported = [listing[ref] for ref in sorted(listing)]
    (out / INDEX).write_text(
        json.dumps({"images": [asdict(entry) for entry in exported]}, indent=2) + "\n"
    )
    return exported
