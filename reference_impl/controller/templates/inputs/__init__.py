"""What a step or task sees before it runs: arguments, `when` conditions, loops, references, scopes."""

from __future__ import annotations
