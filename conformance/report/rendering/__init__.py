"""The report drawn for people and dashboards: the HTML page, the job summary, JUnit XML, the verdict table."""

from __future__ import annotations
