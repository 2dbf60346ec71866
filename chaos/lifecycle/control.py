"""The chaostoolkit control every WPC experiment declares: the session's life.

Before the experiment: check the cluster is WPC's, load the profile, install
the chaos controller instance if it is not there (`wpc_instance: auto`), and
open the session the activities share (`chaos.sessions`). After it: undo any
fault the rollbacks did not (an interrupted run plays none), stop the
recording and delete the namespace if they are still there, wait (bounded)
until the controller is available again, judge the run (`chaos.lifecycle.judging`),
and remove the instance if this run installed it. The wait makes a controller
that went down after the second hypothesis (while the rollbacks ran) this
experiment's finding; the next experiment's first hypothesis waits too, so an
aftermath that shows only later delays it (recorded on its timeline) instead
of failing it.

chaoslib logs and swallows a control's exceptions, except
`InterruptExecution`; a session that cannot be opened raises that, so the
experiment stops instead of running without a session.

An experiment that does not apply here (a need it declares that the provider
or the profile does not offer, `chaos.requirements`) is reported
`not-applicable` before anything is installed and interrupted: its method,
hypothesis and rollbacks never run. During the method, an activity that finds
its fault cannot be injected after all (`Unsupported`, the backstop) stops the
method there, since every later step would only fail for want of what it
should have made; the rollbacks and the judging still run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from collections.abc import MutableMapping
from typing import Any

from chaos import activities
from chaos import declarations
from chaos import requirements
from chaos import sessions
from chaos.errors import NotApplicable
from chaos.lifecycle import ending
from chaos.lifecycle import instances
from chaos.lifecycle import judging
from chaos.lifecycle import probes
from chaos.settings import ChaosSettings
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import preparing

logger = logging.getLogger(__name__)

NOT_APPLICABLE_KEY = "wpc_not_applicable"
"""The configuration key holding why the experiment does not apply (when it does not)."""


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
    reasons = requirements.unmet(
        declared.requires, provider=settings.provider, profile=profile
    )
    if reasons:
        judging.not_applicable(
            declared=declared,
            settings=settings,
            profile=profile,
            clients=clients,
            reasons=reasons,
        )
        raise NotApplicable("; ".join(reasons))
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
    except NotApplicable as exc:
        configuration[NOT_APPLICABLE_KEY] = str(exc)
        if isinstance(context, MutableMapping):
            # Nothing was done, so nothing is to be undone: rollbacks would only
            # fail for want of a session (chaoslib reads them after this returns).
            context["rollbacks"] = []
        raise InterruptExecution(f"not applicable: {exc}") from exc
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
        why = (configuration or {}).get(NOT_APPLICABLE_KEY)
        if why:
            logger.info("Not applicable: %s", why)
        else:
            logger.error("No WPC chaos session to finish (it never opened).")
        return
    try:
        errors = ending.safety_net(session)
        aftermath = ""
        if session.phase == sessions.AFTER and (state or {}).get("status") not in (
            "interrupted",
            "aborted",
        ):
            session.phase = sessions.ENDED
            try:
                aftermath = probes.controller_is_back(session)
            except Exception as exc:  # the report must still be written
                errors.append(
                    "could not check the controller after the rollbacks: "
                    f"{type(exc).__name__}: {exc}"
                )
        judging.finish(
            session, state or {}, teardown_errors=errors, aftermath=aftermath
        )
    finally:
        try:
            if session.installed:
                instances.uninstall(session.driver, [session.instance])
        finally:
            sessions.close(session)


def before_method_control(
    context: Mapping[str, Any],
    configuration: MutableMapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Mark the session as in its method (where `Unsupported` stops the run)."""
    try:
        sessions.current(configuration).phase = sessions.METHOD
    except Exception:
        return


def after_method_control(
    context: Mapping[str, Any],
    configuration: MutableMapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """The method is over: a rollback's `Unsupported` must not stop the others."""
    try:
        sessions.current(configuration).phase = sessions.AFTER
    except Exception:
        return


def after_activity_control(
    context: Mapping[str, Any],
    state: Mapping[str, Any] | None = None,
    configuration: MutableMapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Stop the method at an activity that found its fault cannot be injected.

    chaoslib would go on with the next activity, which then fails for want of
    what this one should have made (a node, a pod, a fault window) and turns
    "cannot be injected here" into an error.
    """
    from chaoslib.exceptions import InterruptExecution

    try:
        session = sessions.current(configuration)
    except Exception:
        return
    unsupported = [f for f in session.failures if f.kind == activities.UNSUPPORTED]
    if session.phase == sessions.METHOD and unsupported:
        session.phase = sessions.AFTER
        raise InterruptExecution(f"not applicable: {unsupported[0].message}")
