"""One module per role argoexec plays in a pod: the sequence of each subcommand.

- `initializing`: `argoexec init`, the legacy init container;
- `waiting`: `argoexec wait`, the legacy aux container;
- `supervising`: `argoexec supervisor`, the init-less aux container;
- `emissary`: `argoexec emissary -- cmd...`, wrapping every user container.
(`argoexec kill` is `files.killing.kill_process`.)
"""

from __future__ import annotations
