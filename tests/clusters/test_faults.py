"""Node faults are a provider capability.

We test these aspects: the local provider has them and satisfies the
`NodeFaults` protocol; the other providers have none; signalling refuses a
malformed container id and fails when no process of the container exists.
"""

from __future__ import annotations

import pytest

from clusters import faults
from clusters.base import NodeFaults
from clusters.errors import ClusterError


def test_only_the_local_provider_can_inject_node_faults():
    local = faults.of("local")
    assert isinstance(local, NodeFaults)
    assert [faults.of(p) for p in ("kind", "k3d", "existing")] == [None, None, None]


def test_signalling_needs_a_real_container():
    local = faults.of("local")
    assert local is not None
    with pytest.raises(ClusterError, match="not a container id"):
        local.signal_container("wpc", "abc", 0)
    with pytest.raises(ClusterError, match="no process"):
        local.signal_container("wpc", "0" * 64, 0)


def test_a_restart_probes_where_the_running_command_serves():
    from clusters.local import faults as local_faults

    argv = ["kube-apiserver", "--bind-address=192.0.2.2", "--secure-port=6443"]
    assert local_faults._flag(argv, "bind-address", "127.0.0.1") == "192.0.2.2"
    assert local_faults._flag(argv, "etcd-servers", "none") == "none"


def test_a_network_cut_needs_a_pod_on_this_node():
    local = faults.of("local")
    assert local is not None
    with pytest.raises(ClusterError, match="no process of pod"):
        local.cut_egress("wpc", "00000000-0000-0000-0000-000000000000")
