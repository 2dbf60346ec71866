"""Provider registry: name -> provider instance."""

from __future__ import annotations

from clusters.base import ClusterProvider
from clusters.errors import ProviderError

NAMES = ("local", "kind", "k3d", "existing")


def get(
    name: str,
    *,
    workers: int = 0,
    kind_docker: str | None = None,
    kind_node_image: str | None = None,
) -> ClusterProvider:
    """Return the provider called `name`.

    Only kind makes `workers` nodes beside its control plane and takes
    `kind_docker` / `kind_node_image` (the `up` flags).
    """
    if workers and name != "kind":
        raise ProviderError(
            f"--workers is for --provider kind; the {name} provider makes one node"
        )
    if (kind_docker is not None or kind_node_image is not None) and name != "kind":
        raise ProviderError(
            f"--kind-docker and --kind-node-image are for --provider kind, not {name}"
        )
    if name == "local":
        from clusters.local import LocalProvider

        return LocalProvider()
    if name == "kind":
        from clusters.kind import KindProvider
        from clusters.kind import KindSettings
        from clusters.machine import holding

        return KindProvider(
            KindSettings.from_env(
                workers=workers,
                docker_mode=kind_docker,
                node_image=kind_node_image,
                recorded=holding.recorded_details("kind"),
            )
        )
    if name == "k3d":
        from clusters.k3d import K3dProvider

        return K3dProvider()
    if name == "existing":
        from clusters.existing import ExistingProvider

        # Loading into a kind or k3d cluster it was given goes through their
        # providers, which it does not import: it asks this registry, when it loads.
        return ExistingProvider(loader_of=lambda provider: get(provider).load_image)
    raise ProviderError(f"unknown provider {name!r}; choose one of {', '.join(NAMES)}")
