"""Signals of matches, for apps that follow them without matches importing those apps."""

from django.dispatch import Signal

# Sent by the match task after a match was recorded done, or failed for good, once its transaction
# has committed (never inside the recording transaction). Argument: match_id.
match_finished = Signal()
