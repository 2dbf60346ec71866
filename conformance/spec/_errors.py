"""The spec loader's one error.

A broken spec is a bug in the suite, not a test outcome, so it stays apart from
`conformance.errors.ConformanceError` and stops collection::

    ValueError
    └── SpecError    requirements.yaml or SPEC.md is malformed; the message
                     names the file, the entry (clause ID, feature, line) and
                     what is wrong with it
"""

from __future__ import annotations


class SpecError(ValueError):
    """The spec files are malformed; the message names the offending entry."""
