"""Runs: the orchestration above the apps (the recovery sweep over every kind of work)."""
