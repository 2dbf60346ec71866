"""Prepare a run once: find the cluster, check its marker, install, fingerprint.

This is the default `pytest_wpc_prepare_run` implementation; it runs in the
pytest-xdist controller (or the only pytest process), never in a worker.
"""

from __future__ import annotations

import datetime
import logging
import re
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conformance.errors import ClusterRefused
from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import locking
from conformance.harness.instances.layouts import Instance
from conformance.implementations import driving
from conformance.implementations import images
from conformance.implementations import leases
from conformance.implementations import ownership
from conformance.implementations import profiles
from conformance.implementations import sweeping
from conformance.implementations.contexts import ClusterChoice
from conformance.implementations.contexts import Environment
from conformance.implementations.contexts import RunContext

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
FEATURE_GATE = re.compile(
    r'^kubernetes_feature_enabled\{name="([^"]+)",stage="([^"]*)"\} (\d)'
)


def new_session_id() -> str:
    """A run ID that is a valid label value and sorts by time."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{now}-{uuid.uuid4().hex[:6]}"


def locate_cluster(cluster: ClusterChoice) -> tuple[str, str]:
    """Return (kubeconfig path, kubectl path) for the selected cluster.

    Asked of `clusters` in process (what `python -m clusters kubeconfig` and
    `kubectl-path` print), so the run needs no subprocess to find its cluster.
    """
    if cluster.kubeconfig is not None:
        return str(cluster.kubeconfig), shutil.which("kubectl") or "kubectl"
    from clusters import providers

    provider = providers.get(cluster.provider)
    return (
        str(provider.kubeconfig(cluster.cluster)),
        str(provider.kubectl(cluster.cluster)),
    )


def check_marker(clients: kube.Clients, *, allow_foreign: bool) -> dict[str, str]:
    """The marker's data; ClusterRefused unless the cluster is WPC's or allowed."""
    from clusters.access import marker
    from clusters.errors import MarkerMissingError

    try:
        return marker.check(clients.core)
    except MarkerMissingError as exc:
        if not allow_foreign:
            raise ClusterRefused(str(exc)) from exc
        logger.warning("Running against a foreign cluster as allowed: %s", exc)
        return {}


def feature_gates(clients: kube.Clients) -> dict[str, bool]:
    """Alpha and beta feature gates of the API server, from its /metrics."""
    method, url, headers, _body, _post = clients.api.param_serialize(
        "GET", "/metrics", auth_settings=["BearerToken"]
    )
    response = clients.api.call_api(method, url, header_params=headers)
    text = response.read().decode()
    gates = {}
    for line in text.splitlines():
        match = FEATURE_GATE.match(line)
        if match and match.group(2) in {"ALPHA", "BETA"}:
            gates[match.group(1)] = match.group(3) == "1"
    return gates


def environment(
    clients: kube.Clients, *, marker: dict[str, str], provider: str
) -> dict[str, Any]:
    """Kubernetes and runtime versions, nodes, feature gates: the report's fingerprint."""
    from kubernetes import client

    version = client.VersionApi(clients.api).get_code()
    nodes = [
        {
            "name": n.metadata.name,
            "osImage": n.status.node_info.os_image,
            "kernelVersion": n.status.node_info.kernel_version,
            "containerRuntimeVersion": n.status.node_info.container_runtime_version,
            "kubeletVersion": n.status.node_info.kubelet_version,
            "architecture": n.status.node_info.architecture,
        }
        for n in clients.core.list_node().items
    ]
    try:
        gates = feature_gates(clients)
    except (
        Exception
    ) as exc:  # broad on purpose: a fingerprint detail, not worth failing the run
        logger.warning("Cannot read feature gates from /metrics: %s", exc)
        gates = {}
    return {
        "provider": marker.get("provider", provider),
        "kubernetesVersion": version.git_version,
        "containerRuntimeVersions": sorted(
            {n["containerRuntimeVersion"] for n in nodes}
        ),
        "nodes": nodes,
        "featureGates": gates,
        "clusterMarker": marker,
    }


