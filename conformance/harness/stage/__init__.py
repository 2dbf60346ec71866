"""What a scenario sets up before it acts: its namespace, Secrets, HTTP servers, the injecting webhook, its scene."""

from __future__ import annotations
