"""Looking inside and around: exec in a container, every object version recorded, failure evidence."""

from __future__ import annotations
