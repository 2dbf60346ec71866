"""Build the kind node image offline, from the project's own builds, cached per version.

`kind build node-image` fetches the images it bakes in from registries and
cannot run without one (issue 15), so the image is assembled here, by the
same steps kind's node images imply:

1. the pinned binaries (`clusters.building`) and two Debian root file systems
   (`rootfs`): the node's and kube-proxy's;
2. the component images kubeadm runs (`componentimages`), built with
   `docker build` and saved into one archive;
3. a base image `FROM scratch`: the node root file system, the binaries, the
   project's units and entrypoint (`nodefiles`), systemd trimmed to what a
   node container needs;
4. containerd started alone in a container of the base image imports the
   component archive into namespace k8s.io (pinned against image GC, not
   unpacked: CRI unpacks on first use), and the container is committed with
   the node entrypoint.

The image is tagged `wpc.local/kind-node:<kubernetes>-<key>`, the key hashing
every input, and saved to `<cache>/components/kind-node-<tag>/node-image.tar`:
a rerun finds the tag in Docker or loads the tar, and air-gapped users
`docker load` the same file (`python -m clusters build-node-image`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from clusters import building
from clusters import pins
from clusters.docker import cli
from clusters.docker.settings import DockerSettings
from clusters.errors import RunError
from clusters.errors import WaitTimeout
from clusters.kind import componentimages
from clusters.kind import nodefiles
from clusters.kind import rootfs
from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings
from plumbing.waiting import NotYet
from plumbing.waiting import until

logger = logging.getLogger(__name__)

BUILDER_REVISION = "1"
"""Bump when a build step changes in a way the inputs' hash cannot see."""

PAUSE_SOURCE = Path(__file__).resolve().parent.parent / "images" / "pause" / "pause.c"

CONTAINERD_START_TIMEOUT = 60.0
"""Seconds for the build container's containerd to answer `ctr version`."""

PRUNE_UNITS = (
    "rm -f /etc/systemd/system/*.wants/* /lib/systemd/system/multi-user.target.wants/*"
    " /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/basic.target.wants/*"
    " /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl*"
    " /lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service"
)
"""A node container needs none of a machine's boot units: no udev, no getty, no
tmpfiles run that would clean what the entrypoint just prepared."""


def base_dockerfile() -> str:
    """The base image: root file system, binaries, our files, trimmed systemd."""
    enable = " ".join(nodefiles.ENABLED_UNITS)
    return (
        "FROM scratch\n"
        "ADD rootfs.tar /\n"
        "COPY bin/ /\n"
        "COPY files/ /\n"
        f"RUN {PRUNE_UNITS} \\\n"
        "  && echo ReadKMsg=no >> /etc/systemd/journald.conf \\\n"
        f"  && systemctl enable {enable} \\\n"
        "  && systemctl mask systemd-binfmt.service \\\n"
        "  && : > /etc/machine-id\n"
        "ENV container=docker\n"
        "STOPSIGNAL SIGRTMIN+3\n"
        'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]\n'
    )


NODE_BINARIES = {
    "kubernetes": {
        "kubeadm": "usr/bin",
        "kubelet": "usr/bin",
        "kubectl": "usr/bin",
    },
    "containerd": {
        "containerd": "usr/local/bin",
        "ctr": "usr/local/bin",
        "containerd-shim-runc-v2": "usr/local/bin",
    },
    "runc": {"runc": "usr/local/sbin"},
    "cni-plugins": {
        "bridge": "opt/cni/bin",
        "host-local": "opt/cni/bin",
        "loopback": "opt/cni/bin",
        "portmap": "opt/cni/bin",
    },
}
"""Component -> executable -> directory in the node."""


def key() -> str:
    """Hash of every input of the image: pins, our files, Dockerfiles, package lists."""
    digest = hashlib.sha256()
    for part in (
        BUILDER_REVISION,
        json.dumps({k: v for k, v in vars(pins).items() if k.isupper()}, default=str),
        json.dumps(nodefiles.files(""), sort_keys=True),
        base_dockerfile(),
        componentimages.IPTABLES_FRONT_END,
        json.dumps(NODE_BINARIES, sort_keys=True),
        rootfs.key(rootfs.NODE_PACKAGES),
        rootfs.key(rootfs.KUBE_PROXY_PACKAGES),
        PAUSE_SOURCE.read_text(),
    ):
        digest.update(part.encode())
    return digest.hexdigest()[:12]


