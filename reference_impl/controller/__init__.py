"""The reference workflow controller (Argo Workflows v4.1.x semantics), written to be read.

Run it with `python -m reference_impl.controller` (`__main__` parses flags, `running.run`
does the work). By layer, from the outside in:

- process: `running` (connect, read the ConfigMap, win the Lease), `leading` (Lease),
  `controlling` (caches, queues, workers, event handlers), `sources` + `watching`
  (informers), `queueing` (work queue), `cleaning` (pod clean-up queue), `kube` (the API);
- one reconciliation: `reconciling` (Argo's `operate`), `operation` (state and
  `executeTemplate`), `leaves` (container/script nodes), `steps`, `dags`, `retries`,
  `arguments` + `scopes` + `substitution` (parameters and artifacts), `validation`,
  `progress`;
- decisions as pure functions: `inference` (node phase and message from a pod),
  `cleanup` (labels, podGC, the status finalizer), `killing` (kill commands);
- pods: `podbuilding` (Argo's `podBuilder.build`), `layouts` (legacy vs init-less, the
  only place they differ), `containers`, `volumes`, `podfields`, `patching`
  (podSpecPatch), `reference_additions` (everything the reference executor needs beyond
  Argo's pod shape);
- cross-cutting: `settings` (environment, read once), `configuration` (the controller
  ConfigMap), `faults` (deliberate deviations for negative controls), `naming`,
  `durations`, `timestamps`, `errors`.
"""

from __future__ import annotations
