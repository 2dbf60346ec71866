"""Write container images as OCI archives from a Dockerfile subset, without Docker.

Our machines have no container registry and no running Docker engine, so every
image is built here. The Dockerfiles in the repo stay the single source of
truth (kind/k3d users can `docker build` the same files); this module reads the
subset they use and writes an OCI image-layout tar that `ctr images import`
(and `kind load image-archive`) accept:

    FROM scratch            (required, first)
    COPY <src>... <dst>     (paths relative to the context; one layer per COPY)
    ENV, ENTRYPOINT, CMD, WORKDIR, USER, LABEL

Layers are written deterministically (sorted entries, zero mtimes, root
ownership) so an unchanged context gives the same digests.
"""

from __future__ import annotations

import hashlib
import io
import json
import shlex
import tarfile
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters.errors import ClusterError

SUPPORTED = ("FROM", "COPY", "ENV", "ENTRYPOINT", "CMD", "WORKDIR", "USER", "LABEL")


class DockerfileError(ClusterError):
    """The Dockerfile uses something outside the supported subset."""


@dataclass
class ImageSpec:
    """What a Dockerfile says, in the subset we build."""

    copies: list[tuple[list[str], str]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] | None = None
    cmd: list[str] | None = None
    workdir: str = ""
    user: str = ""
    labels: dict[str, str] = field(default_factory=dict)


def _exec_form(value: str) -> list[str]:
    if value.startswith("["):
        parsed = json.loads(value)
        if not isinstance(parsed, list) or not all(isinstance(p, str) for p in parsed):
            raise DockerfileError(f"expected a JSON array of strings, got {value!r}")
        return parsed
    return ["/bin/sh", "-c", value]


def _pairs(value: str) -> dict[str, str]:
    words = shlex.split(value)
    if len(words) == 2 and "=" not in words[0]:
        return {words[0]: words[1]}
    out = {}
    for word in words:
        key, sep, val = word.partition("=")
        if not sep:
            raise DockerfileError(f"expected key=value, got {word!r}")
        out[key] = val
    return out


def parse_dockerfile(text: str) -> ImageSpec:
    """Parse the supported Dockerfile subset; anything else is a DockerfileError."""
    spec = ImageSpec()
    lines = text.replace("\\\n", " ").splitlines()
    seen_from = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        instr, _, rest = line.partition(" ")
        instr, rest = instr.upper(), rest.strip()
        if instr not in SUPPORTED:
            raise DockerfileError(
                f"line {number}: {instr} is not supported (only {', '.join(SUPPORTED)})"
            )
        if not seen_from:
            if instr != "FROM" or rest != "scratch":
                raise DockerfileError(
                    f"line {number}: the first instruction must be FROM scratch"
                )
            seen_from = True
            continue
        if instr == "FROM":
            raise DockerfileError(
                f"line {number}: multi-stage builds are not supported"
            )
        if instr == "COPY":
            words = shlex.split(rest)
            if any(w.startswith("--") for w in words) or len(words) < 2:
                raise DockerfileError(
                    f"line {number}: COPY takes <src>... <dst> without flags"
                )
            spec.copies.append((words[:-1], words[-1]))
        elif instr == "ENV":
            spec.env.update(_pairs(rest))
        elif instr == "LABEL":
            spec.labels.update(_pairs(rest))
        elif instr == "ENTRYPOINT":
            spec.entrypoint = _exec_form(rest)
        elif instr == "CMD":
            spec.cmd = _exec_form(rest)
        elif instr == "WORKDIR":
            spec.workdir = rest
        elif instr == "USER":
            spec.user = rest
    if not seen_from:
        raise DockerfileError("the Dockerfile has no FROM scratch")
    return spec


def _add(tar: tarfile.TarFile, src: Path, arcname: str) -> None:
    info = tar.gettarinfo(str(src), arcname=arcname)
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = 0
    if info.isfile():
        with src.open("rb") as fh:
            tar.addfile(info, fh)
    else:
        tar.addfile(info)


def _layer(context: Path, sources: list[str], dest: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for src_name in sources:
            src = (context / src_name).resolve()
            if not src.is_relative_to(context.resolve()) or not src.exists():
                raise DockerfileError(
                    f"COPY source {src_name!r} is not in the context {context}"
                )
            if src.is_dir() and not src.is_symlink():
                base = dest.strip("/")
                for path in sorted(src.rglob("*")):
                    rel = path.relative_to(src).as_posix()
                    _add(tar, path, f"{base}/{rel}" if base else rel)
            else:
                target = (
                    dest.rstrip("/") + "/" + src.name if dest.endswith("/") else dest
                )
                _add(tar, src, target.lstrip("/"))
    return buf.getvalue()


def _blob(blobs: dict[str, bytes], data: bytes) -> str:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    blobs[digest] = data
    return digest


def build_image(*, context: Path, tag: str, output: Path) -> str:
    """Build `context/Dockerfile` into an OCI archive at `output`; return the manifest digest."""
    if tag.endswith(":latest") or ":" not in tag.rsplit("/", 1)[-1]:
        raise DockerfileError(
            f"image tag {tag!r} must carry an explicit, non-latest tag"
        )
    spec = parse_dockerfile((context / "Dockerfile").read_text())
    blobs: dict[str, bytes] = {}
    layers, diff_ids = [], []
    for sources, dest in spec.copies:
        raw = _layer(context, sources, dest)
        diff_ids.append("sha256:" + hashlib.sha256(raw).hexdigest())
        # Uncompressed layers: the images never leave the machine, and gzip of a
        # 40 MB static binary in pure Python costs seconds per build for nothing.
        layers.append(
            {
                "mediaType": "application/vnd.oci.image.layer.v1.tar",
                "digest": _blob(blobs, raw),
                "size": len(raw),
            }
        )
    config: dict[str, object] = {"Env": [f"{k}={v}" for k, v in spec.env.items()]}
    for key, value in (
        ("Entrypoint", spec.entrypoint),
        ("Cmd", spec.cmd),
        ("WorkingDir", spec.workdir),
        ("User", spec.user),
        ("Labels", spec.labels),
    ):
        if value:
            config[key] = value
    config_blob = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": config,
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        },
        sort_keys=True,
    ).encode()
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": _blob(blobs, config_blob),
                "size": len(config_blob),
            },
            "layers": layers,
        },
        sort_keys=True,
    ).encode()
    manifest_digest = _blob(blobs, manifest)
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": manifest_digest,
                "size": len(manifest),
                "platform": {"architecture": "amd64", "os": "linux"},
                "annotations": {
                    "io.containerd.image.name": tag,
                    "org.opencontainers.image.ref.name": tag.rsplit(":", 1)[1],
                },
            }
        ],
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_suffix(output.suffix + ".tmp")
    with tarfile.open(tmp, mode="w") as tar:
        files = {
            "oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
            "index.json": json.dumps(index, sort_keys=True).encode(),
        }
        files.update(
            {f"blobs/sha256/{d.split(':', 1)[1]}": b for d, b in blobs.items()}
        )
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size = len(files[name])
            tar.addfile(info, io.BytesIO(files[name]))
    tmp.rename(output)
    return manifest_digest


def image_name(archive: Path) -> str:
    """Return the image reference recorded in an OCI archive written by build_image."""
    with tarfile.open(archive) as tar:
        member = tar.extractfile("index.json")
        if member is None:
            raise ClusterError(f"{archive} has no index.json")
        index = json.load(member)
    return str(index["manifests"][0]["annotations"]["io.containerd.image.name"])
