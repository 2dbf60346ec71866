"""kind clusters asleep in WPC's stopped engine: found from its data root, offline.

kind gives every node container the restart policy `on-failure:1`, so a cluster
whose engine was killed (a reboot, a killed session) is not gone: its node
containers start again the moment the engine does, typically when the next
`clusters up --provider kind` starts it for another cluster. Asking the engine
(`docker ps`) cannot see them while it is down, so the one-cluster rule and
`status` read dockerd's own record of each container instead
(`<data root>/containers/<id>/config.v2.json`, its labels under `Config.Labels`).
"""

from __future__ import annotations

import json
from pathlib import Path

from clusters.docker.settings import DockerSettings

CLUSTER_LABEL = "io.x-k8s.kind.cluster"
"""The label kind puts on every node container."""


def containers_dir(s: DockerSettings) -> Path:
    """Where our dockerd keeps one directory per container (its `--data-root`)."""
    return s.state_root / "data" / "containers"


def dormant_clusters(s: DockerSettings) -> list[str]:
    """Names of the kind clusters with node containers recorded in our engine's data.

    Meaningful while the engine is down (when it answers, ask it instead); an
    external engine is not ours to read, and a record we cannot parse is not a
    node of a cluster we could name.
    """
    if s.external or not containers_dir(s).is_dir():
        return []
    names = set()
    for record in containers_dir(s).glob("*/config.v2.json"):
        try:
            labels = json.loads(record.read_text(encoding="utf-8"))["Config"]["Labels"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # intentionally ignore: a half-written or foreign record
        if isinstance(labels, dict) and isinstance(labels.get(CLUSTER_LABEL), str):
            names.add(labels[CLUSTER_LABEL])
    return sorted(names)
