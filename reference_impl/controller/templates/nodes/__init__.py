"""One node's life: container and script pods, suspend, retries, timeouts, parallelism, exit hooks, phase, progress."""

from __future__ import annotations
