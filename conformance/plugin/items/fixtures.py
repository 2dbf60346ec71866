"""Fixtures of the conformance suite, registered only while the suite runs.

Tests ask for what they need: `workflows` (submit and wait, scoped to the
test's namespace and layout instance), `namespace`, `observations` (recorded
for the cross-layout diff), `manifest` (the test's YAML, `manifest_folder`),
`controller` (restart, stop, start, switch layout or finalizer, set a
configuration field of the test's instance), `artifact_repository` (the
repository's Secrets copied into the test's namespace), `dedicated_instance`
(a private controller instance for tests that change controller-wide settings
mid-flight), `unlabelled_workflows_lock` (for tests that create Workflows
without the instance label, or run a controller without `instanceID`), and
what the profile says: `profile`, `images` (by role) and
`controller_selector` (an instance's controller pods). `scene` bundles
`kube_clients`, `namespace`, `timeouts` and `manifest`, which nearly every
scenario asks for (`conformance.harness.stage.scenes`). No scenario reads the
plugin's state; these fixtures are its only window onto the run.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance import contract
from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing
from conformance.harness.instances import layouts
from conformance.harness.instances import locking
from conformance.harness.instances.controllers import Controller
from conformance.harness.stage import namespaces
from conformance.harness.stage import scenes
from conformance.harness.stage import secrets
from conformance.harness.stage import servers
from conformance.harness.workload import workflows as workflow_ops
from conformance.harness.workload.observations import Observations
from conformance.implementations import driving
from conformance.implementations import profiles
from conformance.implementations import sweeping
from conformance.implementations.contexts import RunContext
from conformance.plugin.items import deferring
from conformance.plugin.selection import collection
from conformance.plugin.state import keys
from conformance.plugin.state import markers
from conformance.plugin.state import runs

UNLABELLED_WORKFLOWS_LOCK = "unlabelled_workflows_lock"
"""The fixture of tests that create Workflows without the instance label."""


@pytest.fixture(autouse=True)
def wpc_layout(request: pytest.FixtureRequest) -> str | None:
    """The layout this item runs in (the plugin parametrizes it); None for other tests."""
    return getattr(request, "param", None)


@pytest.fixture(scope="session")
def wpc_run(pytestconfig: pytest.Config) -> runs.Run:
    """This process's run object (`conformance.plugin.state.runs`)."""
    return runs.of(pytestconfig)


@pytest.fixture(scope="session")
def run_context(wpc_run: runs.Run) -> RunContext:
    """What the run established once: session ID, kubeconfig, instances."""
    return wpc_run.prepared()


@pytest.fixture(scope="session")
def instances(run_context: RunContext) -> tuple[layouts.Instance, ...]:
    """The run's shared controller instances, one per selected and claimed layout."""
    return run_context.instances


@pytest.fixture(scope="session")
def timeouts(wpc_run: runs.Run) -> Timeouts:
    """The run's named timeouts, already scaled by --timeout-scale."""
    return wpc_run.timeouts


@pytest.fixture(scope="session")
def kube_clients(wpc_run: runs.Run) -> kube.Clients:
    """Kubernetes API clients for the cluster under test (one connection per process)."""
    return wpc_run.clients()


@pytest.fixture(scope="session")
def profile(wpc_run: runs.Run) -> profiles.Profile:
    """The implementation profile under test."""
    return wpc_run.profile


@pytest.fixture(scope="session")
def images(profile: profiles.Profile) -> Mapping[str, str]:
    """The profile's image references by role (`executor`, `tools`, ...)."""
    return profile.images


@pytest.fixture(scope="session")
def controller_selector(profile: profiles.Profile) -> Callable[[layouts.Instance], str]:
    """The label selector of an instance's controller pods (in its namespace)."""
    return profile.controller_selector


@pytest.fixture
def declaration(request: pytest.FixtureRequest) -> markers.Declaration:
    """The test's validated @conformance marker."""
    decl: markers.Declaration | None = request.node.stash.get(keys.DECLARATION, None)
    if decl is None:
        raise HarnessError(
            f"{request.node.nodeid} has no @pytest.mark.conformance marker"
        )
    return decl


@pytest.fixture
def layout(
    wpc_layout: str | None, run_context: RunContext, declaration: markers.Declaration
) -> layouts.Instance:
    """The controller instance serving this item's layout."""
    if wpc_layout is None:
        raise HarnessError("the layout fixture needs a conformance test")
    return run_context.instance(wpc_layout)


