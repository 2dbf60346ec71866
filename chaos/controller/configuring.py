"""Configuration faults: the controller builds pods from a faulty executor image.

Driven through the profile's `setConfig` only (Argo's top-level `executor`
field), so the fault reaches any implementation that honours that field; one
that takes its executor image from elsewhere (a command-line flag beats the
field in Argo) shows it in the pods, and the pod probe that checks the image
volume reports the fault as not injectable there.

The field's value before the fault is read from Argo's ConfigMap in the
instance's namespace, so the rollback puts back exactly what was there (an
absent field is removed again), not what we guess the default is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import yaml
from kubernetes.client.exceptions import ApiException

from chaos import sessions
from chaos.activities import activity
from chaos.errors import SessionError
from conformance import contract

logger = logging.getLogger(__name__)

EXECUTOR_KEY = "executor"
"""Argo's configuration field holding the executor container's image and policy."""
FAULTY_EXECUTOR = "executor image without argoexec"
"""The fault's label in the session's fault windows."""
BEFORE = "executor-config-before"
"""Memo key: the `executor` field before the fault (None: it was absent)."""
LOCAL_POLICIES = ("IfNotPresent", "Never")
"""Pull policies that use an image loaded on the node (the suite's images are
`wpc.local/...`: no registry serves them)."""

__all__ = ["restore_executor_config", "use_executor_image"]


def parse_executor(text: str | None) -> dict[str, Any] | None:
    """The ConfigMap's `executor` value as a mapping; None when absent or empty.

    ValueError when it is YAML but not a mapping: a rollback must not guess.
    """
    if text is None or not text.strip():
        return None
    loaded = yaml.safe_load(text)
    if loaded is None:
        return None
    if not isinstance(loaded, dict):
        raise ValueError(f"the `executor` configuration is not a mapping: {text!r}")
    return loaded


def faulty_executor(original: Mapping[str, Any] | None, image: str) -> dict[str, Any]:
    """`original` with `image` as the executor image, pulled only if not on the node.

    Every other field (resources, env, ...) is kept, so the image is the only
    difference the pods show.
    """
    value = dict(original or {})
    value["image"] = image
    if value.get("imagePullPolicy") not in LOCAL_POLICIES:
        value["imagePullPolicy"] = "IfNotPresent"
    return value


def _current_executor(session: sessions.Session) -> dict[str, Any] | None:
    try:
        config_map = session.clients.core.read_namespaced_config_map(
            contract.CONFIGMAP, session.instance.namespace
        )
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise
    return parse_executor((config_map.data or {}).get(EXECUTOR_KEY))


@activity
def use_executor_image(
    image: str = "tools", configuration: dict[str, Any] | None = None
) -> str:
    """Make the controller's executor image the profile's `image` (a role: `tools`).

    The suite's tools image has no argoexec: init-less pods then get an
    `argoexec-bin` image volume without the binary. Returns the image set;
    the profile's `setConfig` returns once the controller acts on it.
    """
    session = sessions.current(configuration)
    try:
        reference = session.profile.images[image]
    except KeyError:
        raise SessionError(
            f"the profile has no image {image!r} (has: {sorted(session.profile.images)})"
        ) from None
    original = _current_executor(session)
    session.memo[BEFORE] = original
    controller = session.controller()
    session.fault_began(
        FAULTY_EXECUTOR, restore=lambda: controller.set_config(EXECUTOR_KEY, original)
    )
    controller.set_config(EXECUTOR_KEY, faulty_executor(original, reference))
    logger.info(
        "[%s] Executor image set to %s (was %s).",
        session.experiment,
        reference,
        original,
    )
    return reference


@activity
def restore_executor_config(configuration: dict[str, Any] | None = None) -> bool:
    """Put the `executor` field back as it was; False when no fault is in force.

    Also a rollback: it runs after the method's own restore, and then does nothing.
    """
    session = sessions.current(configuration)
    if BEFORE not in session.memo:
        return False
    original = session.memo.pop(BEFORE)
    session.controller().set_config(EXECUTOR_KEY, original)
    session.fault_ended(FAULTY_EXECUTOR)
    logger.info(
        "[%s] Executor configuration restored: %s.", session.experiment, original
    )
    return True
