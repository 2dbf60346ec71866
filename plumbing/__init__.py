"""The bottom layer every WPC package may import.

It holds what each package used to write for itself: running a command with
its output in a log file (`commands`), the one bounded wait (`waiting`), the
errors that carry evidence (`errors`) and the Go-module builder (`gobuilding`).
It imports nothing from the project and only the standard library, so the
reference executor can ship it inside its static executable.
"""
