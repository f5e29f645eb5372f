"""What the machine offers the sandbox: paths, bubblewrap, the interpreter, the runtime directory."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent.parent
ENGINES_DIR = PROJECT_ROOT / "engines"
SDK_FILE = PACKAGE_DIR.parent / "sdk" / "arena_bot.py"
LAUNCHER_FILE = PACKAGE_DIR.parent / "launch.py"

# Explicit development-only escape hatch: run bots as plain child processes.
UNSAFE_ENV = "ARENA_UNSAFE_NO_SANDBOX"
RUNTIME_DIR_ENV = "ARENA_RUNTIME_DIR"
INSTALL_HINT = ("bubblewrap (bwrap) is not installed; bots run only inside it. Install it with "
                "`make install` (runs scripts/install-system-packages.sh) or "
                "`sudo apt-get install bubblewrap`.")


def bwrap_path() -> str | None:
    """The bwrap executable, or None when bubblewrap is not installed."""
    return shutil.which("bwrap") or next(
        (p for p in ("/usr/bin/bwrap", "/bin/bwrap") if os.access(p, os.X_OK)), None)


def unsafe_mode() -> bool:
    """True when the development-only switch asks to run bots without any sandbox."""
    return os.environ.get(UNSAFE_ENV, "") not in ("", "0")


def python_runtime() -> tuple[Path, str]:
    """(prefix of the real interpreter, its executable name), whatever venv or shim started us.

    The pyenv shim costs ~170 ms per start: we always exec the real interpreter.
    """
    prefix = Path(sys.base_prefix).resolve()
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not (prefix / "bin" / name).exists():
        real = Path(os.path.realpath(sys.executable))
        prefix, name = real.parent.parent, real.name
    return prefix, name


def runtime_dir() -> Path:
    """Where slot locks and staged bots live (created on demand, private to the runner's user)."""
    configured = os.environ.get(RUNTIME_DIR_ENV)
    if configured:
        path = Path(configured)
    elif os.geteuid() == 0:
        path = Path("/run/dive-arena")
    else:
        path = Path(tempfile.gettempdir()) / f"dive-arena-{os.geteuid()}"
    # Private to the runner: staged bots are reached from inside a sandbox only through its
    # bind mount (whose own permissions count, not those of the host path to it).
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path
