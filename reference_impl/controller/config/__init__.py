"""What the controller is told: process settings and the controller ConfigMap.

- `settings`: flags plus environment, read once at start-up;
- `configuration`: `workflow-controller-configmap`, parsed like Argo parses it.
"""

from __future__ import annotations
