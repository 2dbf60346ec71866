"""Node faults are a provider capability.

We test these aspects: the local provider has them and satisfies the
`NodeFaults` protocol; the other providers have none; what each provider
declares it offers (`offers`) matches the capabilities it has, and only the
providers that can make a second node say so; signalling refuses a malformed
container id and fails when no process of the container exists; the process
table the faults search names each process with its cgroup.
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


def test_what_a_provider_offers_is_what_it_has():
    from clusters import providers

    for name in providers.NAMES:
        offered = faults.offers(name)
        assert (faults.NODE_FAULTS in offered) == (faults.of(name) is not None)
        assert (faults.WORKER_FAULTS in offered) == (
            faults.workers_of(name) is not None
        )
    several = {n for n in providers.NAMES if faults.SEVERAL_NODES in faults.offers(n)}
    assert several == {"kind", "existing"}
    assert faults.offers("nonesuch") == frozenset()


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


def test_the_process_table_names_each_process_with_its_cgroup():
    import os
    from pathlib import Path

    from clusters.local import faults as local_faults

    table = {int(entry.name): cgroup for entry, cgroup in local_faults._cgroups()}
    assert table[os.getpid()] == Path("/proc/self/cgroup").read_text()