def tag() -> str:
    """The node image's tag for the current inputs."""
    return f"wpc.local/kind-node:{pins.KUBERNETES}-{key()}"


def cache_dir(settings: BuildSettings) -> Path:
    """Where the saved node image of the current inputs lives."""
    return gobuilding.component_dir(
        settings.cache_dir, "kind-node", f"{pins.KUBERNETES}-{key()}"
    )


@dataclass
class Build:
    """One node image build: where it works, logs, and how long each step took."""

    docker: DockerSettings
    settings: BuildSettings
    tag: str
    timings: dict[str, float]

    @property
    def work(self) -> Path:
        """Scratch space for build contexts (removed at the end)."""
        return self.settings.cache_dir / "work" / f"kind-node-{key()}"

    @property
    def log(self) -> Path:
        """Every docker and ctr command of the build."""
        return self.settings.cache_dir / "logs" / "kind-node-image.log"

    def docker_run(self, *args: str) -> None:
        """`docker ARGS` logged to the build log."""
        cli.run(self.docker, *args, log_path=self.log)


def ensure(docker: DockerSettings, settings: BuildSettings) -> str:
    """Make the node image of the current inputs present in our Docker; return its tag."""
    wanted = tag()
    if cli.succeeds(docker, "image", "inspect", "--format", "{{.Id}}", wanted):
        return wanted
    archive = cache_dir(settings) / "node-image.tar"
    if (cache_dir(settings) / gobuilding.STAMP).exists():
        logger.info("Loading the cached node image %s.", archive)
        cli.run(docker, "load", "--input", str(archive), log_path=_log(settings))
        return wanted
    build(docker, settings)
    return wanted


def _log(settings: BuildSettings) -> Path:
    return settings.cache_dir / "logs" / "kind-node-image.log"


def build(docker: DockerSettings, settings: BuildSettings) -> dict[str, float]:
    """Build, tag and save the node image; return the seconds each step took."""
    b = Build(docker=docker, settings=settings, tag=tag(), timings={})
    shutil.rmtree(b.work, ignore_errors=True)
    b.work.mkdir(parents=True)
    try:
        with _timed(b, "binaries"):
            bins = _binaries(settings)
        with _timed(b, "root file systems"):
            node_root = rootfs.ensure(
                settings, name="node", packages=rootfs.NODE_PACKAGES
            )
            proxy_root = rootfs.ensure(
                settings, name="kube-proxy", packages=rootfs.KUBE_PROXY_PACKAGES
            )
        with _timed(b, "component images"):
            archive, names = _component_images(b, bins, proxy_root)
        with _timed(b, "base image"):
            base = _base_image(b, bins, node_root)
        with _timed(b, "import and commit"):
            _import_and_commit(b, base=base, archive=archive, names=names)
        with _timed(b, "save"):
            _save(b)
    finally:
        shutil.rmtree(b.work, ignore_errors=True)
    logger.info("Built the node image %s: %s.", b.tag, b.timings)
    return b.timings


@contextlib.contextmanager
def _timed(b: Build, name: str) -> Iterator[None]:
    logger.info("Node image step: %s.", name)
    t0 = time.monotonic()
    yield
    b.timings[name] = round(time.monotonic() - t0, 1)


def _binaries(settings: BuildSettings) -> dict[str, Path]:
    """Build (or reuse) every component; return their bin directories by name."""
    built = building.build_all(
        settings,
        ["kubernetes", "etcd", "containerd", "runc", "cni-plugins", "coredns"],
    )
    built["pause"] = building.build_pause(settings, PAUSE_SOURCE)
    missing = [
        f"{c}/{exe}"
        for c, exes in NODE_BINARIES.items()
        for exe in exes
        if not (built[c] / exe).exists()
    ]
    if missing:
        raise RunError(
            command=["python", "-m", "clusters", "build-node-image"],
            returncode=1,
            output=f"built components lack {missing}: remove their cache entries "
            f"under {settings.cache_dir / 'components'} and rerun",
        )
    return built


