"""Probes of Workflows: whether the workload ended as the spec says it must."""
