"""Reaching a cluster, and whether WPC may touch it.

`kubeconfigs` reads kubeconfig files as kubectl does and writes one context out
alone; `marker` is the marker every WPC-made cluster carries and the check that
keeps the suite and the chaos experiments off clusters WPC did not make.
"""
