"""Run the README's commands on a fresh Debian 12, in a container, and say what happened.

"Works on a fresh Debian 12" is a claim about the README, so the README is what
runs: its bare-machine bootstrap block is read out of README.md, not copied
here. The machine is a Debian bookworm `minbase` root file system made by
mmdebstrap from Debian's packages (barer than a cloud image: no Python, no
make, no Go), imported into the project's own Docker engine (the kind
provider's), with a clean clone of the repository at HEAD. Inside it, as root:
the bootstrap block, then the make targets asked for (by default `lint`,
`host-deps` and `unit-test`: make test's steps before the cluster). Everything is cold: no cache of this
machine is mounted, so a missing install step fails here even when a warm
machine hides it.

The container reaches only what the host reaches (the package registries).
Targets that bring up the local cluster (`conformance`, `test`, ...) run too:
the container shares the host's kernel and network (the local provider changes
iptables, routes and sysctls there, as it would on the machine, so no cluster
of the host may be up), and its state and cache directories are fresh host
directories, since containerd's snapshots cannot sit on the container's own
overlay (the same for the kind provider's Docker engine, which `make test`
starts in there). After such targets the local cluster is brought down inside
the container, whatever happened, so nothing it set up on the host's network
outlives the run; `make test`'s kind stage brings its own cluster and engine
down itself.

A real virtual machine was tried first: this project's machines offer
`/dev/kvm`, but a guest kernel under KVM never prints a line (qemu's `-cpu host`
aborts on MSR 0x10a) and under TCG it is an emulator, far too slow for a
Kubernetes build.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from clusters import docker
from clusters.docker import cli as docker_cli
from clusters.docker import daemons
from clusters.docker import hostnet
from clusters.kind import rootfs
from clusters.machine import processes
from plumbing.gobuilding import BuildSettings

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
LOCAL_ANCHORS = Path("/usr/local/share/ca-certificates")
"""The host's own trust anchors. Where egress goes through a TLS-inspecting proxy (this
project's machines), every machine on that network needs them, fresh or not: they are
mounted read-only and installed before the README's commands, and pip is pointed at the
system bundle, as /etc/pip.conf does on the host."""
BARE_PACKAGES = ("ca-certificates",)
"""minbase plus the CA bundle: apt over https to the mirrors is all a bare host has."""
IMAGE_PREFIX = "wpc.local/fresh-debian"
DEFAULT_TARGETS = ("lint", "host-deps", "unit-test")
CLUSTER_TARGETS = frozenset(
    {
        "conformance",
        "test",
        "cluster-up",
        "cluster-test",
        "negative-controls",
        "chaos",
        "kind-test",
        "chaos-kind",
    }
)
"""Targets that bring up a local or kind cluster on the (shared) host kernel and network."""
STATE_DIR = "/var/lib/wpc"
DOCKER_DIR = "/var/lib/wpc-docker"
"""The kind provider's own Docker engine (`make test`'s kind stage) keeps its images here."""
CACHE_DIR = "/root/.cache"
DEFAULT_CLUSTER = "wpc"
"""The Makefile's CLUSTER default."""
CLUSTER_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
RUN_TIMEOUT = 5400.0
"""Seconds the whole run may take (measured cold: 189 s for the default targets);
past it the machine is removed."""
BOOTSTRAP_MARK = "On a bare machine, as root:"
SUMMARY = re.compile(r"^=+ (?P<summary>.*\d+ (passed|failed).*) =+$", re.M)


class FreshMachineError(Exception):
    """The fresh-machine run could not be set up (not: the README's commands failed)."""


def bootstrap_block(readme: str) -> str:
    """The shell block that follows the README's "On a bare machine, as root:" line."""
    at = readme.find(BOOTSTRAP_MARK)
    if at < 0:
        raise FreshMachineError(
            f"{README}: no line saying {BOOTSTRAP_MARK!r}; the bootstrap block is found "
            "after it"
        )
    match = re.search(r"```sh\n(?P<body>.*?)```", readme[at:], re.S)
    if match is None:
        raise FreshMachineError(f"{README}: no ```sh block after {BOOTSTRAP_MARK!r}")
    return match.group("body").strip()


