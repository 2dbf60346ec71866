"""The reference `argoexec`: init, wait, supervisor, emissary, kill (Argo v4.1.x semantics).

The contract it implements is written once, in `protocol`. By layer, from the
outside in (each may import only those below it; import-linter checks it):

- entry: `__main__`, then `cli` (parse and wire only);
- `commands/`: one module per role (init, wait, supervisor, emissary);
- `child/` and `staging/` (independent): the emissary's steps around the
  user's command; the aux container's steps before and after main;
- `api/`, `storage/`, `files/`, `templates`, `settings` (independent): the
  WorkflowTaskResult, artifact stores and tarballs, the protocol's files on
  the shared volume, the typed template, the environment read once;
- `faults` (deliberate deviations), `environment` (what the child sees);
- `protocol` (the file and signal contract) and `clocks` (the only access to time);
- `errors`: one root, each error mapped to the exit code the contract asks for.

Packaged as one static executable by `reference_impl.images.freezing`.
"""

from __future__ import annotations
