"""Which tests run, and in which order: the options, collection, `--select`, the order and shard, `--list`."""

from __future__ import annotations
