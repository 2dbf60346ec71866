"""Reaching the API and waiting on it: clients and names, named timeouts, timed phases, waits, list-watch."""

from __future__ import annotations
