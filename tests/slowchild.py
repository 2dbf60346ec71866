"""A child process that plays a slow clean-up on SIGINT or SIGTERM, for launcher tests.

`python -c SLOW_CHILD DIR SECONDS` writes DIR/ready once its handlers are in
place; on SIGINT or SIGTERM it takes SECONDS, writes the signal's name to
DIR/cleaned and exits 7. A launcher that cuts clean-ups short leaves no
DIR/cleaned behind.
"""

from __future__ import annotations

SLOW_CHILD = """
import signal, sys, time
from pathlib import Path
out = Path(sys.argv[1])
teardown = float(sys.argv[2])
def stop(signum, frame):
    time.sleep(teardown)  # noqa: sleep-ok - the child plays a slow teardown; nothing to wait for
    (out / "cleaned").write_text(signal.Signals(signum).name)
    sys.exit(7)
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
(out / "ready").write_text("")
while True:
    signal.pause()
"""
