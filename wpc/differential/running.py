"""A whole differential run: check, prepare, install both sides, run the corpus, report.

Order matters for what a failure leaves behind. Everything that can be checked
without the cluster (profiles, layout, corpus, known file) is checked first;
then both sides' instance IDs must be free (`ownership`), before any image is
built; then both profiles' prepare commands run, each side's instance is
installed, and each side gets a namespace of its own (labelled, executor RBAC,
the artifact repository's Secret). Workflows go in batches of `inflight`
corpus files, each submitted to both sides at once and awaited with the
suite's `workflow_completed` timeout. On the way out the namespaces are
deleted (and awaited) while the controllers still run, then both instances
are uninstalled and their records forgotten.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from conformance.errors import DataError
from conformance.errors import WaitTimeout
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances.layouts import Instance
from conformance.harness.stage import namespaces
from conformance.harness.stage import secrets
from conformance.harness.workload.workflows import Workflows
from conformance.implementations import driving
from conformance.implementations import leases
from conformance.implementations import ownership
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from wpc.differential import corpus
from wpc.differential import installing
from wpc.differential import known
from wpc.differential import outcomes
from wpc.differential import reporting
from wpc.differential import results
from wpc.differential.corpus import Entry
from wpc.differential.images import ImagePolicy
from wpc.differential.results import FileResult
from wpc.differential.results import SideRun

logger = logging.getLogger(__name__)

Json = dict[str, Any]
SHORT_NAME = "Differential"
"""The `wpc.dev/test` label value and namespace stem of the run's namespaces."""
REJECTED = "<rejected by the API server>"


@dataclass(frozen=True)
class Settings:
    """One differential run, as the command line asked for it."""

    a: str
    b: str
    corpus: Path
    layout: str = "legacy"
    a_vars: dict[str, str] = field(default_factory=dict)
    b_vars: dict[str, str] = field(default_factory=dict)
    known: Path | None = known.SHIPPED
    policy: ImagePolicy = field(default_factory=ImagePolicy)
    out: Path = Path("reports")
    prepare: bool = True
    inflight: int = 3
    """Corpus files in flight at once (each runs on both sides): small enough that
    a 2-core node is not so loaded that timing alone separates the sides."""
    timeouts: Timeouts = field(default_factory=Timeouts)

    def result_path(self, a: str, b: str) -> Path:
        """`<out>/differential-<a>-vs-<b>-<layout>.yaml`."""
        return self.out / f"differential-{a}-vs-{b}-{self.layout}.yaml"


@dataclass(frozen=True)
class Side:
    """One side while the run lasts."""

    letter: str
    driver: driving.Driver
    instance: Instance


def _profiles(settings: Settings) -> tuple[profiles.Profile, profiles.Profile]:
    a = profiles.load(settings.a, variables=settings.a_vars)
    b = profiles.load(settings.b, variables=settings.b_vars)
    for letter, profile in (("a", a), ("b", b)):
        if settings.layout not in profile.layouts:
            raise DataError(
                f"--{letter} {profile.name}: the profile does not claim layout "
                f"{settings.layout} (it claims {', '.join(profile.layouts)})"
            )
    return a, b


@contextmanager
def _namespace(
    clients: kube.Clients, side: Side, *, session_id: str, timeouts: Timeouts
) -> Iterator[Workflows]:
    """The side's namespace, ready for workflows; deleted and awaited afterwards."""
    layout = side.instance.layout
    labels = kube.labels(session_id=session_id, short_name=SHORT_NAME, layout=layout)
    name = namespaces.unique_name(
        short_name=SHORT_NAME, layout=f"{layout}-{side.letter}"
    )
    namespaces.create(clients, name=name, labels=labels)
    try:
        namespaces.wait_default_account(clients, name, timeouts)
        secrets.copy_into(
            clients,
            secrets=side.driver.profile.repository_secrets,
            namespace=name,
            labels=labels,
        )
        yield Workflows(
            clients=clients,
            namespace=name,
            labels=labels,
            instance=side.instance,
            timeouts=timeouts,
        )
    finally:
        namespaces.delete(clients, name=name, session_id=session_id, timeouts=timeouts)


def _submit(workflows: Workflows, manifest: Json) -> str | SideRun:
    """The new workflow's name, or the finished SideRun of a manifest the API refused."""
    from kubernetes.client.exceptions import ApiException

    try:
        return workflows.submit(manifest)
    except ApiException as exc:
        if exc.status not in (400, 422):
            raise
        return SideRun(
            workflow="",
            completed=True,
            outcome={
                "phase": REJECTED,
                "message": str(exc.body or exc.reason),
                "nodes": {},
            },
        )


