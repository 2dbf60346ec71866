"""Provider registry: name -> provider instance."""

from __future__ import annotations

from clusters.base import ClusterProvider
from clusters.errors import ProviderError

NAMES = ("local", "kind", "k3d", "existing")


def get(name: str) -> ClusterProvider:
    """Return the provider called `name`."""
    if name == "local":
        from clusters.local import LocalProvider

        return LocalProvider()
    if name == "kind":
        from clusters.kind import KindProvider

        return KindProvider()
    if name == "k3d":
        from clusters.k3d import K3dProvider

        return K3dProvider()
    if name == "existing":
        from clusters.existing import ExistingProvider

        return ExistingProvider()
    raise ProviderError(f"unknown provider {name!r}; choose one of {', '.join(NAMES)}")
