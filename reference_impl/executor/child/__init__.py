"""The emissary's steps inside a user container, around the user's child process.

- `handshake`: init-less, wait for READY or fail with 65;
- `linking`: init-less main, symlink the input artifacts into place;
- `children`: run the command, forward signals, tee its output, obey the
  signal file;
- `outputs`: main only, stage output parameters and artifacts for the aux
  container.
"""

from __future__ import annotations
