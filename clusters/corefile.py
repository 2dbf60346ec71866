"""The Corefile every WPC cluster's CoreDNS runs: the cluster's own zones, nothing forwarded.

Pods under test need no outside names, and no lookup may leave the machine, so
there is no `forward` plugin (kubeadm's default forwards to the node's
resolv.conf, which on kind is Docker's DNS on the host). The local provider
renders it into its own CoreDNS manifests; the kind provider replaces kubeadm's
Corefile with it.
"""

from __future__ import annotations

COREFILE = """cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
    errors
    health {
        lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    cache 30
    reload
    loadbalance
}
"""
