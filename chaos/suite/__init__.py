"""The chaos suite: every experiment of chaos/experiments run under pytest (`wpc chaos run`).

In the package, not in tests/, so an installed wheel runs it: `parallel` plans
and runs the pytest processes, `experiments` is their pytest module and
`experimenting` runs one experiment document the way a user does.
"""
