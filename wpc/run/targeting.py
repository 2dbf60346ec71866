"""Which cluster `wpc run` uses: chosen and said before the run, one file during it.

The local, kind and k3d providers use their own cluster (`clusters up` makes it
when absent). `--provider existing` uses the user's, found as kubectl finds it:
`--cluster PATH` names one kubeconfig file (kubectl's `--kubeconfig`), else the
`KUBECONFIG` list, merged, else ~/.kube/config; the context is `--context`, else
the current one (`clusters.access.kubeconfigs`). `--kubeconfig F` is used as it is, or,
with `--context`, that context of F in the same way.

A chosen context is written alone to a private file that lives as long as the
run. The pytest child gets it as the existing provider's cluster (or as
`--wpc-kubeconfig`) and as `KUBECONFIG`, so the suite's client, kubectl in the
tests, the profile's commands and image loading all use that context, and a
tool that reads `KUBECONFIG` by itself finds nothing else.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clusters.access import kubeconfigs
from clusters.errors import KubeconfigError
from conformance.errors import DataError
from conformance.plugin.selection import options

EXISTING = "existing"
CONTEXT = "wpc_context"
"""`--context` among the run's option values, as preflight is given them."""
PREFIX = "cluster: "
"""How `run --list` starts its line about the cluster."""


def _given(values: Mapping[str, Any], dest: str) -> Any:
    """An option's value as the CLI parsed it, or its default."""
    value = values.get(dest)
    return options.BY_DEST[dest].default if value is None else value


@dataclass(frozen=True)
class Lookup:
    """What kubectl reads to find its files, besides its flags."""

    variable: str
    """`KUBECONFIG` ("" when unset)."""
    home: Path
    """The home directory, where ~/.kube/config is."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Lookup:
        """Read `KUBECONFIG` and the home directory (`HOME`)."""
        environ = os.environ if environ is None else environ
        home = environ.get("HOME")
        return cls(
            variable=environ.get(kubeconfigs.VARIABLE, ""),
            home=Path(home) if home else Path.home(),
        )


def choose(
    values: Mapping[str, Any], context: str | None, lookup: Lookup
) -> kubeconfigs.Chosen | None:
    """The context the run will use; None for a provider's own cluster or a file as is.

    `values` are the run's options (`wpc_*` dests). DataError (exit 10) naming
    the file or context when there is none to use.
    """
    given: Path | None = values.get("wpc_kubeconfig")
    provider = str(_given(values, "wpc_provider"))
    if given is None and provider != EXISTING:
        if context is not None:
            raise DataError(
                f"--context {context}: the {provider} provider uses its own cluster; "
                "--context chooses a context of your kubeconfig, with --provider "
                "existing or --kubeconfig"
            )
        return None
    if given is not None and context is None:
        return None
    if given is None:
        name = str(_given(values, "wpc_cluster_name"))
        # The default name is no file: the existing provider then reads what kubectl reads.
        if name != options.BY_DEST["wpc_cluster_name"].default:
            given = Path(name)
    paths = kubeconfigs.sources(lookup.variable, home=lookup.home, given=given)
    try:
        return kubeconfigs.resolve(paths, context)
    except KubeconfigError as exc:
        raise DataError(f"--provider {EXISTING}: {exc}") from exc


def describe(values: Mapping[str, Any], context: str | None, lookup: Lookup) -> str:
    """The line `run --list` prints about the cluster a run would use."""
    try:
        chosen = choose(values, context, lookup)
    except DataError as exc:
        return f"{PREFIX}none a run could use: {exc} (a run stops here, exit 10)"
    if chosen is not None:
        return (
            f"{PREFIX}{EXISTING}, context {chosen.context} at {chosen.server} "
            f"(from {chosen.origin})"
        )
    given = values.get("wpc_kubeconfig")
    if given is not None:
        return f"{PREFIX}the kubeconfig {given} as it is (its current context)"
    provider = _given(values, "wpc_provider")
    name = _given(values, "wpc_cluster_name")
    return (
        f"{PREFIX}the {provider} provider's cluster {name} "
        "(`wpc cluster up` makes it when it is not running)"
    )


@contextlib.contextmanager
def written(chosen: kubeconfigs.Chosen | None) -> Iterator[Path | None]:
    """The chosen context alone in a private file, removed when the run ends."""
    if chosen is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="wpc-kubeconfig-") as private:
        yield kubeconfigs.write(chosen, Path(private) / "kubeconfig")
