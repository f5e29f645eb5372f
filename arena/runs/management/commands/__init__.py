"""Management commands that span the apps: the demo, recovery and retention."""
