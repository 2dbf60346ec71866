"""The reference workflow controller (Argo Workflows v4.1.x semantics), written to be read.

Run it with `python -m reference_impl.controller` (`__main__` parses flags,
`runtime.running.run` does the work). By layer, from the outside in (each may
import only those below it; import-linter checks it):

- `runtime/`: start-up, the reconcile loop and its event handlers;
- `cleanup/` and `templates/` (independent): pod clean-up; template execution
  (steps, DAGs, retries, arguments, validation, phase inference);
- `pods/`: building the pod of one node, in either layout;
- `config/`: process settings and the controller ConfigMap;
- `faults`: deliberate deviations for the negative controls;
- `machinery/`: API access, informers, the work queue, the Lease;
- `formats/`: Argo's string formats (durations, timestamps, names, `{{...}}`);
- `errors`: the controller's one error tree.
"""

from __future__ import annotations
