"""The pytest plugin: options, collection, fixtures, hooks and the run object."""

from __future__ import annotations
