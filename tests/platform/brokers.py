"""Real brokers for tests: a private ``redis-server`` a test may stop and restart, and pointing this
process's Celery app at a broker (the shared Redis stays untouched: it is never restarted)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """A ``redis-server`` of this test alone on a free port, without persistence: a restart loses
    every message, as a broker restart without persistence does."""

    def __init__(self, folder: Path):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.skip("redis-server is not installed (scripts/install-system-packages.sh --with-redis)")
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        import redis

        self.process = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=open(self.folder / f"redis-{self.port}.log", "a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=self.port, socket_connect_timeout=0.5).ping():
                    return self
            except redis.RedisError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # no persistence: what was queued is gone
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def queue_length(self, queue: str) -> int:
        import redis

        return redis.Redis(port=self.port).llen(queue)


@contextmanager
def celery_broker(url: str, queue: str | None = None):
    """Point this process's Celery app at ``url`` and a queue of its own; restore afterwards."""
    from arena.celery import app

    queue = queue or f"test-{uuid.uuid4().hex[:8]}"
    saved = {k: app.conf[k] for k in ("broker_url", "broker_transport_options", "task_default_queue")}
    app.conf.update(broker_url=url, task_default_queue=queue,
                    broker_transport_options={"visibility_timeout": 3600, "socket_connect_timeout": 2})
    app._pool = None
    app.amqp._producer_pool = None
    try:
        yield queue
    finally:
        app.conf.update(saved)
        app._pool = None
        app.amqp._producer_pool = None
