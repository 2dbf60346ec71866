"""The chaostoolkit control every WPC experiment declares: the session's life.

Before the experiment: check the cluster is WPC's, load the profile, install
the chaos controller instance if it is not there (`wpc_instance: auto`), and
open the session the activities share (`chaos.sessions`). After it: undo any
fault the rollbacks did not (an interrupted run plays none), stop the
recording and delete the namespace if they are still there, judge the run
(`chaos.finishing`), and remove the instance if this run installed it.

chaoslib logs and swallows a control's exceptions, except
`InterruptExecution`; a session that cannot be opened raises that, so the
experiment stops instead of running without a session.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from collections.abc import MutableMapping
from typing import Any

from chaos import declarations
from chaos import finishing
from chaos import instances
from chaos import sessions
from chaos import teardown
from chaos.settings import ChaosSettings
from conformance.harness import kube
from conformance.harness.timeouts import Timeouts
from conformance.implementations import preparing

logger = logging.getLogger(__name__)


def _open(
    experiment: Mapping[str, Any], configuration: MutableMapping[str, Any]
) -> sessions.Session:
    settings = ChaosSettings.from_configuration(configuration)
    declared = declarations.of(experiment)
    if settings.layout not in declared.layouts:
        raise ValueError(
            f"experiment {declared.name} does not apply to the {settings.layout} "
            f"layout (only {', '.join(declared.layouts)})"
        )
    timeouts = Timeouts().scaled(settings.timeout_scale)
    kubeconfig, kubectl = instances.locate(settings)
    clients = kube.connect(kubeconfig)
    preparing.check_marker(clients, allow_foreign=False)
    profile = instances.load_profile(settings)
    instance = instances.chaos_instance(profile, settings.layout)
    drv = instances.driver(
        settings, profile, kubeconfig=kubeconfig, kubectl=kubectl, timeouts=timeouts
    )
    session = sessions.Session(
        session_id=sessions.new_id(),
        experiment=declared.name,
        settings=settings,
        profile=profile,
        instance=instance,
        driver=drv,
        clients=clients,
        timeouts=timeouts,
        run_dir=settings.reports_dir
        / "chaos"
        / profile.name
        / f"{declared.name}-{settings.layout}",
        run_id=time.strftime("chaos-%Y%m%d-%H%M%S"),
        declaration=declared,
    )
    selector = profile.controller_selector(instance)
    if settings.instance == "auto" and not instances.is_installed(
        clients, instance, selector
    ):
        instances.install(drv, [instance], settings=settings)
        session.installed = True
    sessions.register(session)
    configuration[sessions.SESSION_KEY] = session.session_id
    return session


def before_experiment_control(
    context: Mapping[str, Any],
    configuration: MutableMapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Open the experiment's session; InterruptExecution if that fails."""
    from chaoslib.exceptions import InterruptExecution

    if configuration is None:
        raise InterruptExecution("the WPC control needs the experiment's configuration")
    try:
        session = _open(context, configuration)
    except Exception as exc:  # the one place: any failure here stops the run
        logger.exception("Cannot open the WPC chaos session.")
        raise InterruptExecution(f"cannot open the WPC chaos session: {exc}") from exc
    logger.info(
        "[%s] Session %s opened on instance %s (%s).",
        session.experiment,
        session.session_id,
        session.instance.instance_id,
        session.settings.layout,
    )


def after_experiment_control(
    context: Mapping[str, Any],
    state: Mapping[str, Any] | None = None,
    configuration: MutableMapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Restore what is left, judge the run, write the report, close the session."""
    try:
        session = sessions.current(configuration)
    except Exception:
        logger.error("No WPC chaos session to finish (it never opened).")
        return
    try:
        errors = teardown.safety_net(session)
        finishing.finish(session, state or {}, teardown_errors=errors)
    finally:
        try:
            if session.installed:
                instances.uninstall(session.driver, [session.instance])
        finally:
            sessions.close(session)
