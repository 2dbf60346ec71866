"""Who serves an instance ID, so that two controllers never serve one by accident.

The suite's shared controller instances stay installed after a run (the next
run reuses them). If another run installs another implementation, or the same
one at another ref, under the same instance IDs, both controllers act on every
workflow (the first upstream run on our machines saw the reference controller
reject upstream's containerSet workflows and build pods with its own executor
image), or the instance changes under a run that is using it. So the record of
an ID is a lock (`records`: `kube-system/wpc-instance-<id>`), taken before the
profile's prepare commands, so that a refused run has built and changed
nothing:

- no record: the run creates it (create, never replace: of two runs, exactly
  one wins), holding it under its session; then, since a controller WPC did not
  install may still serve the ID, a canary Workflow carrying the instance label
  is submitted in a namespace of its own, and if anything gives it a status
  within the unprocessed window, the run lets the record go and is refused;
- a record held by another run that may still live (`leases.why_dead`) is
  refused, whatever it installs: a second run would rebuild and reinstall under
  the first;
- a record released, or held by a run proven dead, is taken over (a
  conditional replace) when its owner is this run's: the same implementation at
  the same ref and build; another implementation, or the same profile at another
  ref or build, is another owner, refused with the command that removes it.

The run renews its hold while it lasts and releases it at its end
(`leases.hold_for_life`); the owner stays recorded, since what it installed
stays installed. `python -m conformance uninstall --implementation NAME --layout
LAYOUT --instance-id ID` removes one recorded instance and its record, after
the same check (`take_for_uninstall`): only the implementation recorded, and
only when no live run holds it; `--force` takes over a hold its user declares
abandoned. Every refusal is an exit 13 (CLUSTER_REFUSED) and ends with the
command, with the recorded owner's values and the run's cluster options, ready
to paste.
"""

from __future__ import annotations

import datetime
import logging
import shlex
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance import contract
from conformance.errors import ClusterRefused
from conformance.errors import WaitTimeout
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.watching import until
from conformance.harness.instances.layouts import Instance
from conformance.harness.stage import namespaces
from conformance.implementations import leases
from conformance.implementations import profiles
from conformance.implementations import records
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)


class InstanceTaken(ClusterRefused):
    """Another controller serves, or another run holds, an instance ID this run needs.

    A ClusterRefused: the run stops before it changes anything, with exit code
    CLUSTER_REFUSED, as for a cluster without WPC's marker.
    """


def ref_of(profile: profiles.Profile) -> str:
    """What the profile builds: its `ref` variable (a git ref), else its version."""
    return profile.variables.get("ref", "") or profile.version


def build_of(profile: profiles.Profile) -> str:
    """The build key, known before anything is built: the image references (their tags)."""
    return ",".join(f"{key}={ref}" for key, ref in sorted(profile.images.items()))


def owner_of(profile: profiles.Profile, instance: Instance) -> records.Owner:
    """What `profile` would install as `instance`."""
    return records.Owner(
        implementation=profile.name,
        profile=str(profile.path),
        namespace=instance.namespace,
        layout=instance.layout,
        ref=ref_of(profile),
        build=build_of(profile),
    )


def _profile_argument(owner: records.Owner) -> str:
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
    owner: records.Owner,
    instance: Instance,
    *,
    cluster_args: tuple[str, ...] = (),
    force: bool = False,
) -> str:
    """The command that removes what `owner` installed under `instance`'s ID.

    In the layout the record names (a record from before layouts: `instance`'s).
    """
    return shlex.join(
        [
            "python",
            "-m",
            "conformance",
            "uninstall",
            "--implementation",
            _profile_argument(owner),
            "--layout",
            owner.layout or instance.layout,
            "--instance-id",
            instance.instance_id,
            *cluster_args,
            *(["--force"] if force else []),
        ]
    )


