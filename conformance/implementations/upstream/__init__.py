"""Install upstream Argo Workflows as an implementation under test.

`python -m conformance.implementations.upstream` builds the controller and executor from the
Go module (or takes the published images), writes per-instance manifests and
extracts the CRDs; the `argo-workflows*` profiles call it. Nothing here is
imported by the suite's tests.
"""

from __future__ import annotations
