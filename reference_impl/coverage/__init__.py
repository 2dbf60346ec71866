"""Tooling for the reference controller's field coverage table (#16), never shipped.

`crdfields` derives the field paths of upstream's Workflow CRD, `upstream` reads the CRD
from the upstream source checkout, `uses` finds which scenario or corpus workflow sets a
field, `document` renders docs/reference-coverage.md; `python -m reference_impl.coverage`
regenerates the committed path list and the document. The classification itself lives in
`reference_impl.controller.templates.checks.coverage`, which validation uses.
"""
