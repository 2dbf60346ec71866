"""How sharp the suite is: the mutation scores copied from elsewhere, the code they were measured on."""

from __future__ import annotations
