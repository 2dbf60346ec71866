"""The existing provider: any kubeconfig. WPC neither creates nor deletes such clusters."""

from __future__ import annotations

import shutil
from pathlib import Path

from clusters.base import ClusterStatus
from clusters.errors import ProviderError


class ExistingProvider:
    """Implements clusters.base.ClusterProvider over a kubeconfig given by the user.

    The cluster name is the kubeconfig path. Images cannot be loaded generically
    (there is no node access), so load_image explains what to do instead.
    """

    name = "existing"

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
        """Not possible without node access."""
        raise ProviderError(
            f"the existing provider cannot load {archive} into nodes; push it to a registry "
            "the cluster can pull from, or load it with your cluster's own tooling"
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
