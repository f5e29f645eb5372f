"""The README's run command on its embedded default: SQLite, the filesystem broker, one worker.

Starts ``scripts/run.sh`` (what ``make run`` runs after installing) in a fresh var directory,
waits for ladder matches to be played, then stops it the way Ctrl-C does.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _group_alive(pgid: int) -> bool:
    """True while a process of the group runs. Zombies do not count: this test process may be
    a child subreaper (the sandbox runner makes itself one) and then inherits the group's
    orphans without reaping them."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            return True
    return False


@pytest.mark.slow
def test_the_run_command_plays_ladder_matches_and_stops_cleanly_on_ctrl_c(tmp_path):
    port = _free_port()
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(PORT=str(port), ARENA_VAR_DIR=str(tmp_path / "var"), ARENA_QUEUE=f"run-test-{port}")
    log = open(tmp_path / "run.log", "w")
    process = subprocess.Popen(
        ["bash", "scripts/run.sh"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
        # A terminal's Ctrl-C finds SIGINT at its default in the shell: make sure it is here too.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    base = f"http://127.0.0.1:{port}"
    try:
        done = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not done:
            assert process.poll() is None, (tmp_path / "run.log").read_text()[-3000:]
            try:
                done = _get_json(f"{base}/api/matches/?status=done")["results"]
            except OSError:
                pass
            time.sleep(1)
        assert done, "no ladder match was played within two minutes:\n" + (tmp_path / "run.log").read_text()[-3000:]
        output = (tmp_path / "run.log").read_text()
        assert "Admin account: admin / " in output and f"http://127.0.0.1:{port}/" in output
        ladder = done[0]["ladder"]
        leaderboard = _get_json(f"{base}/api/ladders/{ladder}/leaderboard/")["results"]
        assert any(row["games"] > 0 for row in leaderboard)
        with urllib.request.urlopen(f"{base}/ladders/{ladder}/", timeout=5) as page:
            assert page.status == 200
            assert page.headers["Server"].startswith("gunicorn")  # a real WSGI server, not runserver
        # DEBUG is off: the site's own 404 page, and WhiteNoise serves the collected static files.
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/no-such-page/", timeout=5)
        body = missing.value.read().decode()
        assert missing.value.code == 404 and "There is nothing at this address" in body
        assert "Django tried these URL patterns" not in body
        for asset in ("arena/site.css", "arena/live.js", "vendor/uplot/uPlot.iife.min.js"):
            with urllib.request.urlopen(f"{base}/static/{asset}", timeout=5) as static:
                assert static.status == 200 and static.read()
    finally:
        try:
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        except ProcessLookupError:
            pass
        try:
            status = process.wait(timeout=45)
            deadline = time.monotonic() + 10
            while _group_alive(process.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            survivors = _group_alive(process.pid)
        finally:
            if _group_alive(process.pid):  # clean up after a failure, then report it
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            log.close()
    assert status == 0, (tmp_path / "run.log").read_text()[-3000:]
    assert not survivors, "a process of the run command outlived Ctrl-C"
