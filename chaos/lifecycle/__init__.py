"""What every experiment does around its fault: set the stage, watch it, judge it, clean up.

The chaostoolkit control (`control`) opens and closes the session, installs the
chaos instance (`instances`) and judges the run (`judging`); the experiment-level
actions (`actions`, with the gated artifact server of `servers`) and probes
(`probes`) every experiment document names; `ending` settles the system, stops
the recording and removes the namespace. A fault's own activities live in the
fault rooms (`chaos.controller`, `chaos.pod`, `chaos.node`, `chaos.workflow`).
"""
