"""The reference `argoexec`: init, wait, supervisor, emissary, kill (Argo v4.1.x semantics).

The contract it implements is written once, in `protocol`. By layer:

- entry: `cli` (parse and wire only), `__main__`;
- subcommands: `initializing` (init), `waiting` (wait), `supervising`
  (supervisor), `emissary`, and `killing` (also `kill SIG PID`);
- their steps: `premain`, `loading` (input artifacts), `linking` (init-less
  inputs), `handshake` + `watching` (wait for READY), `heartbeats` + `markers`
  (the status marker), `children` (run the user's command), `outputs` (main's
  staging), `postmain` + `collecting` + `deadlines` (wait's job),
  `taskresults` + `kubeapi` (the WorkflowTaskResult), `stores` + `archives`;
- cross-cutting: `settings` (the environment, read once), `environment` (what
  the child sees), `faults` (deliberate deviations), `clocks`, `errors`, `exits`.

Packaged as one static executable by `reference_impl.images.freezing`.
"""

from __future__ import annotations
