"""The harness: what a scenario uses to act on and observe a cluster."""

from __future__ import annotations