def _place(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _component_images(
    b: Build, bins: dict[str, Path], proxy_root: Path
) -> tuple[Path, list[str]]:
    found = componentimages.images(
        kubernetes=bins["kubernetes"],
        etcd=bins["etcd"],
        coredns=bins["coredns"],
        pause=bins["pause"],
        proxy_rootfs=proxy_root,
    )
    for image in found:
        context = b.work / "images" / image.name.replace("/", "_").replace(":", "_")
        context.mkdir(parents=True)
        for name, src in image.files.items():
            _place(src, context / name)
        for name, text in image.texts.items():
            (context / name).write_text(text)
        (context / "Dockerfile").write_text(image.dockerfile)
        b.docker_run("build", "--network", "none", "--tag", image.name, str(context))
    archive = b.work / "component-images.tar"
    b.docker_run("save", "--output", str(archive), *(i.name for i in found))
    # The archive is all the node needs; the tags would only sit in our Docker.
    b.docker_run("rmi", *(i.name for i in found))
    return archive, [i.name for i in found]


def _base_image(b: Build, bins: dict[str, Path], node_root: Path) -> str:
    context = b.work / "base"
    _place(node_root, context / "rootfs.tar")
    for component, exes in NODE_BINARIES.items():
        for exe, directory in exes.items():
            _place(bins[component] / exe, context / "bin" / directory / exe)
    for path, (text, mode) in nodefiles.files(b.tag).items():
        dest = context / "files" / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
        dest.chmod(mode)
    (context / "Dockerfile").write_text(base_dockerfile())
    base = f"wpc.local/kind-base:{key()}"
    b.docker_run("build", "--network", "none", "--tag", base, str(context))
    return base


def _import_and_commit(b: Build, *, base: str, archive: Path, names: list[str]) -> None:
    name = f"wpc-kind-node-build-{uuid.uuid4().hex[:8]}"
    b.docker_run(
        "run",
        "--detach",
        "--name",
        name,
        "--privileged",
        "--network",
        "none",
        "--entrypoint",
        "/usr/local/bin/containerd",
        base,
    )
    try:
        _wait_containerd(b, name)
        b.docker_run("cp", str(archive), f"{name}:/kind/component-images.tar")
        ctr = ["exec", name, "ctr", "--namespace", "k8s.io"]
        b.docker_run(
            *ctr,
            "images",
            "import",
            "--no-unpack",
            "--digests",
            "/kind/component-images.tar",
        )
        for image in names:
            b.docker_run(
                *ctr, "images", "label", image, "io.cri-containerd.pinned=pinned"
            )
        b.docker_run("exec", name, "rm", "/kind/component-images.tar")
        b.docker_run("kill", "--signal", "TERM", name)
        b.docker_run("wait", name)
        b.docker_run(
            "commit",
            "--change",
            'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]',
            name,
            b.tag,
        )
    finally:
        b.docker_run("rm", "--force", name)
    b.docker_run("rmi", base)


def _wait_containerd(b: Build, name: str) -> None:
    def answers() -> str | NotYet:
        ok = cli.succeeds(b.docker, "exec", name, "ctr", "version")
        return "containerd answers" if ok else NotYet("ctr version fails")

    until(
        answers,
        timeout=CONTAINERD_START_TIMEOUT,
        interval=0.5,
        describe=f"containerd in the build container {name}",
        error=WaitTimeout,
    )


def _save(b: Build) -> None:
    target = cache_dir(b.settings)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    b.docker_run("save", "--output", str(target / "node-image.tar"), b.tag)
    (target / gobuilding.STAMP).write_text(b.tag + "\n")
    # Older node images (other inputs) are a gigabyte each: keep only this one.
    for other in target.parent.glob("kind-node-*"):
        if other != target:
            shutil.rmtree(other, ignore_errors=True)


def export(docker: DockerSettings, settings: BuildSettings, output: Path) -> str:
    """Write the node image as a `docker load`-able tar at `output`; return its tag."""
    wanted = ensure(docker, settings)
    saved = cache_dir(settings) / "node-image.tar"
    output.parent.mkdir(parents=True, exist_ok=True)
    if saved.exists():
        shutil.copyfile(saved, output)
    else:
        cli.run(
            docker, "save", "--output", str(output), wanted, log_path=_log(settings)
        )
    return wanted
