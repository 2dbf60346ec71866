"""Implementations under test: profiles, their commands, preparing a run."""

from __future__ import annotations
