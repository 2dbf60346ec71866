"""The controller's Kubernetes machinery: API access, informers, queue, Lease.

- `kube`: raw JSON over the official client's transport;
- `sources` + `watching`: list-then-watch caches filtered like Argo's informers;
- `queueing`: a client-go-like work queue; `leading`: leader election.
Nothing here knows about workflows beyond the API paths.
"""

from __future__ import annotations
