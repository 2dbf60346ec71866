"""Install and drive reference controller instances: what the `reference` profile calls.

One instance = one namespace holding a ServiceAccount, a ClusterRoleBinding to
the shared ClusterRole, the `workflow-controller-configmap` (instanceID, layout,
executor image, artifact repository) and the controller Deployment. Several
instances (one per layout, plus dedicated ones for tests that switch layouts)
share one cluster, selected by instanceID like Argo's. The Deployment and RBAC
come from `reference_impl/manifests/base`, so the kustomize manifests stay the
single source of truth.
"""

from __future__ import annotations
