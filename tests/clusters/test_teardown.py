"""`down` leaves nothing of the local cluster behind: checked, not assumed.

We test this aspect: after `python -m clusters down`, no process, mount,
interface, iptables chain, route, cgroup or state directory of the cluster
remains (clusters.local.provider.leftovers inspects each), and a second
`down` is a no-op (idempotent).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from clusters.local import provider
from clusters.local.settings import LocalSettings

pytestmark = [pytest.mark.cluster, pytest.mark.teardown]


def test_down_leaves_nothing_behind_and_is_idempotent():
    settings = LocalSettings.from_env("wpc")
    assert provider.leftovers(settings), "the cluster should be up before this test"
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-m", "clusters", "down", "--name", "wpc"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert provider.leftovers(settings) == []
