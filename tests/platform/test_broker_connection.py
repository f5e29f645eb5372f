"""A worker that loses its Redis broker while tasks run reconnects instead of dying (a real Redis).

When the connection drops, Celery's consumer (``on_connection_error_after_connected``) collects it,
which drops its transport, then closes it, while tasks finishing meanwhile acknowledge their
messages on the old channel. Both used to raise AttributeError, which stopped the worker.
"""

from __future__ import annotations

import pytest
import redis
from kombu import Connection, Queue

import arena.celery  # noqa: F401 (what a worker imports first: it applies the fix)
from tests.platform.brokers import PrivateRedis


@pytest.fixture
def lost_connection_with_an_unacked_message(tmp_path):
    server = PrivateRedis(tmp_path).start()
    try:
        connection = Connection(server.url)
        channel = connection.default_channel
        connection.Producer(channel).publish({"match": 1}, routing_key="work", declare=[Queue("work")])
        message = channel.basic_get("work", no_ack=False)  # a running task's message (late acks)
        assert message is not None
        server.stop()
        connection._do_close_transport()  # what collect() leaves behind
        yield connection, message
        # kombu would put the unacknowledged message back at interpreter exit (a finalizer), to a
        # server long gone: a traceback after the suite's summary. The message was a stand-in.
        channel.qos._on_collect.cancel()
    finally:
        server.stop()


def test_closing_a_lost_connection_whose_channel_holds_unacknowledged_messages_does_not_raise(
        lost_connection_with_an_unacked_message):
    connection, _ = lost_connection_with_an_unacked_message
    connection.close()


def test_acknowledging_on_a_lost_connection_raises_a_connection_error_celery_handles(
        lost_connection_with_an_unacked_message):
    connection, message = lost_connection_with_an_unacked_message
    with pytest.raises(redis.ConnectionError):
        message.ack()
    assert redis.ConnectionError in connection.connection_errors or any(
        issubclass(redis.ConnectionError, error) for error in connection.connection_errors)
