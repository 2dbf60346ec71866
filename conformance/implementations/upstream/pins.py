"""The upstream Argo Workflows release the suite pins (v4.1.x semantics)."""

from __future__ import annotations

MODULE = "github.com/argoproj/argo-workflows/v4"
VERSION = "v4.1.2"
BUILD_TAGS = ("kubernetes_protomessage_one_more_release",)
"""Upstream's Makefile sets this tag since #15573 (k8s v0.35 moved ProtoMessage behind it)."""
CONTROLLER_IMAGE = f"quay.io/argoproj/workflow-controller:{VERSION}"
EXECUTOR_IMAGE = f"quay.io/argoproj/argoexec:{VERSION}"
CRDS_DIR = "manifests/base/crds/full"
