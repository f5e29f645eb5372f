"""Keeps the test processes of one parallel run apart (pytest-xdist, ``scripts/test.sh -n N``).

Loaded with ``-p tests.xdist_workers`` (pytest.ini) before pytest-django reads the settings: an
xdist worker (``PYTEST_XDIST_WORKER`` = gw0, gw1, ...) gets a var folder of its own,
``<ARENA_VAR_DIR>/xdist-gw0``, and so its own file cache (throttle counters, which every test
clears), its own filesystem broker and its own scratch files; the programs its tests start inherit
it. pytest-django gives each worker a test database of its own (``test_<name>_gw0``), and tmp_path
is per worker already. What stays shared is shared on purpose: Redis (its tests use queues and key
prefixes of their own), the sandbox's slots (locked machine-wide) and the ports (each test asks the
kernel for a free one). Without xdist this does nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker_var_dir(worker: str, var_dir: str | None) -> Path:
    """The var folder of xdist worker ``worker`` under the run's own (``ARENA_VAR_DIR`` or var/)."""
    base = Path(var_dir).resolve() if var_dir else ROOT / "var"  # as arena.settings reads it
    return base / f"xdist-{worker}"


_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER:
    _folder = worker_var_dir(_WORKER, os.environ.get("ARENA_VAR_DIR"))
    _folder.mkdir(parents=True, exist_ok=True)
    os.environ["ARENA_VAR_DIR"] = str(_folder)
