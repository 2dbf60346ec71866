"""Change one instance's configuration: layout, status finalizer, any top-level field."""

from __future__ import annotations

import json
from typing import Any

from reference_impl import common
from reference_impl.deploy import rendering
from reference_impl.deploy import rollouts
from reference_impl.deploy import scaling
from reference_impl.deploy.kubectl import Kubectl


def _patch_config(kubectl: Kubectl, patch: dict[str, Any]) -> None:
    kubectl(
        "patch",
        "configmap",
        common.CONFIGMAP_NAME,
        "--type",
        "merge",
        "-p",
        json.dumps(patch),
    )


def set_layout(kubectl: Kubectl, instance: rendering.Instance) -> None:
    """Switch `initlessPod` to the instance's layout (the controller re-reads it live)."""
    data = rendering.config_data(instance)["initlessPod"]
    # Keep the value a whole YAML document (trailing newline): the controller
    # joins keys into one document, and "initlessPod: enabled: true" is invalid.
    _patch_config(kubectl, {"data": {"initlessPod": data}})


def set_status_finalizer(kubectl: Kubectl, *, enabled: bool) -> None:
    """Switch the status-capture finalizer; return once the new controller runs."""
    value = "true" if enabled else "false"
    kubectl(
        "set",
        "env",
        rollouts.DEPLOYMENT,
        f"{common.ENV_STATUS_CAPTURE_FINALIZER}={value}",
    )
    rollouts.rolled_out(kubectl)


def set_config(kubectl: Kubectl, *, key: str, value: Any) -> None:
    """Set one top-level configuration field (None removes it); restart to apply.

    ValueError, before anything runs, for a key that is not one field name.
    """
    patch = rendering.config_patch(key, value)
    _patch_config(kubectl, patch)
    # The controller reads instanceID (its informers' selector and its
    # lease) only at start-up: restart, so every field is in force on return.
    scaling.restart(kubectl)
