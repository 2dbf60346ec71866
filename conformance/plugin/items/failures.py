"""Failure evidence of one suite item, collected by the process that ran it.

`collect()` writes what the harness can gather about the item's namespace and
its controller instance (`conformance.harness.inspecting.evidence`) under
`<reports>/evidence-<implementation>/<node id>/`, attaches each file to allure
and returns the paths for the report.
"""

from __future__ import annotations

import re
import time

import pytest

from conformance.harness.inspecting import evidence
from conformance.plugin.items import attaching
from conformance.plugin.state import keys
from conformance.plugin.state import runs


def collect(item: pytest.Item) -> list[str]:
    """Write the failed item's evidence, attach it to allure, return the paths."""
    run = runs.of(item.config)
    namespace = item.stash.get(keys.NAMESPACE, None)
    context = run.context
    if namespace is None or context is None:
        return []
    settings = run.settings
    profile = run.profile
    folder = (
        settings.reports_dir
        / f"evidence-{profile.name}"
        / re.sub(r"[^\w.-]+", "_", item.nodeid)
    )
    collector = evidence.Collector(folder)
    clients = run.clients()
    evidence.collect_namespace(collector, clients, namespace)
    instance = context.instance(item.stash[keys.LAYOUT])
    evidence.collect_controller(
        collector,
        clients,
        namespace=instance.namespace,
        selector=profile.controller_selector(instance),
        since_seconds=int(time.time() - item.stash.get(keys.STARTED, time.time())) + 5,
    )
    for piece in collector.pieces:
        attaching.attach_file(piece.path, name=piece.name, yaml=piece.kind == "yaml")
    return [str(p.path) for p in collector.pieces]
