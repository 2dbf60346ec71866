"""Pinned versions of every upstream component the local provider builds.

One place so that a version bump is one edit, and so that the build cache
(keyed by these versions) is invalidated exactly when a pin changes.
Checked against the Go module proxy on 2026-11-22 (`go list -m -versions`):
k8s.io/kubernetes v1.36.4 is the newest 1.36 patch that both the proxy serves
and the checksum database verifies: v1.36.5 is listed but `go mod download`
fails with "verifying go.mod: ... sum.golang.org/lookup/k8s.io/kubernetes@v1.36.5:
404 Not Found", and v1.36.6 answers 403 "not available". Staging modules v0.36.4.
"""

from __future__ import annotations

KUBERNETES = "v1.36.4"
"""kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl."""

KUBERNETES_STAGING = "v0.36.4"
"""The staging modules (k8s.io/api, ...) move in lock-step with KUBERNETES."""

ETCD = "v3.6.16"
"""etcd 3.6.x: Kubernetes 1.36 no longer supports etcd < 3.6 (CHANGELOG-1.36 #135701)."""

CONTAINERD = "v2.3.7"
"""containerd 2.3 LTS; image volumes (KEP-4639) need containerd >= 2.1."""

RUNC = "v1.4.3"
"""The runc that containerd 2.3 CI uses (script/setup/runc-version)."""

CNI_PLUGINS = "v1.9.1"
"""bridge, host-local, loopback, portmap, firewall."""

COREDNS = "v1.14.7"
"""Kubernetes 1.36 bundles CoreDNS 1.14.x."""

PAUSE = "3.10.2"
"""Our own pause program, tagged as the sandbox image containerd 2.3 defaults to."""

SANDBOX_IMAGE = f"registry.k8s.io/pause:{PAUSE}"

KIND = "v0.33.0"
"""sigs.k8s.io/kind: the newest release the module proxy serves (checked 2026-11-24);
cgroup v1 hosts still only get a deprecation warning (issue 15 notes)."""

KINDEST_NODE = {
    "1.36": "kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed",
    "1.35": "kindest/node:v1.35.8@sha256:07b2536e30b803ed61d1677a79df6115f798ce64c80f9e22f6ed45afd09323c0",
}
"""Upstream node images published for kind KIND (v0.33.0), per Kubernetes minor, for
hosts with a registry (WPC_KIND_NODE_IMAGE; ci/github-actions.yaml uses them). From
the v0.33.0 release notes' "Images pre-built for this release" (github.com/
kubernetes-sigs/kind/releases/tag/v0.33.0), which list v1.37.0, v1.36.4, v1.35.8 and
v1.34.11; kind v0.33.0's own default (pkg/apis/config/defaults/image.go) is v1.37.0,
which is why the 1.36 image is named explicitly. kind supports an image only with the
release it was built for, and only the digest guarantees that build."""

STAGING_MODULES = (
    "api",
    "apiextensions-apiserver",
    "apimachinery",
    "apiserver",
    "cli-runtime",
    "client-go",
    "cloud-provider",
    "cluster-bootstrap",
    "code-generator",
    "component-base",
    "component-helpers",
    "controller-manager",
    "cri-api",
    "cri-client",
    "cri-streaming",
    "csi-translation-lib",
    "dynamic-resource-allocation",
    "endpointslice",
    "externaljwt",
    "kms",
    "kube-aggregator",
    "kube-controller-manager",
    "kube-proxy",
    "kube-scheduler",
    "kubectl",
    "kubelet",
    "metrics",
    "mount-utils",
    "pod-security-admission",
    "sample-apiserver",
    "sample-cli-plugin",
    "sample-controller",
    "streaming",
)
"""Every k8s.io staging module of 1.36. A missing one fails the build with
`k8s.io/X@v0.0.0: invalid version: unknown revision v0.0.0`."""
