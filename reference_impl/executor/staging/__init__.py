"""The aux container's steps before and after main (init, wait, supervisor).

- before: `premain` (the template, script and executor on the shared volumes),
  `loading` (input artifacts);
- during: `heartbeats` (the supervisor's status marker), `deadlines`
  (ARGO_DEADLINE);
- after: `postmain` (wait for main, then report), `collecting` (main's
  staged files into outputs).
"""

from __future__ import annotations
