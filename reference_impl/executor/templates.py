"""A typed view of the parts of an Argo template the executor acts on.

The template arrives as JSON (ARGO_TEMPLATE, or /var/run/argo/template). Only
the fields below matter to the executor; everything else is kept in `raw` and
reported back untouched (outputs are reported as the template declares them,
plus the values found).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_impl import common
from reference_impl.executor.errors import TemplateError
from reference_impl.executor.protocol import OFFLOADED
from reference_impl.executor.protocol import Paths

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Artifact:
    """An input or output artifact: where it lives in the container and its location."""

    name: str
    path: str
    optional: bool
    raw: JsonDict
    """The artifact as the template gives it (location keys: raw, http, s3, ...)."""

    @property
    def mode(self) -> int | None:
        """The `mode` to chmod a loaded input artifact to, if any."""
        mode = self.raw.get("mode")
        return int(mode) if mode is not None else None

    @property
    def archive(self) -> str:
        """The archive strategy: `tar` (default), `none` or `zip`."""
        strategy = self.raw.get("archive") or {}
        for key in ("none", "zip", "tar"):
            if key in strategy:
                return key
        return "tar"


@dataclass(frozen=True)
class OutputParameter:
    """An output parameter read from a file (`valueFrom.path`)."""

    name: str
    path: str
    default: str | None
    raw: JsonDict


@dataclass(frozen=True)
class VolumeMount:
    """A volume mount of the main container, as the template declares it."""

    name: str
    mount_path: str


@dataclass(frozen=True)
class Template:
    """The executor's view of one template."""

    raw: JsonDict

    @property
    def input_artifacts(self) -> list[Artifact]:
        """`inputs.artifacts`."""
        return [_artifact(a) for a in self.raw.get("inputs", {}).get("artifacts") or []]

    @property
    def output_artifacts(self) -> list[Artifact]:
        """`outputs.artifacts` with a path."""
        arts = [
            _artifact(a) for a in self.raw.get("outputs", {}).get("artifacts") or []
        ]
        return [a for a in arts if a.path]

    @property
    def output_parameters(self) -> list[OutputParameter]:
        """`outputs.parameters` that read a file."""
        params = []
        for p in self.raw.get("outputs", {}).get("parameters") or []:
            value_from = p.get("valueFrom") or {}
            if value_from.get("path"):
                default = value_from.get("default")
                params.append(
                    OutputParameter(
                        name=p["name"],
                        path=value_from["path"],
                        default=None if default is None else str(default),
                        raw=p,
                    )
                )
        return params

    @property
    def script_source(self) -> str | None:
        """`script.source`, for script templates."""
        script = self.raw.get("script")
        return None if script is None else str(script.get("source", ""))

    @property
    def resource_manifest(self) -> str | None:
        """`resource.manifest`, for resource templates."""
        resource = self.raw.get("resource")
        return None if resource is None else str(resource.get("manifest", ""))

    @property
    def sidecar_names(self) -> list[str]:
        """Names of the template's sidecars."""
        return [s["name"] for s in self.raw.get("sidecars") or []]

    @property
    def main_container_names(self) -> list[str]:
        """The containerSet members, else just `main`."""
        members = (self.raw.get("containerSet") or {}).get("containers") or []
        return [c["name"] for c in members] or [common.MAIN]

    def dependencies(self, container: str) -> list[str]:
        """ContainerSet members `container` must wait for."""
        for member in (self.raw.get("containerSet") or {}).get("containers") or []:
            if member.get("name") == container:
                return list(member.get("dependencies") or [])
        return []

    @property
    def volume_mounts(self) -> list[VolumeMount]:
        """Volume mounts declared for the main container (container, script or set)."""
        mounts: list[JsonDict] = []
        for key in ("container", "script", "containerSet"):
            mounts += (self.raw.get(key) or {}).get("volumeMounts") or []
        return [
            VolumeMount(name=m.get("name", ""), mount_path=m["mountPath"])
            for m in mounts
        ]

    def overlapping_mount(self, path: str) -> VolumeMount | None:
        """The user volume mount holding `path`, if any (Argo's FindOverlappingVolume)."""
        for mount in self.volume_mounts:
            root = mount.mount_path.rstrip("/")
            if path == root or path.startswith(root + "/"):
                return mount
        return None

    @property
    def archive_location(self) -> JsonDict:
        """`archiveLocation` (filled by the controller from the artifact repository)."""
        return dict(self.raw.get("archiveLocation") or {})


def _artifact(raw: JsonDict) -> Artifact:
    return Artifact(
        name=str(raw.get("name", "")),
        path=str(raw.get("path", "")),
        optional=bool(raw.get("optional", False)),
        raw=raw,
    )


def parse(text: str) -> Template:
    """Parse template JSON; TemplateError if it is not a JSON object."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise TemplateError(f"failed to unmarshal template: {err}") from None
    if not isinstance(raw, dict):
        raise TemplateError("failed to unmarshal template: not a JSON object")
    return Template(raw=raw)


def from_env_value(value: str | None, *, paths: Paths) -> Template:
    """The template as init/supervisor get it: ARGO_TEMPLATE, or its offloaded file."""
    if value is None:
        raise TemplateError(f"{common.ENV_TEMPLATE} is not set")
    if value == OFFLOADED:
        return parse(_read(paths.offloaded_template))
    return parse(value)


def load(*, paths: Paths, env_value: str | None) -> Template:
    """The template as the emissary gets it: the file, falling back to ARGO_TEMPLATE."""
    if paths.template.exists():
        return parse(_read(paths.template))
    return from_env_value(env_value, paths=paths)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as err:
        raise TemplateError(f"failed to read template: {err}") from None
