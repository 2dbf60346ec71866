"""The controller at run time: start-up, the reconcile loop and its event handlers.

- `running`: connect, read the ConfigMap, win the Lease, then work;
- `controlling`: the caches, queues and worker threads around `reconciling`;
- `reconciling`: one workflow reconciled, Argo's `operate` step by step.
"""

from __future__ import annotations
