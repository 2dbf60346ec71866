"""A profile this process loaded already, handed to an in-process pytest run.

`wpc run` parses and validates the profile once, in its preflight, before
anything else; with `--select` it then collects the suite in its own process
(`conformance.plugin.selection.listing`) to stop on a selection naming nothing.
That collection gets the Profile object as a plugin (`Preloaded`), and the
plugin's `pytest_configure` takes it from there instead of loading the file a
second time. Only for the same `--wpc-implementation` and `--wpc-profile-var`
values: a profile loaded for other ones is not this run's, and is loaded anew.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

import pytest

from conformance.implementations import profiles


@dataclass(frozen=True, eq=False)
class Preloaded:
    """The profile as loaded for `implementation` with `variables` (a pytest plugin).

    Compared and hashed by identity, as pluggy keeps its plugins in a set.
    """

    profile: profiles.Profile
    implementation: str
    variables: Mapping[str, str] = field(default_factory=dict)


def of(
    config: pytest.Config, *, implementation: str, variables: Mapping[str, str]
) -> profiles.Profile | None:
    """The preloaded profile for these settings, if the process handed one over."""
    for plugin in config.pluginmanager.get_plugins():
        if (
            isinstance(plugin, Preloaded)
            and plugin.implementation == implementation
            and dict(plugin.variables) == dict(variables)
        ):
            return plugin.profile
    return None
