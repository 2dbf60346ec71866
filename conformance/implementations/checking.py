"""Check a profile without a cluster, and write a commented skeleton of one.

What `wpc profile check|init` and the launcher's early checks do: the profile
against its schema, its placeholders and images (`profiles.load`), and its
feature claims against the spec's feature names, so every mistake a run would
hit after building a cluster is found in well under a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conformance import spec
from conformance.errors import DataError
from conformance.implementations import profiles

SKELETON_PATH = profiles.PROFILES_DIR / "templates" / "profile.yaml"
"""The commented profile `wpc profile init` writes (it passes `check` as written)."""

SKELETON_NAME = "my-controller"


def known_features(spec_path: Path | None = None) -> frozenset[str]:
    """The feature names the spec defines; DataError when the spec cannot load."""
    try:
        return frozenset(f.name for f in spec.load(spec_path).features)
    except spec.SpecError as exc:
        raise DataError(f"cannot load the WPC spec: {exc}") from exc


def check(
    name_or_path: str,
    *,
    variables: Mapping[str, str] | None = None,
    spec_path: Path | None = None,
) -> profiles.Profile:
    """Load and validate a profile as a run would; DataError names file and key."""
    return profiles.load(
        name_or_path,
        known_features=known_features(spec_path),
        variables=variables,
    )


def write_skeleton(
    path: Path, *, name: str = SKELETON_NAME, force: bool = False
) -> Path:
    """Write the commented skeleton profile to `path`, named `name`.

    Refuses to overwrite an existing file unless `force`, so a vendor's profile is
    never lost to a second `init`.
    """
    if not profiles.INSTANCE_ID.match(name):
        raise DataError(
            f"profile name {name!r}: expected lower-case letters, digits and dashes"
        )
    if path.exists() and not force:
        raise DataError(f"{path} exists; pass --force to overwrite it")
    text = SKELETON_PATH.read_text()
    marker = f"name: {SKELETON_NAME}\n"
    if marker not in text:  # pragma: no cover - guards the bundled template
        raise DataError(f"{SKELETON_PATH}: has no {marker.strip()!r} line")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace(marker, f"name: {name}\n", 1))
    return path
