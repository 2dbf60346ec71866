"""Templates with children: DAGs (and a task's `depends`) and steps."""

from __future__ import annotations
