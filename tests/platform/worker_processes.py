"""Real Celery worker processes for fault tests and ``bench/faults.py``: started on a database and a
broker, killed whole (SIGKILL to the worker and its pool), stopped with SIGTERM as a container
platform does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Short leases and a fast recovery sweep: the same mechanisms, on a test's clock.
FAST_RECOVERY = {
    "MATCH_LEASE_SECONDS": "3", "MATCH_HEARTBEAT_SECONDS": "1", "RECOVERY_INTERVAL": "1",
    "OUTBOX_LOST_GRACE": "2", "OUTBOX_RESEND_AFTER": "5",
    # What docs/deploy.md asks of a container platform: SIGTERM hands running work back at once.
    "REMAP_SIGTERM": "SIGQUIT", "WORKER_SOFT_SHUTDOWN_TIMEOUT": "1",
}


def database_url(settings_dict: dict) -> str:
    """The URL of a Django database (the test database, for worker processes)."""
    db = settings_dict
    return (f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}")


class WorkerProcess:
    """One ``celery worker`` (with its own beat when ``beat``) in a process group of its own."""

    def __init__(self, name: str, *, env: dict, folder: Path, concurrency: int = 1, beat: bool = True):
        self.name = name
        self.env = env
        self.folder = folder
        self.concurrency = concurrency
        self.beat = beat
        self.process: subprocess.Popen | None = None
        self.log_path = folder / f"worker-{name}.log"
        self.starts = 0

    def start(self) -> WorkerProcess:
        self.starts += 1
        argv = [sys.executable, "-m", "celery", "-A", "arena", "worker", "--concurrency", str(self.concurrency),
                "--hostname", f"{self.name}@%h", "--loglevel", "info", "--without-gossip", "--without-mingle"]
        if self.beat:
            argv += ["-B", "--schedule", str(self.folder / f"beat-{self.name}-{self.starts}")]
        self.process = subprocess.Popen(argv, cwd=ROOT, env=self.env, start_new_session=True,
                                        stdout=open(self.log_path, "a"), stderr=subprocess.STDOUT)
        return self

    @property
    def node(self) -> str:
        """The beginning of the worker name recorded on the matches this worker runs."""
        return f"{self.name}@"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        marker = f"{self.name}@"
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"worker {self.name} exited: {self.log()[-3000:]}")
            text = self.log()
            if any(marker in line and "ready." in line for line in text.splitlines()[-200:]):
                return
            time.sleep(0.1)
        raise RuntimeError(f"worker {self.name} not ready after {timeout:.0f} s: {self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the whole worker: main process, beat and pool (a lost machine or container)."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)

    def terminate(self) -> None:
        """SIGTERM to the main process only, as ``docker stop`` or Kubernetes send it."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)

    def wait_exit(self, timeout: float = 30.0) -> int | None:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """Whatever state it is in: gone afterwards (the test is over)."""
        if self.alive():
            self.kill()