def _holder_text(held_by: records.Holder, now: datetime.datetime) -> str:
    age = (now - held_by.renewed).total_seconds()
    return (
        f"session {held_by.session} on host {held_by.host} (pid {held_by.pid}), last "
        f"renewed {age:.0f} s ago; its lease runs out at "
        f"{held_by.expires.isoformat(timespec='seconds')} unless renewed"
    )


def _held_refusal(
    found: records.Record,
    *,
    instance: Instance,
    now: datetime.datetime,
    doing: str,
    cluster_args: tuple[str, ...],
) -> InstanceTaken:
    assert found.holder is not None
    owner = found.owner
    return InstanceTaken(
        f"instance ID {instance.instance_id} is held by a WPC run that may still be "
        f"running: {_holder_text(found.holder, now)}; it uses implementation "
        f"{owner.describe()}. {doing} Let that run finish, or stop it; if it is gone "
        f"(killed on another machine, that machine lost), take the ID over with: "
        + remove_command(owner, instance, cluster_args=cluster_args, force=True)
    )


def _judge(
    found: records.Record,
    *,
    mine: records.Owner,
    instance: Instance,
    session_id: str,
    now: datetime.datetime,
    life_locks: str,
    cluster_args: tuple[str, ...],
) -> str:
    """Raise InstanceTaken unless this run may take `found`; else what taking it means."""
    held_by = found.holder
    dead = None
    if held_by is not None and held_by.session != session_id:
        dead = leases.why_dead(held_by, now=now, life_locks=life_locks)
        if dead is None:
            raise _held_refusal(
                found,
                instance=instance,
                now=now,
                doing=(
                    f"This run ({mine.describe()}) would build and install under it "
                    "while it runs."
                ),
                cluster_args=cluster_args,
            )
    owner = found.owner
    if not owner.same_build(mine):
        died = (
            ""
            if held_by is None or dead is None
            else f" (session {held_by.session}, which is dead: {dead})"
        )
        raise InstanceTaken(
            f"instance ID {instance.instance_id} is served by implementation "
            f"{owner.implementation!r} at ref {owner.ref or '(not recorded)'} (build "
            f"{owner.build or '(not recorded)'}; profile {owner.profile}, namespace "
            f"{owner.namespace}), installed by an earlier WPC run{died}; this run would "
            f"install {mine.describe()} under the same ID (another implementation, ref "
            f"or build is another owner), and both would act on every workflow. Remove "
            f"it first: " + remove_command(owner, instance, cluster_args=cluster_args)
        )
    if held_by is None or dead is None:
        return ""
    return _taking_over(instance, held_by, dead)


def _taking_over(instance: Instance, held_by: records.Holder, dead: str) -> str:
    return (
        f"Taking over instance ID {instance.instance_id} from session "
        f"{held_by.session} (host {held_by.host}, pid {held_by.pid}): {dead}."
    )


def _take(
    clients: kube.Clients,
    found: records.Record,
    *,
    instance: Instance,
    owner: records.Owner,
    session_id: str,
    now: datetime.datetime,
    note: str,
) -> leases.Held | None:
    """Replace `found` with this run as its holder; None if it changed since it was read."""
    if not records.replace(
        clients,
        instance.instance_id,
        version=found.version,
        owner=owner,
        holder=leases.holder(session_id, now),
    ):
        return None
    if note:
        logger.warning("%s", note)
    return leases.Held(instance.instance_id, session_id, created=False)


def _changing(instance: Instance) -> InstanceTaken:
    return InstanceTaken(
        f"the record of instance ID {instance.instance_id} changed {leases.ATTEMPTS} "
        "times while this run tried to take it: other runs are taking it at the same "
        "moment; try again once they have started"
    )


def _missing(exc: Exception) -> bool:
    return getattr(exc, "status", None) == 404


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


