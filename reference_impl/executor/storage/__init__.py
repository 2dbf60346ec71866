"""Where artifacts are kept: the `ObjectStore` seam over S3 (`stores`) and tarballs (`archives`)."""

from __future__ import annotations
