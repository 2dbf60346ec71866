"""What a chaos run leaves for people and machines, rendered offline from finished results.

The ChaosReport and its schema (`chaos_report`), its JUnit twin (`junit_xml`), its
HTML index (`index_page`), each experiment's timeline page (`timeline_page`, drawn
from `timeline_rows`) and the violations as text (`violation_text`). Nothing here
touches a cluster or a session: judging a run is `chaos.lifecycle.judging`'s job.
"""
