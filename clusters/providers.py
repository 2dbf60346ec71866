"""Provider registry: name -> provider instance."""

from __future__ import annotations

from clusters.base import ClusterProvider
from clusters.errors import ProviderError

NAMES = ("local", "kind", "k3d", "existing")


def get(name: str, *, workers: int = 0) -> ClusterProvider:
    """Return the provider called `name`; only kind makes `workers` nodes beside its control plane."""
    if workers and name != "kind":
        raise ProviderError(
            f"--workers is for --provider kind; the {name} provider makes one node"
        )
    if name == "local":
        from clusters.local import LocalProvider

        return LocalProvider()
    if name == "kind":
        from clusters.kind import KindProvider
        from clusters.kind import KindSettings

        return KindProvider(KindSettings.from_env(workers=workers))
    if name == "k3d":
        from clusters.k3d import K3dProvider

        return K3dProvider()
    if name == "existing":
        from clusters.existing import ExistingProvider

        return ExistingProvider()
    raise ProviderError(f"unknown provider {name!r}; choose one of {', '.join(NAMES)}")
