"""Fixtures of the conformance suite, registered only while the suite runs.

Tests ask for what they need: `workflows` (submit and wait, scoped to the
test's namespace and layout instance), `namespace`, `observations` (recorded
for the cross-layout diff), `manifest` (the YAML beside the test),
`controller` (restart, stop, start, switch layout or finalizer, set a
configuration field of the test's instance), `artifact_repository` (the
repository's Secrets copied into the test's namespace), `dedicated_instance`
(a private controller instance for tests that change controller-wide settings
mid-flight) and `unlabelled_workflows_lock` (for tests that create Workflows
without the instance label, or run a controller without `instanceID`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance import contract
from conformance.errors import HarnessError
from conformance.harness import kube
from conformance.harness import layouts
from conformance.harness import locking
from conformance.harness import namespaces
from conformance.harness import secrets
from conformance.harness import workflows as workflow_ops
from conformance.harness.observations import Observations
from conformance.harness.timeouts import Timeouts
from conformance.implementations import driving
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from conformance.plugin import markers
from conformance.plugin import state


def _context(config: pytest.Config) -> RunContext:
    context = config.stash.get(state.CONTEXT, None)
    if context is None:
        raise HarnessError(
            "the run was not prepared (no cluster): cannot use cluster fixtures"
        )
    return context


@pytest.fixture(autouse=True)
def wpc_layout(request: pytest.FixtureRequest) -> str | None:
    """The layout this item runs in (the plugin parametrizes it); None for other tests."""
    return getattr(request, "param", None)


@pytest.fixture(scope="session")
def run_context(pytestconfig: pytest.Config) -> RunContext:
    """What the run established once: session ID, kubeconfig, instances."""
    return _context(pytestconfig)


@pytest.fixture(scope="session")
def timeouts(pytestconfig: pytest.Config) -> Timeouts:
    """The run's named timeouts, already scaled by --timeout-scale."""
    return pytestconfig.stash[state.TIMEOUTS]


@pytest.fixture(scope="session")
def kube_clients(run_context: RunContext) -> kube.Clients:
    """Kubernetes API clients for the cluster under test."""
    return kube.connect(run_context.kubeconfig)


@pytest.fixture
def declaration(request: pytest.FixtureRequest) -> markers.Declaration:
    """The test's validated @conformance marker."""
    decl: markers.Declaration | None = request.node.stash.get(state.DECLARATION, None)
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


@pytest.fixture
def namespace(
    request: pytest.FixtureRequest,
    kube_clients: kube.Clients,
    run_context: RunContext,
    declaration: markers.Declaration,
    test_labels: dict[str, str],
    timeouts: Timeouts,
) -> Iterator[str]:
    """A fresh namespace with executor RBAC; deleted (and awaited) afterwards."""
    name = namespaces.unique_name(
        short_name=declaration.short_name, layout=test_labels[kube.LAYOUT]
    )
    request.node.stash[state.NAMESPACE] = name
    namespaces.create(kube_clients, name=name, labels=test_labels)
    yield name
    namespaces.delete(
        kube_clients, name=name, session_id=run_context.session_id, timeouts=timeouts
    )


@pytest.fixture
def artifact_repository(
    request: pytest.FixtureRequest,
    kube_clients: kube.Clients,
    namespace: str,
    test_labels: dict[str, str],
) -> list[str]:
    """The profile's artifact repository Secrets, copied into the test's namespace."""
    profile = request.config.stash[state.PROFILE]
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
    request.node.stash[state.OBSERVATIONS] = recorder
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
def manifest(
    request: pytest.FixtureRequest, declaration: markers.Declaration
) -> Callable[..., dict[str, Any]]:
    """Load `manifests/<kebab-short-name>.yaml` (or `manifests/<name>`) beside the test."""
    folder = Path(request.node.path).parent / "manifests"
    profile = request.config.stash[state.PROFILE]
    images = {f"{key}_image": ref for key, ref in profile.images.items()}

    def load(name: str | None = None, **extra: str) -> dict[str, Any]:
        return workflow_ops.load_manifest(
            folder / (name or f"{kube.kebab(declaration.short_name)}.yaml"),
            substitutions={**images, **extra},
        )

    return load


@dataclass(frozen=True)
class Controller:
    """The profile's controller commands, bound to one instance."""

    driver: driving.Driver
    instance: layouts.Instance

    def restart(self) -> None:
        """Restart the instance's controller (the profile decides how)."""
        self.driver.control("restart", self.instance)

    def stop(self) -> None:
        """Stop the instance's controller."""
        self.driver.control("stop", self.instance)

    def start(self) -> None:
        """Start the instance's controller again."""
        self.driver.control("start", self.instance)

    def set_layout(self, layout: str) -> None:
        """Switch the instance to another layout (controller-wide in Argo)."""
        self.driver.control("setLayout", self.instance, layout=layout)

    def set_status_finalizer(self, *, enabled: bool) -> None:
        """Switch the pod status-capture finalizer of the instance."""
        self.driver.control(
            "setStatusFinalizer", self.instance, enabled="true" if enabled else "false"
        )

    def set_config(self, key: str, value: Any) -> None:
        """Set top-level configuration field `key` to `value` (None removes it).

        The profile's `setConfig` returns once the controller acts on the change
        (the reference restarts its controller); a profile without it is an error.
        """
        self.driver.control(
            "setConfig", self.instance, **profiles.config_values(key, value)
        )


def _driver(config: pytest.Config, context: RunContext) -> driving.Driver:
    settings = config.stash[state.SETTINGS]
    return driving.Driver(
        profile=config.stash[state.PROFILE],
        values=context.placeholders,
        log_dir=settings.reports_dir / "logs",
        timeout=config.stash[state.TIMEOUTS].install,
    )


@pytest.fixture
def controller(
    pytestconfig: pytest.Config, run_context: RunContext, layout: layouts.Instance
) -> Controller:
    """Controller commands for the instance serving this test's layout."""
    return Controller(driver=_driver(pytestconfig, run_context), instance=layout)


@pytest.fixture
def dedicated_instance(
    pytestconfig: pytest.Config, run_context: RunContext, wpc_layout: str | None
) -> Iterator[Controller]:
    """A private controller instance (installed now, uninstalled after the test)."""
    profile = pytestconfig.stash[state.PROFILE]
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
    ctl = Controller(driver=_driver(pytestconfig, run_context), instance=instance)
    ctl.driver.control("install", instance)
    yield ctl
    ctl.driver.control("uninstall", instance)


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
