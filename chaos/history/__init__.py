"""The history of one experiment: the file of observed events and the recorder that writes it.

Everything that judges or draws a run reads this file (`records`); only the
experiment's start and end (`chaos.lifecycle`) drive the recorder (`recording`).
"""
