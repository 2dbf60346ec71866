"""What the reporting process shows and writes: progress, interruption, the ConformanceReport, the summary."""

from __future__ import annotations
