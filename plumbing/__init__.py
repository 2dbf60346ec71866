"""The bottom layer every WPC package may import.

It holds what each package used to write for itself: running a command with
its output in a log file (`commands`), the one bounded wait (`waiting`), the
errors that carry evidence (`errors`), the Go-module builder (`gobuilding`) and
the start of a self-signed certificate (`certificates`).
It imports nothing from the project and only the standard library. The shipped
reference controller and executor do not use it: they are frozen from
`reference_impl` alone and have no runner, wait loop or build of their own.
"""
