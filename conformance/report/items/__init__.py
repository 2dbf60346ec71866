"""One test item as the run records it: its outcome, record, identity, phases and reruns."""

from __future__ import annotations
