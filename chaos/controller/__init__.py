"""Faults of the workflow controller, through the profile's commands only."""
