"""Where packaging happens and with what, read once from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEBIAN_PYTHON = Path("/usr/bin/python3")


@dataclass(frozen=True)
class PackagingSettings:
    """Inputs of every build that do not come from the repository."""

    cache_dir: Path
    """$WPC_CACHE_DIR (default ~/.cache/wpc): venvs, frozen binaries, contexts, logs."""
    python: Path = DEBIAN_PYTHON
    """The interpreter frozen into the binaries. Debian's: staticx refuses the pyenv
    one, whose libpython carries a DT_RUNPATH (staticx issue #188)."""
    busybox: Path = Path("/bin/busybox")
    """Debian's busybox-static, for the test image."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PackagingSettings:
        """Read WPC_CACHE_DIR (see docs/environment-variables.md)."""
        env = os.environ if environ is None else environ
        default = Path.home() / ".cache" / "wpc"
        return cls(cache_dir=Path(env.get("WPC_CACHE_DIR") or default))

    @property
    def packaging_dir(self) -> Path:
        """Root of the packaging caches."""
        return self.cache_dir / "packaging"

    @property
    def logs_dir(self) -> Path:
        """Build logs, one per command kind."""
        return self.cache_dir / "logs"
