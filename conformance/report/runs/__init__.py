"""The whole run as a document: the ConformanceReport, its result word, coverage, divergences, times."""

from __future__ import annotations