@pytest.fixture
def test_labels(
    run_context: RunContext, declaration: markers.Declaration, wpc_layout: str | None
) -> dict[str, str]:
    """Labels for everything this test creates."""
    return kube.labels(
        session_id=run_context.session_id,
        short_name=declaration.short_name,
        layout=wpc_layout or "none",
    )


@pytest.fixture(scope="session")
def namespace_deletions(
    kube_clients: kube.Clients, run_context: RunContext, timeouts: Timeouts
) -> Iterator[namespaces.Deletions]:
    """Test namespaces being deleted; this process awaits them all at its end."""
    deletions = namespaces.Deletions(
        kube_clients, session_id=run_context.session_id, timeouts=timeouts
    )
    yield deletions
    deletions.wait_all()


@pytest.fixture
def namespace(
    request: pytest.FixtureRequest,
    kube_clients: kube.Clients,
    run_context: RunContext,
    declaration: markers.Declaration,
    test_labels: dict[str, str],
    timeouts: Timeouts,
    namespace_deletions: namespaces.Deletions,
) -> Iterator[str]:
    """A fresh namespace with executor RBAC; its deletion starts afterwards.

    The deletion is awaited at the end of the process (`namespace_deletions`),
    except for a test holding the unlabelled-workflows lock: its namespace's
    Workflows carry no instance label, so a later controller without
    `instanceID` would see them until the namespace is gone.
    """
    name = namespaces.unique_name(
        short_name=declaration.short_name, layout=test_labels[kube.LAYOUT]
    )
    request.node.stash[keys.NAMESPACE] = name
    namespaces.create(kube_clients, name=name, labels=test_labels)
    yield name
    if UNLABELLED_WORKFLOWS_LOCK in request.fixturenames:
        namespaces.delete(
            kube_clients,
            name=name,
            session_id=run_context.session_id,
            timeouts=timeouts,
        )
    else:
        namespace_deletions.start(name)


@pytest.fixture
def artifact_repository(
    profile: profiles.Profile,
    kube_clients: kube.Clients,
    namespace: str,
    test_labels: dict[str, str],
) -> list[str]:
    """The profile's artifact repository Secrets, copied into the test's namespace."""
    return secrets.copy_into(
        kube_clients,
        secrets=profile.repository_secrets,
        namespace=namespace,
        labels=test_labels,
    )


@pytest.fixture
def observations(request: pytest.FixtureRequest) -> Observations:
    """Record what the scenario saw; compared across layouts after the run."""
    recorder = Observations()
    request.node.stash[keys.OBSERVATIONS] = recorder
    return recorder


@pytest.fixture
def workflows(
    kube_clients: kube.Clients,
    namespace: str,
    test_labels: dict[str, str],
    layout: layouts.Instance,
    timeouts: Timeouts,
) -> workflow_ops.Workflows:
    """Submit and await workflows in the test's namespace, for its layout's instance."""
    return workflow_ops.Workflows(
        clients=kube_clients,
        namespace=namespace,
        labels=test_labels,
        instance=layout,
        timeouts=timeouts,
    )


@pytest.fixture
def shell(
    kube_clients: kube.Clients, namespace: str, timeouts: Timeouts
) -> executing.Shell:
    """Run commands in the containers of the test's namespace."""
    return executing.Shell(clients=kube_clients, namespace=namespace, timeouts=timeouts)


@pytest.fixture
def http_server(
    kube_clients: kube.Clients,
    namespace: str,
    test_labels: dict[str, str],
    timeouts: Timeouts,
) -> Callable[..., str]:
    """Start an HTTP server pod in the test's namespace (`harness.stage.servers.start`)."""
    return functools.partial(
        servers.start,
        kube_clients,
        namespace=namespace,
        labels=test_labels,
        timeouts=timeouts,
    )


def manifest_folder(test_file: Path) -> Path:
    """Where a test's manifests are: the bundled suite's one folder, or beside the test.

    The bundled suite keeps its scenarios in one folder per clause area
    (`conformance/tests/status/`) and their manifests together in
    `conformance/tests/manifests/`; a suite of one's own keeps them beside its tests.
    """
    if collection.in_suite(test_file):
        return collection.SUITE_DIR / "manifests"
    return test_file.parent / "manifests"


