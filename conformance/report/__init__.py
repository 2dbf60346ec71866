"""What a run found: outcomes, records, coverage, divergences, the reports."""

from __future__ import annotations
