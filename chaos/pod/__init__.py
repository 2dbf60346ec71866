"""Faults of workflow pods: deletion, killed or frozen containers."""
