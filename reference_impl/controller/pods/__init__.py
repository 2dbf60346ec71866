"""Pod building: the pod of one container or script node, in either layout.

- `podbuilding`: Argo's `podBuilder.build`;
- `layouts`: legacy vs init-less, the only place they differ;
- `containers`, `volumes`, `podfields`: what every workflow pod carries;
- `patching`: `podSpecPatch` and container defaults;
- `reference_additions`: everything the reference executor needs beyond Argo's
  pod shape (the whole delta, in one module).
"""

from __future__ import annotations