def _await(workflows: Workflows, submitted: str | SideRun) -> SideRun:
    if isinstance(submitted, SideRun):
        return submitted
    try:
        workflow = workflows.wait_completed(submitted)
    except WaitTimeout as exc:
        return SideRun(
            workflow=submitted,
            completed=False,
            outcome=outcomes.normalise(workflows.get(submitted)),
            note=str(exc),
        )
    return SideRun(
        workflow=submitted, completed=True, outcome=outcomes.normalise(workflow)
    )


def compare_corpus(
    entries: list[Entry],
    a: Workflows,
    b: Workflows,
    *,
    known_files: dict[str, str],
    inflight: int,
) -> list[FileResult]:
    """Run every runnable entry on both sides, `inflight` files at a time; judge each."""
    found: list[FileResult] = []
    runnable = []
    for entry in entries:
        if entry.manifest is None:
            found.append(results.skipped(entry.file, entry.skipped))
        else:
            runnable.append(entry)
    for start in range(0, len(runnable), inflight):
        batch = runnable[start : start + inflight]
        submitted = []
        for entry in batch:
            assert entry.manifest is not None
            submitted.append(
                (entry, _submit(a, entry.manifest), _submit(b, entry.manifest))
            )
        for entry, on_a, on_b in submitted:
            result = results.judge(
                entry.file, _await(a, on_a), _await(b, on_b), known=known_files
            )
            logger.info("%s: %s", entry.file, result.verdict)
            found.append(result)
    return sorted(found, key=lambda r: r.file)


def _report_side(side: Side, *, version: str, namespace: str) -> reporting.Side:
    profile = side.driver.profile
    return reporting.Side(
        implementation=profile.name,
        version=version or profile.version,
        profile=str(profile.path),
        variables=profile.variables,
        instance_id=side.instance.instance_id,
        controller_namespace=side.instance.namespace,
        namespace=namespace,
    )


def run(settings: Settings, *, cluster: ClusterChoice) -> Json:
    """The whole run; writes the report and returns it."""
    started = time.monotonic()
    profile_a, profile_b = _profiles(settings)
    entries = corpus.load(settings.corpus, policy=settings.policy)
    known_files = known.load(settings.known)
    listed = {e.file for e in entries}
    for file in sorted(set(known_files) - listed):
        logger.info(
            "Known file %s lists %s, which is not in this corpus.", settings.known, file
        )
    log_dir = settings.out / "logs"
    context = preparing.prepare_run(
        cluster=cluster,
        profile=profile_a,
        layouts=(settings.layout,),
        skip_install=True,
        log_dir=log_dir,
        timeouts=settings.timeouts,
    )
    clients = kube.connect(context.kubeconfig)
    sides = []
    for letter, profile in (("a", profile_a), ("b", profile_b)):
        driver = driving.Driver(
            profile=profile,
            values=context.placeholders,
            log_dir=log_dir,
            timeout=settings.timeouts.install,
        )
        instance = installing.side_instance(driver, side=letter, layout=settings.layout)
        sides.append(Side(letter=letter, driver=driver, instance=instance))
    held = ownership.acquire_all(
        clients,
        claims=[(side.instance, side.driver.profile) for side in sides],
        session_id=context.session_id,
        timeouts=settings.timeouts,
        life_locks=str(clients.api.configuration.host),
        cluster_args=cluster.arguments(),
    )
    with ExitStack() as stack:
        # Held from before prepare until both instances are uninstalled (the
        # contexts below leave first), then forgotten: the instances are gone.
        stack.enter_context(leases.kept(clients, held, forget=True))
        if settings.prepare:
            preparing.load_tools_image(cluster)
            for side in sides:
                logger.info("Preparing %s.", side.driver.profile.name)
                side.driver.prepare((settings.layout,))
        versions = [side.driver.describe() for side in sides]
        for side in sides:
            stack.enter_context(preparing.installed(side.driver, side.instance))
        on_a, on_b = [
            stack.enter_context(
                _namespace(
                    clients,
                    side,
                    session_id=context.session_id,
                    timeouts=settings.timeouts,
                )
            )
            for side in sides
        ]
        found = compare_corpus(
            entries,
            on_a,
            on_b,
            known_files=known_files,
            inflight=settings.inflight,
        )
    header = {
        "sessionId": context.session_id,
        "startedAt": context.started_at,
        "durationSeconds": round(time.monotonic() - started, 1),
        "layout": settings.layout,
        "corpus": str(settings.corpus),
        "known": None if settings.known is None else str(settings.known),
        "imageMap": dict(settings.policy.mapping or {}),
        "allowedImages": sorted(settings.policy.allowed),
        "environment": context.environment,
    }
    document = reporting.document(
        found,
        header=header,
        a=_report_side(sides[0], version=versions[0], namespace=on_a.namespace),
        b=_report_side(sides[1], version=versions[1], namespace=on_b.namespace),
    )
    reporting.write(document, settings.result_path(profile_a.name, profile_b.name))
    return document
