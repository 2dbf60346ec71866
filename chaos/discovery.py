"""The extension's activities as chaostoolkit's discovery lists them (`chaos.discover()`).

The `wpc` distribution ships several top-level packages, which `chaos discover`
cannot map to one module, so call it in Python: `python -c "import chaos, json;
print(json.dumps(chaos.discover()))"`.
"""

from __future__ import annotations

from typing import Any

ACTION_MODULES = (
    "chaos.lifecycle.actions",
    "chaos.controller.actions",
    "chaos.controller.configuring",
    "chaos.pod.actions",
    "chaos.node.actions",
    "chaos.node.workers",
)
PROBE_MODULES = (
    "chaos.lifecycle.probes",
    "chaos.controller.probes",
    "chaos.pod.probes",
    "chaos.workflow.probes",
    "chaos.node.placement",
)


def discover(discover_system: bool = True) -> dict[str, Any]:
    """Every exported action and probe; no system discovery (the cluster is the system)."""
    from chaoslib.discovery import discover_actions
    from chaoslib.discovery import discover_probes
    from chaoslib.discovery import initialize_discovery_result

    result: dict[str, Any] = initialize_discovery_result("wpc", "0.1.0", "wpc")
    for module in ACTION_MODULES:
        result["activities"].extend(discover_actions(module))
    for module in PROBE_MODULES:
        result["activities"].extend(discover_probes(module))
    return result
