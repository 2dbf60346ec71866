"""Who serves an instance ID, so that two controllers never serve one by accident.

The suite's shared controller instances stay installed after a run (the next
run reuses them). If the next run installs another implementation under the
same instance IDs, both controllers act on every workflow, and the verdict
belongs to neither: the first upstream run on our machines saw the reference
controller reject upstream's containerSet workflows and build pods with its
own executor image. So before installing an instance a run checks that the ID
is free:

- WPC records who it installed under an ID in the ConfigMap
  `kube-system/wpc-instance-<id>` (implementation, profile, namespace); a record
  naming another implementation is refused, with the command that removes it;
- with no record, a controller WPC did not install may still serve the ID: a
  canary Workflow carrying the instance label is submitted in a namespace of
  its own, and if anything gives it a status within the unprocessed window,
  the run is refused with what processed it.

`python -m conformance uninstall --implementation NAME --layout LAYOUT
--instance-id ID` removes one recorded instance and its record; the refusal
prints that command with the recorded owner's values and the run's cluster
options, ready to paste. The check runs before the profile's prepare commands,
so a refused run has built and changed nothing.
"""

from __future__ import annotations

import logging
import shlex
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import contract
from conformance.errors import ClusterRefused
from conformance.errors import WaitTimeout
from conformance.harness import kube
from conformance.harness import namespaces
from conformance.harness.layouts import Instance
from conformance.harness.timeouts import Timeouts
from conformance.harness.watching import until
from conformance.implementations import profiles
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

RECORD_NAMESPACE = "kube-system"


class InstanceTaken(ClusterRefused):
    """Another controller already serves an instance ID this run would install.

    A ClusterRefused: the run stops before it changes anything, with exit code
    CLUSTER_REFUSED, as for a cluster without WPC's marker.
    """


@dataclass(frozen=True)
class Owner:
    """What WPC installed under one instance ID."""

    implementation: str
    profile: str
    namespace: str
    layout: str = ""


def _profile_argument(owner: Owner) -> str:
    """The recorded profile as `--implementation` takes it.

    Its path when that is a file other than the bundled profile of its name
    (a profile of the user's own); else the name.
    """
    recorded = Path(owner.profile)
    bundled = profiles.PROFILES_DIR / f"{owner.implementation}.yaml"
    if recorded.is_file() and recorded.resolve() != bundled.resolve():
        return owner.profile
    return owner.implementation


def remove_command(
    owner: Owner, *, instance_id: str, layout: str, cluster_args: tuple[str, ...] = ()
) -> str:
    """The command that removes the instance `owner` recorded under `instance_id`."""
    return shlex.join(
        [
            "python",
            "-m",
            "conformance",
            "uninstall",
            "--implementation",
            _profile_argument(owner),
            "--layout",
            layout,
            "--instance-id",
            instance_id,
            *cluster_args,
        ]
    )


def record_name(instance_id: str) -> str:
    """The ConfigMap that records who serves `instance_id`."""
    return f"wpc-instance-{instance_id}"


def _missing(exc: Exception) -> bool:
    return getattr(exc, "status", None) == 404


def read(clients: kube.Clients, instance_id: str) -> Owner | None:
    """The recorded owner of `instance_id`, or None."""
    from kubernetes.client.exceptions import ApiException

    try:
        cm = clients.core.read_namespaced_config_map(
            record_name(instance_id), RECORD_NAMESPACE
        )
    except ApiException as exc:
        if _missing(exc):
            return None
        raise
    data = cm.data or {}
    return Owner(
        implementation=data.get("implementation", "unknown"),
        profile=data.get("profile", "unknown"),
        namespace=data.get("namespace", "unknown"),
        layout=data.get("layout", ""),
    )


def record(
    clients: kube.Clients, *, instance: Instance, profile: profiles.Profile
) -> None:
    """Record that `profile` serves `instance` (create or replace)."""
    from kubernetes.client.exceptions import ApiException

    body: dict[str, Any] = {
        "metadata": {
            "name": record_name(instance.instance_id),
            "labels": {kube.MANAGED_BY: kube.MANAGED_BY_VALUE},
        },
        "data": {
            "implementation": profile.name,
            "profile": str(profile.path),
            "namespace": instance.namespace,
            "layout": instance.layout,
        },
    }
    try:
        clients.core.create_namespaced_config_map(RECORD_NAMESPACE, body)
    except ApiException as exc:
        if exc.status != 409:
            raise
        clients.core.replace_namespaced_config_map(
            record_name(instance.instance_id), RECORD_NAMESPACE, body
        )


