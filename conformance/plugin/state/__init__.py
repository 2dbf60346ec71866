"""What a run is, as data: the tests' declarations, the run's settings and run object, stash keys, shards."""

from __future__ import annotations
