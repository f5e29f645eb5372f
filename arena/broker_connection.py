"""A worker survives losing the broker while it holds unacknowledged messages (Celery 5.7, kombu 5.7).

When the connection to Redis drops, Celery's consumer first collects the connection, which drops
its transport, and then closes it; tasks that finish meanwhile acknowledge their messages on the
old channel. Both need a Redis client from that channel, whose settings come from the transport
that is gone: ``AttributeError``. Not being a connection error, it stopped the worker ("Unrecoverable
error") instead of letting it reconnect: in a fault run all three workers died so in one 60 s
broker outage. Here a channel of a collected connection raises the connection error it is, which
Celery handles: the close gives up putting the messages back, the acknowledgement is logged as
failed, and the worker reconnects.

Nothing is lost: the broker is unreachable anyway, Redis keeps unacknowledged messages in its
unacknowledged set (restored after the visibility timeout), the running tasks record in the
database, and the outbox re-sends waiting work once the broker is back.
"""

from __future__ import annotations

from kombu.transport import redis as redis_transport


def channels_of_a_lost_connection_raise_connection_errors() -> None:
    """Patch kombu's Redis channel (once) so it raises ``redis.ConnectionError`` when its
    connection's transport is gone."""
    import redis

    original = redis_transport.Channel._connparams
    if getattr(original, "raises_on_a_collected_connection", False):
        return

    def _connparams(self, asynchronous=False):
        if self.connection is None or self.connection.client is None:
            raise redis.ConnectionError("the connection to the broker was lost (and collected)")
        return original(self, asynchronous=asynchronous)

    _connparams.raises_on_a_collected_connection = True
    redis_transport.Channel._connparams = _connparams