@pytest.fixture
def manifest(
    request: pytest.FixtureRequest,
    declaration: markers.Declaration,
    profile: profiles.Profile,
) -> Callable[..., dict[str, Any]]:
    """Load `manifests/<kebab-short-name>.yaml` (or `manifests/<name>`) of the test."""
    folder = manifest_folder(Path(request.node.path))
    substitutions = {f"{key}_image": ref for key, ref in profile.images.items()}

    def load(name: str | None = None, **extra: str) -> dict[str, Any]:
        return workflow_ops.load_manifest(
            folder / (name or f"{kube.kebab(declaration.short_name)}.yaml"),
            substitutions={**substitutions, **extra},
        )

    return load


@pytest.fixture
def scene(
    kube_clients: kube.Clients,
    namespace: str,
    timeouts: Timeouts,
    manifest: Callable[..., dict[str, Any]],
) -> scenes.Scene:
    """The test's clients, namespace, timeouts and manifest loader, as one."""
    return scenes.Scene(
        clients=kube_clients, namespace=namespace, timeouts=timeouts, manifest=manifest
    )


def _driver(run: runs.Run) -> driving.Driver:
    return driving.Driver(
        profile=run.profile,
        values=run.prepared().placeholders,
        log_dir=run.settings.reports_dir / "logs",
        timeout=run.timeouts.install,
    )


@pytest.fixture
def controller(wpc_run: runs.Run, layout: layouts.Instance) -> Controller:
    """Controller commands for the instance serving this test's layout."""
    return driving.InstanceController(driver=_driver(wpc_run), instance=layout)


@pytest.fixture(scope="session")
def background_teardown() -> Iterator[deferring.Background]:
    """Teardown steps no test waits for; this process joins them at its end."""
    background = deferring.Background()
    yield background
    background.join()


@pytest.fixture
def dedicated_instance(
    request: pytest.FixtureRequest,
    wpc_run: runs.Run,
    run_context: RunContext,
    wpc_layout: str | None,
    kube_clients: kube.Clients,
    background_teardown: deferring.Background,
) -> Iterator[Controller]:
    """A private controller instance (installed now, uninstalled after the test).

    The uninstall runs in the background (`conformance.plugin.items.deferring`), except
    for a test holding the unlabelled-workflows lock: its instance may run without
    `instanceID`, serving every unlabelled Workflow, until it is gone.
    """
    profile = wpc_run.profile
    instance_id = f"wpc-t-{uuid.uuid4().hex[:8]}"
    values = {"instance_id": instance_id, "layout": wpc_layout or contract.LEGACY}
    instance = layouts.Instance(
        layout=values["layout"],
        instance_id=instance_id,
        namespace=profile.controller_namespace.format_map(values),
    )
    # A profile whose controller namespace ignores {instance_id} would install the
    # private instance over a shared one (and uninstall it afterwards): refuse.
    if instance.namespace in {i.namespace for i in run_context.instances}:
        raise HarnessError(
            f"profile {profile.name}: controller.namespace "
            f"{profile.controller_namespace!r} puts dedicated instances into the "
            f"shared namespace {instance.namespace}"
        )
    driver = _driver(wpc_run)
    try:
        driver.control("install", instance)
        # Labelled as this run's, so the next run on this host can remove it
        # should this one die before its teardown (`sweeping`).
        kube_clients.core.patch_namespace(
            instance.namespace,
            {
                "metadata": {
                    "labels": sweeping.private_instance_labels(
                        session_id=run_context.session_id,
                        instance=instance,
                        implementation=profile.name,
                    )
                }
            },
        )
    except BaseException:
        # A failed or interrupted install leaves a half-installed controller that
        # would go on serving (with no instanceID, every unlabelled Workflow of
        # later runs): remove what it made before reporting the failure.
        driver.control("uninstall", instance)
        raise
    try:
        yield driving.InstanceController(driver=driver, instance=instance)
    finally:
        if UNLABELLED_WORKFLOWS_LOCK in request.fixturenames:
            driver.control("uninstall", instance)
        else:
            background_teardown.submit(
                f"uninstall {instance.instance_id}",
                functools.partial(driver.control, "uninstall", instance),
            )


@pytest.fixture
def unlabelled_workflows_lock(
    request: pytest.FixtureRequest, kube_clients: kube.Clients, timeouts: Timeouts
) -> Iterator[None]:
    """Keep this test apart from others that create Workflows without the instance label.

    A controller without `instanceID` processes every such Workflow in the cluster;
    request this before `dedicated_instance`, so the lock outlives its uninstall.
    """
    with locking.held(
        locking.UNLABELLED_WORKFLOWS,
        cluster=str(kube_clients.api.configuration.host),
        holder=request.node.nodeid,
        timeout=timeouts.exclusive_lock,
        interval=timeouts.poll_interval,
    ):
        yield