def cluster_block(
    cluster: ClusterChoice, kubeconfig: str, *, server: str, kubernetes_version: str
) -> dict[str, str]:
    """The report's `cluster`: which cluster the run used, as the user would name it.

    A kubeconfig given as it is counts as an existing cluster. The context is
    the current one of the file the run's clients read: for `wpc run
    --provider existing`, the context the user chose (`wpc.run.targeting`).
    """
    from clusters.access import kubeconfigs

    block = {
        "provider": "existing" if cluster.kubeconfig is not None else cluster.provider,
        "context": kubeconfigs.current_context(Path(kubeconfig)),
        "server": server,
    }
    return (
        {**block, "kubernetesVersion": kubernetes_version}
        if kubernetes_version
        else block
    )


def _pod_image_ids(clients: kube.Clients) -> dict[str, str]:
    """Image reference -> the image ID its running containers report."""
    found: dict[str, str] = {}
    for pod in clients.core.list_pod_for_all_namespaces().items:
        for status in (pod.status.container_statuses or []) + (
            pod.status.init_container_statuses or []
        ):
            if status.image and status.image_id:
                found.setdefault(status.image, status.image_id)
    return found


def image_digests(
    clients: kube.Clients, refs: list[str], *, loaded: dict[str, str] | None = None
) -> dict[str, str]:
    """Image reference -> digest of what the run uses.

    The nodes list an image's repo digest only when it came from a registry. An
    image imported from an archive (the local provider's `ctr import`, `kind
    load`) has none: the node lists its tag alone, which is why these used to
    read "unknown (not on any node)" (#12). Then the digest of the archive this
    run loaded (`loaded`, by reference) stands, else the image ID a running
    container of that image reports.
    """
    digests: dict[str, str] = {}
    for node in clients.core.list_node().items:
        for image in node.status.images or []:
            names = image.names or []
            digest = next((n.split("@", 1)[1] for n in names if "@" in n), None)
            for ref in refs:
                if digest and any(n == ref or n.endswith("/" + ref) for n in names):
                    digests[ref] = digest
    for ref, digest in (loaded or {}).items():
        digests.setdefault(ref, digest)
    missing = [ref for ref in refs if ref not in digests]
    if missing:
        running = _pod_image_ids(clients)
        for ref in missing:
            image_id = next(
                (
                    i
                    for image, i in running.items()
                    if image == ref or image.endswith("/" + ref)
                ),
                None,
            )
            if image_id is not None:
                digests[ref] = f"{image_id.rsplit('@', 1)[-1]} (image ID)"
    return {ref: digests.get(ref, "unknown (not on any node)") for ref in refs}


def base_values(
    cluster: ClusterChoice, kubeconfig: str, kubectl: str
) -> dict[str, str]:
    """The placeholders every profile command may use (the built-in ones)."""
    return {
        "repo": str(REPO),
        "python": sys.executable,
        "kubeconfig": kubeconfig,
        "kubectl": kubectl,
        "provider": cluster.provider,
        "cluster": cluster.cluster,
        "cache_dir": str(Environment.from_env().cache_dir),
    }


def load_tools_image(cluster: ClusterChoice) -> None:
    """Build and load the suite's own tools image, whatever the profile.

    Scenarios and the benchmark run their user commands from it.
    """
    logger.info("Building and loading the suite's tools image.")
    images.load_images(
        command=images.tools_command(),
        provider=cluster.provider,
        cluster=cluster.cluster,
        workdir=Environment.from_env().cache_dir / "images" / "tools",
    )


