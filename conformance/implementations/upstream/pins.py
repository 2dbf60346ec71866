"""The upstream Argo Workflows release the suite pins (v4.1.x semantics)."""

from __future__ import annotations

MODULE = "github.com/argoproj/argo-workflows/v4"
MODULES = (MODULE, "github.com/argoproj/argo-workflows/v3")
"""Module paths a source tree may declare: v4.0.2 and later are `/v4`; v4.0.0 and
v4.0.1 (and the v4.0.0 release candidates) still carry the `/v3` path."""
VERSION = "v4.1.2"
BUILD_TAGS = ("kubernetes_protomessage_one_more_release",)
"""Upstream's Makefile sets this tag since #15573 (k8s v0.35 moved ProtoMessage behind it).
Older trees (v4.0.x, on k8s v0.33) have no file it selects, so it changes nothing there."""
CONTROLLER_IMAGE = f"quay.io/argoproj/workflow-controller:{VERSION}"
EXECUTOR_IMAGE = f"quay.io/argoproj/argoexec:{VERSION}"
CRDS_BASE = "manifests/base/crds"
CRDS_DIR = f"{CRDS_BASE}/full"
