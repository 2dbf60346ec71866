"""Start the controller: connect, read the configuration, win the Lease, then work.

`run` is the typed entry point behind `python -m reference_impl.controller`; it never reads
the environment itself (that happened in `ControllerSettings.from_env`).
"""

from __future__ import annotations

import logging
import threading

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.config import configuration
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.machinery import kube
from reference_impl.controller.machinery import leading
from reference_impl.controller.runtime import health
from reference_impl.controller.runtime import stopping
from reference_impl.controller.runtime.controlling import WorkflowController

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_LOST_LEADERSHIP = 1
EXIT_CANNOT_START = 2


def lease_name(settings: ControllerSettings, instance_id: str) -> str:
    """Return the Lease name: the flag, else Argo's `workflow-controller[-<instanceID>]`."""
    if settings.lease_name:
        return settings.lease_name
    return common.default_lease_name(instance_id)


def run(settings: ControllerSettings, *, stop: threading.Event | None = None) -> int:
    """Run until stopped (exit 0) or leadership is lost (exit 1); 2 when it cannot start."""
    stop = stop or stopping.stop_on_signals(
        ignored=commission.ignored_signals(settings.commission)
    )
    try:
        api = kube.KubeApi(kube.load_configuration(settings.kubeconfig))
        configmap = api.get_configmap(settings.namespace, settings.configmap)
        startup = configuration.parse((configmap or {}).get("data"))
        # Last: Ready (the readiness probe) means the signals above are handled.
        server = (
            health.HealthServer(settings.health_port)
            if settings.health_port is not None
            else None
        )
    except errors.ControllerError as err:
        logger.error(
            "[%s/%s] Cannot start: %s", settings.namespace, settings.configmap, err
        )
        return EXIT_CANNOT_START
    try:
        return _work(settings, api, startup, stop)
    finally:
        if server is not None:
            server.close()


def _work(
    settings: ControllerSettings,
    api: kube.KubeApi,
    startup: configuration.ControllerConfig,
    stop: threading.Event,
) -> int:
    """Work until stopped (exit 0) or leadership is lost (exit 1)."""
    if settings.fault_name:
        logger.warning("Running with the deliberate fault %r.", settings.fault_name)
    controller = WorkflowController(api=api, settings=settings, startup_config=startup)
    if not settings.leader_election:
        controller.start(stop)
        stop.wait()
        return EXIT_OK
    elector = leading.LeaderElector(
        api=api,
        namespace=settings.namespace,
        name=lease_name(settings, startup.instance_id),
        identity=settings.identity,
        # Proof for the negative controls that this process runs the fault they judge.
        annotations={common.ANNOTATION_REFERENCE_FAULT: settings.fault_name},
    )
    elector.run(stop=stop, on_started=lambda: controller.start(stop))
    if stop.is_set():
        return EXIT_OK
    stop.set()
    return EXIT_LOST_LEADERSHIP
