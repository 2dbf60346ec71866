"""Pod clean-up: what to do with a pod once its node is done, and doing it.

- `decisions`: pure functions (completed label, podGC, the status finalizer);
- `killing`: which command kills a container, which containers to signal;
- `cleaning`: the clean-up queue that carries the actions out (Argo's pod queue).
"""

from __future__ import annotations
