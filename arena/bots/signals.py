"""Signals of bots, for apps that follow them without bots importing those apps."""

from django.dispatch import Signal

# Sent by the smoke-test task once a version was judged (ready or failed) and the verdict committed.
# Argument: version_id.
version_judged = Signal()