def forget(clients: kube.Clients, instance_id: str) -> None:
    """Remove the record of `instance_id` (idempotent)."""
    from kubernetes.client.exceptions import ApiException

    try:
        clients.core.delete_namespaced_config_map(
            record_name(instance_id), RECORD_NAMESPACE
        )
    except ApiException as exc:
        if not _missing(exc):
            raise


def _canary(instance: Instance, image: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{contract.WORKFLOW_GROUP}/{contract.WORKFLOW_VERSION}",
        "kind": "Workflow",
        "metadata": {
            "generateName": "wpc-canary-",
            "labels": {contract.INSTANCE_LABEL: instance.instance_id},
        },
        "spec": {
            "entrypoint": "main",
            "templates": [
                {"name": "main", "container": {"image": image, "command": ["true"]}}
            ],
        },
    }


def _probe_unserved(
    clients: kube.Clients,
    *,
    instance: Instance,
    image: str,
    timeouts: Timeouts,
    session_id: str,
    cluster_args: tuple[str, ...] = (),
) -> None:
    """Refuse if anything processes a canary workflow of `instance` in time."""
    from kubernetes.client.exceptions import ApiException

    ns = f"wpc-canary-{uuid.uuid4().hex[:8]}"
    labels = {kube.MANAGED_BY: kube.MANAGED_BY_VALUE, kube.SESSION: session_id}
    namespaces.create(clients, name=ns, labels=labels)
    try:
        try:
            created = clients.custom.create_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                ns,
                contract.WORKFLOWS,
                _canary(instance, image),
            )
        except ApiException as exc:
            if _missing(exc):  # no Workflow CRD: nothing can serve the ID
                return
            raise
        name = created["metadata"]["name"]

        def processed() -> dict[str, Any] | NotYet:
            wf = clients.custom.get_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                ns,
                contract.WORKFLOWS,
                name,
            )
            status = wf.get("status") or {}
            return dict(status) if status else NotYet("no status")

        try:
            status = until(
                processed,
                timeout=timeouts.unprocessed_window,
                interval=timeouts.poll_interval,
                describe=f"a controller to process canary {ns}/{name}",
            )
        except WaitTimeout:  # nobody served the ID within the window: free
            return
        raise InstanceTaken(
            f"instance ID {instance.instance_id} is already served by a controller WPC did not "
            f"install: canary workflow {ns}/{name} was processed within "
            f"{timeouts.unprocessed_window:g} s (phase {status.get('phase')!r}, message "
            f"{status.get('message', '')!r}). Two controllers would act on every workflow of "
            f"this run. Stop it first (find it with `kubectl get deployments -A` and the "
            f"ConfigMaps whose instanceID is {instance.instance_id}), or if an earlier WPC run "
            f"left it, remove it with: python -m conformance uninstall --implementation <name> "
            f"--layout {instance.layout} --instance-id {instance.instance_id}"
            f"{''.join(' ' + shlex.quote(a) for a in cluster_args)}"
        )
    finally:
        namespaces.delete(clients, name=ns, session_id=session_id, timeouts=timeouts)


def check_free(
    clients: kube.Clients,
    *,
    instance: Instance,
    profile: profiles.Profile,
    timeouts: Timeouts,
    session_id: str,
    cluster_args: tuple[str, ...] = (),
) -> None:
    """Raise InstanceTaken unless `instance`'s ID is free or already `profile`'s.

    `cluster_args` are the run's cluster options (`--provider P --cluster C`, or
    `--kubeconfig F`), repeated in the remove command the refusal prints.
    """
    owner = read(clients, instance.instance_id)
    if owner is not None:
        if owner.implementation == profile.name:
            return  # ours from an earlier run: installing again is idempotent
        raise InstanceTaken(
            f"instance ID {instance.instance_id} is served by implementation "
            f"{owner.implementation!r} (profile {owner.profile}, namespace {owner.namespace}), "
            f"installed by an earlier WPC run; this run would install {profile.name!r} under "
            f"the same ID, and both would act on every workflow. Remove it first: "
            + remove_command(
                owner,
                instance_id=instance.instance_id,
                layout=owner.layout or instance.layout,
                cluster_args=cluster_args,
            )
        )
    _probe_unserved(
        clients,
        instance=instance,
        image=profile.images["tools"],
        timeouts=timeouts,
        session_id=session_id,
        cluster_args=cluster_args,
    )
