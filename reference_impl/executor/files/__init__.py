"""The protocol's files on the shared volume, read and written (see `protocol`).

- `markers`: the init-less status marker, written whole;
- `killing`: signal files for other containers, and `argoexec kill SIG PID`;
- `exits`: the exitcode file and the termination message of an error;
- `watching`: wake early when a directory changes (inotify);
- `commissioned`: a fault of commission's `files` hook (negative controls only).
"""

from __future__ import annotations
