"""Faults of the node: its kubelet, container runtime and API server, its containers.

Only providers with the `clusters.base.NodeFaults` capability (the local
provider) can inject these; elsewhere the actions raise `Unsupported` and the
experiment is `skipped`.
"""
