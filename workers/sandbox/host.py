"""What the machine offers the sandbox: paths, bubblewrap, the interpreter, the runtime directory."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
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


def empty_mask_sources() -> tuple[Path, Path]:
    """An empty read-only file and an empty read-only folder, bind-mounted over what a bot must not see."""
    base = runtime_dir()
    file, folder = base / "empty-file", base / "empty-folder"
    if not file.is_file() or file.stat().st_size:
        file.unlink(missing_ok=True)
        file.touch()
    folder.mkdir(exist_ok=True)
    for leftover in folder.iterdir():   # nobody writes there; but whatever is there would show
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    os.chmod(file, 0o444)
    os.chmod(folder, 0o555)
    return file, folder


def bwrap_supports(bwrap: str, option: str) -> bool:
    """True when this bubblewrap knows ``option`` (for example ``--disable-userns``, bwrap >= 0.8)."""
    return option in _bwrap_help(bwrap)


@functools.lru_cache(maxsize=4)
def _bwrap_help(bwrap: str) -> str:
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout + done.stderr
