"""The reference images: build contexts for `python -m clusters build-image`.

- `executor/`, `controller/`, `testimage/`: the Dockerfiles (`FROM scratch`, only
  COPY, ENV, ENTRYPOINT, CMD, WORKDIR, USER, LABEL).
- `sources`: which of the project's modules (and which PyPI distributions) a
  frozen program needs, found by following its imports.
- `freezing`: one static executable per program (PyInstaller `--onefile`, then
  staticx), built with Debian's Python in a venv under $WPC_CACHE_DIR.
- `contexts`: a context directory per image (Dockerfile + rootfs), keyed by a
  hash of its inputs, so an unchanged image is never prepared twice.

`python -m reference_impl.images build [--only NAME] [--out DIR]` prints one
`<image ref> <context dir>` line per image.
"""

from __future__ import annotations
