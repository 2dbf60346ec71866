"""Template execution: one reconciliation's nodes, from a template to its children.

- `operation`: the state of one reconciliation and `executeTemplate`;
- `execution`: the types the template executors share;
- `leaves` (container/script nodes), `steps`, `dags`, `retries`;
- `arguments` + `scopes`: parameters and artifacts between steps and tasks;
- `references` (a step's references, `when` first), `conditions` (`when`), `loops`
  (`withItems`/`withParam`/`withSequence`), `depends` (a task's `depends`);
- `parallelism` (workflow and template limits, `failFast`), `timeouts` (`timeout`,
  `pendingTimeout`);
- `validation`: bad input fails the workflow before its first pod;
- `inference`: a node's phase and message from its pod; `progress`: "N/M".
"""

from __future__ import annotations
