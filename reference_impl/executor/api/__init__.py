"""The executor's one object in the API: the WorkflowTaskResult.

- `taskresults`: its body and the `Reporter` that creates, then patches it;
- `kubeapi`: a minimal in-cluster client (POST and merge-PATCH only).
"""

from __future__ import annotations
