"""A scenario's place on the cluster, as one fixture: `scene`.

Nearly every scenario asks for the same four fixtures: the API clients, its
fresh namespace, the run's timeouts and its manifest loader. Listed one per
line in each signature, they were most of what `duplicates` found repeated
between scenario files (#8), so a scenario may ask for `scene` instead and read
`scene.clients`, `scene.namespace`, `scene.timeouts` and `scene.manifest`.
`scene` creates nothing the four do not (the namespace is the only thing they
create), so a test asking for it is set up exactly as one asking for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts


@dataclass(frozen=True)
class Scene:
    """The clients, namespace, timeouts and manifest loader of one test."""

    clients: kube.Clients
    """The API clients of the run's cluster (the `kube_clients` fixture)."""
    namespace: str
    """The test's fresh namespace (the `namespace` fixture)."""
    timeouts: Timeouts
    """The run's named timeouts (the `timeouts` fixture)."""
    manifest: Callable[..., dict[str, Any]]
    """Loads a manifest beside the test (the `manifest` fixture)."""
