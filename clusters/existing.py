"""The existing provider: any kubeconfig. WPC neither creates nor deletes such clusters.

Its cluster name is one kubeconfig file. `wpc run --provider existing` finds the
user's cluster as kubectl does (`KUBECONFIG`, the current context or
`--context`) and gives this provider the chosen context written out alone
(`clusters.access.kubeconfigs`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from clusters.access import kubeconfigs
from clusters.base import ClusterStatus
from clusters.errors import ProviderError
from clusters.images import registry
from clusters.images.archives import image_name

ImageLoader = Callable[[str, Path], str]
"""A provider's `load_image(cluster, archive)`."""

IMPORTING_CONTEXTS = (("kind-", "kind"), ("k3d-", "k3d"))
"""Context prefixes of the providers whose CLIs import an archive into every node:
kind and k3d name their contexts `kind-<cluster>` and `k3d-<cluster>`."""


class ExistingProvider:
    """Implements clusters.base.ClusterProvider over a kubeconfig given by the user.

    The cluster name is the kubeconfig path. Images cannot be loaded generically
    (there is no node access): load_image uses kind's or k3d's importer when the
    context is one of theirs, and otherwise explains what to do.
    """

    name = "existing"

    def __init__(self, loader_of: Callable[[str], ImageLoader] | None = None) -> None:
        """`loader_of(provider)`: that provider's image loader.

        The registry (`clusters.providers`) passes it, so this provider never
        imports the other providers (they are independent siblings). Without it
        only a registry loads images.
        """
        self.loader_of = loader_of

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Nothing to create; only check the kubeconfig exists."""
        self.kubeconfig(cluster)

    def delete(self, cluster: str) -> None:
        """Never delete a cluster we did not make."""

    def kubeconfig(self, cluster: str) -> Path:
        """The kubeconfig path itself."""
        path = Path(cluster).expanduser()
        if not path.is_file():
            raise ProviderError(
                f"--name for the existing provider is a kubeconfig path; {path} is not a file"
            )
        return path

    def status(self, cluster: str) -> ClusterStatus:
        """Reports the kubeconfig; reachability is the suite's first check."""
        return ClusterStatus(
            name=cluster,
            provider=self.name,
            running=True,
            kubeconfig=self.kubeconfig(cluster),
        )

    def load_image(self, cluster: str, archive: Path) -> str:
        """Push to `WPC_EXISTING_REGISTRY` when set, else import with kind's or k3d's.

        A kubeconfig alone gives no node access. A registry the user names is
        used first: its nodes pull from it (clusters/images/registry.py). Otherwise kind
        and k3d name their contexts `kind-<cluster>` and `k3d-<cluster>`, and their
        CLIs can import an archive into every node. Any other cluster needs a
        registry; the error says so, naming the image and the variable.
        """
        target = registry.from_env()
        if target is not None:
            return push_image(archive, target)
        context = kubeconfigs.current_context(self.kubeconfig(cluster))
        for prefix, provider in IMPORTING_CONTEXTS:
            if context.startswith(prefix) and self.loader_of is not None:
                load = self.loader_of(provider)
                return load(context.removeprefix(prefix), archive)
        raise ProviderError(
            f"the existing provider cannot load {archive} ({image_name(archive)}) into "
            f"the nodes of context {context or '(none)'!r} in {cluster}: it imports "
            "only into kind-* and k3d-* contexts. Name a registry the nodes pull "
            f"from as a mirror of the image's registry host: {registry.VARIABLE}="
            "[http://]host[:port][/prefix] for a run, or `python -m clusters "
            "load-image --provider existing --registry ...` (docs/vendors.md), or "
            "load it with your cluster's tooling"
        )

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """No component logs are reachable through a kubeconfig alone."""
        dest.mkdir(parents=True, exist_ok=True)
        return dest

    def kubectl(self, cluster: str) -> Path:
        """The kubectl on PATH."""
        found = shutil.which("kubectl")
        if found is None:
            raise ProviderError("kubectl is not on PATH")
        return Path(found)


def push_image(archive: Path, target: registry.Registry) -> str:
    """Push `archive` to `target`; the line `load-image` prints about it."""
    pushed = registry.push(archive, target)
    return (
        f"pushed {image_name(archive)} as {pushed.reference}@{pushed.digest} "
        f"({pushed.sent} blobs sent, {pushed.skipped} already there); the nodes pull "
        "it through a mirror of its registry host"
    )
