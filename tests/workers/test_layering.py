"""Dependencies point one way, arena -> workers -> engines: nothing in workers/ needs Django."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import workers

ROOT = Path(__file__).resolve().parents[2]


def _worker_modules() -> list[str]:
    # launch.py runs a bot when executed (the sandbox's entry point), so it is left out.
    # The "workers." prefix makes walk_packages descend into subpackages (workers.sandbox.*).
    return sorted(info.name for info in pkgutil.walk_packages(workers.__path__, "workers.")
                  if info.name != "workers.launch" and not info.name.startswith("workers.sdk"))


def test_every_workers_module_imports_with_django_absent():
    # sys.modules[name] = None makes any import of that name fail, as if it were not installed.
    code = ("import sys\n"
            "for name in ('django', 'celery', 'rest_framework', 'arena'):\n"
            "    sys.modules[name] = None\n"
            "import importlib\n"
            f"for module in {_worker_modules()!r}:\n"
            "    importlib.import_module(module)\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_the_workers_package_lists_the_modules_a_worker_needs():
    assert {"workers.runner", "workers.protocol", "workers.replay", "workers.play",
            "workers.sandbox.process", "workers.sandbox.slots"} <= set(_worker_modules())