def needs_cluster(targets: tuple[str, ...]) -> bool:
    """True when a target brings up the local cluster."""
    return any(CLUSTER_TARGETS & set(target.split()[:1]) for target in targets)


def kind_clusters(targets: tuple[str, ...]) -> list[str]:
    """The kind clusters that targets run with `PROVIDER=kind` bring up, by name.

    A target is a make goal and, after it, its variables ("chaos PROVIDER=kind
    CLUSTER=wpc-kind"). `kind-test` and `chaos-kind` bring theirs down themselves;
    the chaos and conformance targets leave the cluster up, as they do for a user.
    """
    names: list[str] = []
    for target in targets:
        words = dict(w.split("=", 1) for w in target.split()[1:] if "=" in w)
        if words.get("PROVIDER") == "kind":
            name = words.get("CLUSTER", DEFAULT_CLUSTER)
            if not CLUSTER_NAME.fullmatch(name):
                # It goes into the script's exit trap, a quoted shell string.
                raise FreshMachineError(
                    f"target {target!r}: CLUSTER={name!r} is not a cluster name "
                    "(lower-case letters, digits and '-')"
                )
            names += [name] if name not in names else []
    return names


def script(bootstrap: str, targets: tuple[str, ...]) -> str:
    """What runs in the container: bootstrap, then each make target, timed and marked.

    With a cluster target, a trap brings the cluster down on the way out (the
    runner's own step, not the README's), each kind cluster of a `PROVIDER=kind`
    target too, and the script exits as the targets did. A target's variables
    are passed to make as separate words.
    """
    lines = [
        "set -eu",
        "export DEBIAN_FRONTEND=noninteractive",
        "cd /root",
        "update-ca-certificates > /dev/null",
        'echo "== bootstrap"',
        f't0=$(date +%s); {bootstrap}; echo "== bootstrap took $(( $(date +%s) - t0 ))s"',
        "cp -a /src /root/wpc && cd /root/wpc",
    ]
    if needs_cluster(targets):
        downs = [
            ".venv/bin/python -m clusters down --provider local",
            *(
                f".venv/bin/python -m clusters down --provider kind --name {name}"
                for name in kind_clusters(targets)
            ),
        ]
        body = "; ".join(f'{d} || echo "== down failed"' for d in downs)
        lines.append(f"trap 'echo \"== down\"; {body}' EXIT")
    for target in targets:
        words = " ".join(shlex.quote(w) for w in target.split())
        lines.append(
            f'echo "== make {target}"; t0=$(date +%s); make {words}; '
            f'echo "== make {target} took $(( $(date +%s) - t0 ))s"'
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Outcome:
    """What the run showed."""

    exit_code: int
    seconds: float
    log_path: Path
    steps: list[str]
    """The `== ...` lines: each step and how long it took."""
    pytest_summaries: list[str]
    skipped: list[str]
    """pytest's `SKIPPED [n] file:line: reason` lines (run with -rs)."""


def _anchors() -> list[str]:
    """`docker run` arguments that hand the host's local trust anchors to the machine."""
    if not any(LOCAL_ANCHORS.glob("*.crt")):
        return []
    return [
        *("-v", f"{LOCAL_ANCHORS}:{LOCAL_ANCHORS}:ro"),
        *("-e", "PIP_CERT=/etc/ssl/certs/ca-certificates.crt"),
    ]


def image(s: docker.DockerSettings, build: BuildSettings) -> str:
    """The bare bookworm image, imported once per root file system."""
    tar = rootfs.ensure(build, name="fresh-debian", packages=BARE_PACKAGES)
    tag = f"{IMAGE_PREFIX}:{rootfs.key(BARE_PACKAGES)}"
    if not docker_cli.succeeds(s, "image", "inspect", tag):
        docker_cli.capture(s, "import", str(tar), tag)
    return tag


def refuse_a_running_cluster(targets: tuple[str, ...]) -> None:
    """Cluster targets share the host's network: a cluster of the host must be down."""
    if not needs_cluster(targets):
        return
    # The trailing slash: our Docker engine lives under /var/lib/wpc-docker.
    running = processes.processes_under(STATE_DIR + "/")
    if running:
        raise FreshMachineError(
            f"targets {' '.join(targets)} bring up a local cluster on the host's network, "
            f"but processes of a cluster under {STATE_DIR} run here (pids {running}); "
            "take it down first: python -m clusters down"
        )


def run(targets: tuple[str, ...], *, log_path: Path) -> Outcome:
    """Clone HEAD, start the bare machine, run bootstrap and targets; return the outcome."""
    refuse_a_running_cluster(targets)
    s = docker.DockerSettings.from_env()
    engine = docker.setup(s)
    try:
        outcome = _run_in(s, targets, log_path)
    finally:
        note = restore_engine(s, started=engine.started)
    return dataclasses.replace(
        outcome, steps=[*outcome.steps, f"== host engine: {note}"]
    )


def restore_engine(s: docker.DockerSettings, *, started: bool) -> str:
    """Leave the host's Docker engine as the run found it, its iptables chains whole.

    The machine shares the host's network namespace but not its process table,
    so an engine that a target started in there (the kind stage) saw no other
    dockerd when it stopped and removed Docker's iptables chains, the host
    engine's too: the host engine, still running, then failed every `docker
    network create` ("No chain/target/match by that name"), and so did the next
    kind cluster. An engine this run started is stopped (its leftovers removed);
    one that ran before and lost its chains is restarted, which makes them anew.
    """
    if started:
        left = docker.teardown(s)
        return "stopped, as before the run" + (f"; left: {left}" if left else "")
    if hostnet.docker_rules():
        return "running, as before the run, its chains whole"
    daemons.stop(s)
    docker.setup(s)
    return "restarted: the run removed its iptables chains"


def _run_in(
    s: docker.DockerSettings, targets: tuple[str, ...], log_path: Path
) -> Outcome:
    tag = image(s, BuildSettings.from_env())
    body = script(bootstrap_block(README.read_text()), targets)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wpc-fresh-") as tmp:
        clone = Path(tmp) / "wpc"
        subprocess.run(
            ["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120
        )
        name = f"wpc-fresh-{Path(tmp).name[-8:]}"
        volumes = _host_state(Path(tmp)) if needs_cluster(targets) else []
        t0 = time.monotonic()
        with log_path.open("w") as log:
            try:
                done = _docker_run(s, name, clone, tag, body, log, volumes)
            except subprocess.TimeoutExpired:
                docker_cli.succeeds(s, "rm", "--force", name)
                raise FreshMachineError(
                    f"the fresh machine {name} ran past {RUN_TIMEOUT:.0f} s and was "
                    f"removed; its log: {log_path}"
                ) from None
        seconds = time.monotonic() - t0
    text = log_path.read_text(errors="replace")
    return Outcome(
        exit_code=done.returncode,
        seconds=seconds,
        log_path=log_path,
        steps=[line for line in text.splitlines() if line.startswith("== ")],
        pytest_summaries=[m.group("summary") for m in SUMMARY.finditer(text)],
        skipped=[line for line in text.splitlines() if line.startswith("SKIPPED")],
    )


def _host_state(tmp: Path) -> list[str]:
    """`docker run` arguments: empty host directories for the cluster's state and cache."""
    args = []
    for inside in (STATE_DIR, DOCKER_DIR, CACHE_DIR):
        outside = tmp / inside.strip("/").replace("/", "-")
        outside.mkdir()
        args += ["-v", f"{outside}:{inside}"]
    return args


def _docker_run(
    s: docker.DockerSettings,
    name: str,
    clone: Path,
    tag: str,
    body: str,
    log: IO[str],
    volumes: list[str],
) -> subprocess.CompletedProcess[bytes]:
    """`docker run` of the bare machine on `clone`, its output into `log`."""
    return subprocess.run(
        [
            *("docker", "run", "--rm", "--name", name),
            # The host's network: the container reaches what the host
            # reaches (the registries), and our dockerd has no bridge.
            *("--network", "host"),
            # Root on a real machine may unshare namespaces (the executor's
            # tests do); a container needs --privileged for that (the engine's
            # runtime still drops what the host itself withholds).
            "--privileged",
            *("-v", f"{clone}:/src:ro"),
            *_anchors(),
            *volumes,
            *("-e", "PYTEST_ADDOPTS=-rs"),
            *(tag, "bash", "-c", body),
        ],
        env=s.env(),
        stdout=log,
        stderr=subprocess.STDOUT,
        timeout=RUN_TIMEOUT,
        check=False,
    )
