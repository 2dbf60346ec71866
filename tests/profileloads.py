"""Counting `profiles.load` calls: a profile is loaded once per process (issue 25 item 3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.implementations import profiles


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `profiles.load` of this process from now on, by the name it loaded."""
    seen: list[str] = []
    real: Callable[..., profiles.Profile] = profiles.load

    def counting(name_or_path: str, **kwargs: Any) -> profiles.Profile:
        seen.append(name_or_path)
        return real(name_or_path, **kwargs)

    monkeypatch.setattr(profiles, "load", counting)
    return seen
