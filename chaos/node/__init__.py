"""Faults of the node: its kubelet, container runtime and API server, its containers.

Only providers with the `clusters.base.NodeFaults` capability (the local
provider) can inject these; the experiments declare it (`requires: [node-faults]`),
so elsewhere they are `not-applicable` before they start (and an action that
still cannot inject its fault raises `Unsupported`, with the same outcome).
"""
