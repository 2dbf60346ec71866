"""The artifact server pre-main experiments fetch from, in the experiment's namespace.

`GATED` answers nothing until it is opened: every connection is accepted and
held (the client waits for a response that does not come yet), so the
supervisor (init-less) or `init` (legacy) stays in its download, before
`main` runs, for as long as the experiment needs. Once `/tmp/open` exists in
the server pod, every request, held or new, gets a small file (`ok`). Built
on the suite's HTTP server pods (`conformance.harness.stage.servers`), from the
suite's tools image.
"""

from __future__ import annotations

GATED = r"""
cat > /tmp/handler <<'EOF'
#!/bin/sh
until [ -f /tmp/open ]; do sleep 0.5; done
printf 'HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n'
EOF
chmod +x /tmp/handler
exec nc -ll -p 8080 -e /tmp/handler
"""
"""A persistent `nc` server on port 8080; each connection waits for `/tmp/open`."""

SCRIPTS = {"gated": GATED}
NAME = "wpc-chaos-artifacts"