def prepare_run(
    *,
    cluster: ClusterChoice,
    profile: profiles.Profile,
    layouts: tuple[str, ...],
    skip_install: bool,
    log_dir: Path,
    timeouts: Timeouts,
) -> RunContext:
    """Check the cluster, install the implementation, fingerprint the environment.

    Before anything else, the run takes the record of every instance ID it
    installs (`ownership`), held until it ends: two controllers on one ID would
    both act on the run's workflows, and another run would install under it.
    """
    started = time.time()
    session_id = new_session_id()
    kubeconfig, kubectl = locate_cluster(cluster)
    clients = kube.connect(kubeconfig)
    marker = check_marker(clients, allow_foreign=cluster.allow_foreign)
    layouts = tuple(layout for layout in layouts if layout in profile.layouts)
    instances = tuple(profile.instance(layout) for layout in layouts)
    placeholders = base_values(cluster, kubeconfig, kubectl)
    driver = driving.Driver(
        profile=profile,
        values=placeholders,
        log_dir=log_dir,
        timeout=timeouts.install,
    )
    # This run's life lock: only once it is released (the run died or ended) does
    # the next run on this host sweep what this one left (`sweeping`).
    lock_key = str(clients.api.configuration.host)
    locking.hold_for_life(locking.session_lock_name(session_id), cluster=lock_key)
    keeper = None
    if not skip_install:
        # Before anything is built or changed, and held until the run ends: a
        # refused run leaves the host as it was, and no other run installs under
        # these IDs while this one builds, installs and uses them (`ownership`).
        keeper = leases.hold_for_life(
            clients,
            ownership.acquire_all(
                clients,
                claims=[(instance, profile) for instance in instances],
                session_id=session_id,
                timeouts=timeouts,
                life_locks=lock_key,
                cluster_args=cluster.arguments(),
            ),
        )
    # After the refusal above (the command may export a source tree), before
    # anything is installed: a layout the build cannot run (upstream v4.0.x has
    # no init-less one) gets no instance, and the run does not claim it.
    unsupported = {
        layout: why
        for layout, why in driver.unsupported_layouts().items()
        if layout in profile.layouts
    }
    for layout, why in unsupported.items():
        logger.info("Not claiming the %s layout: %s", layout, why)
    claimed = profiles.without_layouts(profile, unsupported).layouts
    layouts = tuple(layout for layout in layouts if layout in claimed)
    instances = tuple(instance for instance in instances if instance.layout in claimed)
    if keeper is not None:  # the records of layouts not claimed go back as they were
        wanted = {instance.instance_id for instance in instances}
        for held in keeper.holds():
            if held.instance_id not in wanted:
                keeper.let_go(held)
    # What runs of this host that died left behind (after the refusal above, which
    # changes nothing; before this run adds anything).
    sweeping.sweep_dead_runs(
        clients,
        cluster=lock_key,
        own_session=session_id,
        profile=profile,
        driver=driver,
        timeouts=timeouts,
        uninstall_hint=" ".join(
            [sys.executable, "-m", "conformance", "uninstall", *cluster.arguments()]
        ),
    )
    if not skip_install:
        # One run at a time builds into the host's cache and loads into the cluster:
        # the suite's own images (tools, test image, artifact servers) are shared.
        with locking.held(
            locking.PREPARE,
            cluster=lock_key,
            holder=f"the run {session_id} preparing {profile.name}",
            timeout=timeouts.prepare_lock,
            interval=timeouts.poll_interval,
            waiting=lambda held_by: logger.info(
                "Waiting for %s to finish (another run on this host prepares the "
                "cluster; up to %.0f s).",
                held_by,
                timeouts.prepare_lock,
            ),
        ):
            load_tools_image(cluster)
            logger.info("Preparing %s (the profile's prepare commands).", profile.name)
            driver.prepare(layouts)
        logger.info(
            "Installing %s: %s.",
            profile.name,
            ", ".join(f"{i.instance_id} in {i.namespace}" for i in instances),
        )
        driver.install(list(instances))
        logger.info("Installed %s.", profile.name)
    fingerprint = environment(clients, marker=marker, provider=cluster.provider)
    return RunContext(
        session_id=session_id,
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        kubeconfig=kubeconfig,
        kubectl=kubectl,
        instances=instances,
        environment=fingerprint,
        images=image_digests(
            clients,
            sorted(profile.images.values()),
            loaded={}
            if skip_install
            else images.loaded_digests(
                Environment.from_env().cache_dir / "images",
                sorted(profile.images.values()),
                since=started,
            ),
        ),
        placeholders=placeholders,
        implementation_version=driver.describe(),
        unsupported_layouts=unsupported,
        cluster=cluster_block(
            cluster,
            kubeconfig,
            server=lock_key,
            kubernetes_version=str(fingerprint.get("kubernetesVersion") or ""),
        ),
    )


