"""A child process that plays a slow clean-up on SIGINT or SIGTERM, for launcher tests.

`python -c SLOW_CHILD DIR SECONDS` writes DIR/ready once its handlers are in
place; on SIGINT or SIGTERM it notes the signal's name in DIR/heard (a line per
signal), writes DIR/cleaning, takes SECONDS (or, given `release`, waits until
DIR/release exists), writes the signal's name to DIR/cleaned and exits 7. A
signal during that clean-up is only noted. A launcher that cuts clean-ups short
leaves no DIR/cleaned behind; one that passes on a signal twice leaves two lines
in DIR/heard. It has no SIGHUP handler (nor has `clusters up`).
"""

from __future__ import annotations

SLOW_CHILD = """
import signal, sys, time
from pathlib import Path
from plumbing.waiting import NotYet, until
out = Path(sys.argv[1])
teardown = sys.argv[2]
def stop(signum, frame):
    with (out / "heard").open("a") as heard:
        heard.write(signal.Signals(signum).name + "\\n")
    if (out / "cleaning").exists():
        return
    (out / "cleaning").write_text("")
    if teardown == "release":
        until(lambda: (out / "release").exists() or NotYet("not released"),
              timeout=300, interval=0.05, describe="the test releases the clean-up")
    else:
        time.sleep(float(teardown))  # noqa: sleep-ok - the child plays a slow teardown; nothing to wait for
    (out / "cleaned").write_text(signal.Signals(signum).name)
    sys.exit(7)
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
(out / "ready").write_text("")
while True:
    signal.pause()
"""
