"""Template execution: one reconciliation's nodes, from a template to its children.

- `operation`: the state of one reconciliation and `executeTemplate`, dispatching to
  the rooms below; `execution`: the types the template executors share;
- `composites`: the templates with children, `dags` (a task's `depends`) and `steps`;
- `checks`: `validation` (bad input fails the workflow before its first pod) and
  `coverage` (the fields implemented or rejected);
- `nodes`: one node's life: `leaves` (container/script pods), `suspends`, `retries`,
  `timeouts`, `parallelism` (and `failFast`), exit `hooks`, `inference` (a node's phase
  and message from its pod), `progress` ("N/M");
- `inputs`: what a step or task sees before it runs: `arguments`, `conditions`
  (`when`), `loops` (`withItems`/`withParam`/`withSequence`), `references`, `scopes`.
"""

from __future__ import annotations