def uninstall_instances(
    *,
    cluster: ClusterChoice,
    profile: profiles.Profile,
    instances: list[Instance],
    log_dir: Path,
    timeouts: Timeouts,
    force: bool = False,
) -> list[str]:
    """Uninstall `instances` with the profile's command, forget their records; return the IDs.

    Each record is taken first (`ownership.take_for_uninstall`): refused when it
    names another implementation or a run that may still live holds it, unless
    `force` declares that run abandoned. It is held while the command runs and
    deleted once it succeeded; a failed uninstall releases it, still recorded.
    """
    session_id = new_session_id()
    kubeconfig, kubectl = locate_cluster(cluster)
    clients = kube.connect(kubeconfig)
    check_marker(clients, allow_foreign=cluster.allow_foreign)
    driver = driving.Driver(
        profile=profile,
        values=base_values(cluster, kubeconfig, kubectl),
        log_dir=log_dir,
        timeout=timeouts.install,
    )
    lock_key = str(clients.api.configuration.host)
    # So that a run on this host sees at once that an uninstall killed here is dead.
    locking.hold_for_life(locking.session_lock_name(session_id), cluster=lock_key)
    removed = []
    for instance in instances:
        held = ownership.take_for_uninstall(
            clients,
            instance=instance,
            profile=profile,
            session_id=session_id,
            life_locks=lock_key,
            force=force,
            cluster_args=cluster.arguments(),
        )
        with leases.kept(clients, [] if held is None else [held]) as keeper:
            driver.control("uninstall", instance)
            keeper.release(forget=True)
        removed.append(instance.instance_id)
    return removed


def instance_of(
    profile: profiles.Profile, *, layout: str, instance_id: str
) -> Instance:
    """The instance of `profile` serving `layout` under `instance_id` (any ID)."""
    values = {"instance_id": instance_id, "layout": layout}
    return Instance(
        layout=layout,
        instance_id=instance_id,
        namespace=profile.controller_namespace.format_map(values),
    )


def private_instance(
    profile: profiles.Profile, *, layout: str, instance_id: str, whose: str
) -> Instance:
    """`instance_of`, for a run of its own; HarnessError if it would share a namespace.

    A profile whose controller namespace ignores `{instance_id}` would install
    `whose` instance over (and later uninstall) one of the suite's shared ones:
    refused.
    """
    instance = instance_of(profile, layout=layout, instance_id=instance_id)
    shared = {profile.instance(name).namespace for name in profile.layouts}
    if instance.namespace in shared:
        raise HarnessError(
            f"profile {profile.name}: controller.namespace "
            f"{profile.controller_namespace!r} puts {whose} instance into the "
            f"shared namespace {instance.namespace}"
        )
    return instance


@contextmanager
def installed(driver: driving.Driver, instance: Instance) -> Iterator[Instance]:
    """Install `instance` with the profile's command; uninstall it afterwards.

    The caller holds the instance's record (`ownership`) when it needs one.
    """
    logger.info(
        "[%s] Installing %s instance %s of %s.",
        instance.namespace,
        instance.layout,
        instance.instance_id,
        driver.profile.name,
    )
    try:
        driver.control("install", instance)
        yield instance
    finally:
        driver.control("uninstall", instance)
        logger.info(
            "[%s] Uninstalled instance %s.", instance.namespace, instance.instance_id
        )


def uninstall_shared(
    *,
    cluster: ClusterChoice,
    profile: profiles.Profile,
    layouts: tuple[str, ...],
    log_dir: Path,
    timeouts: Timeouts,
    force: bool = False,
) -> list[str]:
    """Uninstall the profile's shared instances and forget their records; return the IDs.

    What a user runs when `ownership` refuses a run because another
    implementation serves the same instance IDs.
    """
    return uninstall_instances(
        cluster=cluster,
        profile=profile,
        instances=[
            profile.instance(layout) for layout in layouts if layout in profile.layouts
        ],
        log_dir=log_dir,
        timeouts=timeouts,
        force=force,
    )
