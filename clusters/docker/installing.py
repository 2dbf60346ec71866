"""Install Debian's docker.io (and the node image builder's mmdebstrap) without starting services.

Debian's maintainer scripts start the packaged dockerd and containerd when
they can; this project starts its own, with its own state, and must not find
a second pair running on the default sockets. `policy-rc.d` answering 101
("action forbidden") is Debian's documented way to hold service starts back
during an install; we add one only for the install if the host has none.
"""

from __future__ import annotations

import logging
from pathlib import Path

from clusters.machine import hostdeps

logger = logging.getLogger(__name__)

PACKAGES = (
    "docker.io",  # dockerd 20.10 (>= 20.10 for --cgroupns=private), its CLI, containerd 1.6, runc
    "mmdebstrap",  # the kind node image's Debian root file system
)
POLICY_RC_D = Path("/usr/sbin/policy-rc.d")
HOLD_BACK = "#!/bin/sh\n# wpc: no service starts during this install\nexit 101\n"


def ensure(log_path: Path, *, policy: Path = POLICY_RC_D) -> list[str]:
    """apt-get install whatever is missing, with service starts held back; return it."""
    todo = hostdeps.missing(PACKAGES)
    if not todo:
        return []
    logger.info("Installing %s with service starts held back.", " ".join(todo))
    ours = not policy.exists()
    if ours:
        policy.write_text(HOLD_BACK)
        policy.chmod(0o755)
    try:
        hostdeps.apt_install(todo, log_path)
    finally:
        if ours:
            policy.unlink()
    return todo
