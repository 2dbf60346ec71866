"""The workflows a scenario runs and what their pods look like, and what it observed per layout."""

from __future__ import annotations
