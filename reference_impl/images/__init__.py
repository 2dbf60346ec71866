"""The reference images: build contexts for `python -m clusters build-image`.

- `executor/`, `controller/`, `testimage/`: the Dockerfiles (`FROM scratch`, only
  COPY, ENV, ENTRYPOINT, CMD, WORKDIR, USER, LABEL).
- `sources`: which of the project's modules (and which PyPI distributions) a
  frozen program needs, found by following its imports.
- `bundling`: the executor as a static launcher (`executor/launcher.c`) beside an
  unpacked bundle of Debian's interpreter, its libraries and a zip of `.pyc`
  (`archiving`); nothing is extracted at start, and signals are blocked from
  the launcher's first instruction until the executor's handlers exist.
- `freezing`: the controller as one static executable (PyInstaller `--onefile`,
  then staticx), built with Debian's Python in a venv under $WPC_CACHE_DIR.
- `contexts`: a context directory per image (Dockerfile + rootfs), keyed by a
  hash of its inputs, so an unchanged image is never prepared twice.

`python -m reference_impl.images build [--only NAME] [--out DIR]` prints one
`<image ref> <context dir>` line per image; `bench-start` prints argoexec's
start-up figures and early-signal window (`benchmarking`, `burning`, `figures`).
"""

from __future__ import annotations