def acquire(
    clients: kube.Clients,
    *,
    instance: Instance,
    profile: profiles.Profile,
    session_id: str,
    timeouts: Timeouts,
    life_locks: str,
    cluster_args: tuple[str, ...] = (),
) -> leases.Held:
    """Take `instance`'s record for this run, or raise InstanceTaken.

    `life_locks` keys this host's session locks (the API server's URL);
    `cluster_args` are the run's cluster options (`--provider P --cluster C`, or
    `--kubeconfig F`), repeated in the command a refusal prints.
    """
    mine = owner_of(profile, instance)
    for _ in range(leases.ATTEMPTS):
        now = records.server_now(clients)
        found = records.read(clients, instance.instance_id)
        if found is None:
            if not records.create(
                clients,
                instance.instance_id,
                owner=mine,
                holder=leases.holder(session_id, now),
            ):
                continue  # another run created it first: judge its record
            held = leases.Held(instance.instance_id, session_id, created=True)
            try:
                _probe_unserved(
                    clients,
                    instance=instance,
                    image=profile.images["tools"],
                    timeouts=timeouts,
                    session_id=session_id,
                    cluster_args=cluster_args,
                )
            except BaseException:
                leases.let_go(clients, held)
                raise
            return held
        note = _judge(
            found,
            mine=mine,
            instance=instance,
            session_id=session_id,
            now=now,
            life_locks=life_locks,
            cluster_args=cluster_args,
        )
        taken = _take(
            clients,
            found,
            instance=instance,
            owner=mine,
            session_id=session_id,
            now=now,
            note=note,
        )
        if taken is not None:
            return taken
    raise _changing(instance)


def acquire_all(
    clients: kube.Clients,
    *,
    claims: Iterable[tuple[Instance, profiles.Profile]],
    session_id: str,
    timeouts: Timeouts,
    life_locks: str,
    cluster_args: tuple[str, ...] = (),
) -> list[leases.Held]:
    """`acquire` every (instance, profile), or none: a refusal lets go of those taken."""
    taken: list[leases.Held] = []
    try:
        for instance, profile in claims:
            taken.append(
                acquire(
                    clients,
                    instance=instance,
                    profile=profile,
                    session_id=session_id,
                    timeouts=timeouts,
                    life_locks=life_locks,
                    cluster_args=cluster_args,
                )
            )
    except BaseException:
        for held in taken:
            leases.let_go(clients, held)
        raise
    return taken


def take_for_uninstall(
    clients: kube.Clients,
    *,
    instance: Instance,
    profile: profiles.Profile,
    session_id: str,
    life_locks: str,
    force: bool = False,
    cluster_args: tuple[str, ...] = (),
) -> leases.Held | None:
    """Take `instance`'s record before uninstalling it; None if there is none.

    Refused (InstanceTaken) when the record names another implementation (its
    uninstall commands are not `profile`'s), or when a run that may still live
    holds it, unless `force`: its user declares that run abandoned.
    """
    for _ in range(leases.ATTEMPTS):
        now = records.server_now(clients)
        found = records.read(clients, instance.instance_id)
        if found is None:
            return None
        owner = found.owner
        if owner.implementation != profile.name:
            raise InstanceTaken(
                f"instance ID {instance.instance_id} was installed by implementation "
                f"{owner.describe()}, not {profile.name!r}: {profile.name}'s uninstall "
                f"commands would leave its controller running, and its record would be "
                f"lost. Remove it with: "
                + remove_command(owner, instance, cluster_args=cluster_args)
            )
        held_by = found.holder
        note = ""
        if held_by is not None and held_by.session != session_id:
            dead = leases.why_dead(held_by, now=now, life_locks=life_locks)
            if dead is None and not force:
                raise _held_refusal(
                    found,
                    instance=instance,
                    now=now,
                    doing="Uninstalling it would pull its controller from under that run.",
                    cluster_args=cluster_args,
                )
            note = (
                _taking_over(instance, held_by, dead)
                if dead is not None
                else f"--force: taking over instance ID {instance.instance_id} from "
                f"{_holder_text(held_by, now)}, declared abandoned; if that run still "
                "runs, it loses its controller."
            )
        taken = _take(
            clients,
            found,
            instance=instance,
            owner=owner,
            session_id=session_id,
            now=now,
            note=note,
        )
        if taken is not None:
            return taken
    raise _changing(instance)
