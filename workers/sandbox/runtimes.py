"""What each language needs at match time: the registry of runtimes (WHAT, never HOW).

A :class:`Runtime` declares the files a bot of one language needs inside its sandbox (a minimal
closure: the interpreter or VM, the shared libraries its binaries load, the language's own library
files, the launcher and the SDK), the argv that runs the bot, its environment and the limit
adjustments the language needs. How those files reach a sandbox is decided once for every runtime
in ``workers.sandbox.image`` (a copy on the slot's own tmpfs, see
``docs/sandbox.md``): a new language only declares its files here (or in a sibling module that
calls :func:`register`).

Paths inside the sandbox: the bot at ``/bot`` (read-only), the launcher and SDK under ``/arena``,
runtime files at stable paths (the host's own path where binaries expect it, e.g. the dynamic
loader and ``/usr/lib/x86_64-linux-gnu/...``), a private small ``/tmp``.

The argv is a template: ``{uid}`` (the slot's uid, -1 when the runner is not root), ``{bot}``
(``/bot``), ``{lib}`` (``/arena/lib``) and ``{rlimits}`` (``NAME=VALUE,...`` from
``workers.sandbox.limits.rlimit_spec``) are filled in per sandbox. The program it starts must set
those rlimits and drop to that uid before running any bot code (``workers/launch.py`` does it for
Python).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

from workers.sandbox import pyruntime
from workers.sandbox.errors import SandboxError
from workers.sandbox.host import ENGINES_DIR, LAUNCHER_FILE, SDK_FILE
from workers.sandbox.pyruntime import SANDBOX_PREFIX

LANGUAGES = ("python", "javascript", "cpp", "rust", "go", "java")


@dataclass(frozen=True)
class RuntimeFile:
    """One file of a runtime: ``path`` inside the sandbox, its content from the host file ``source``
    or from ``data``; ``mode`` its permission bits (0o755 for what is executed or mapped as code)."""

    path: str
    source: str | None = None
    data: bytes | None = None
    mode: int = 0o644

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.source is not None
        with open(self.source, "rb") as handle:
            return handle.read()


@dataclass(frozen=True)
class RuntimeFiles:
    """The whole content of a runtime: files, and symlinks ``(path, target)`` inside the sandbox."""

    files: tuple[RuntimeFile, ...]
    symlinks: tuple[tuple[str, str], ...] = ()

    def size(self) -> int:
        return sum(len(f.data) if f.data is not None else os.path.getsize(f.source or "") for f in self.files)


@dataclass(frozen=True)
class Runtime:
    """What a bot of ``language`` needs at match time."""

    language: str
    entry_file: str                             # main.py, main.js, main.cpp, main.rs, main.go, Main.java
    argv: tuple[str, ...]                       # template, see the module docstring
    collect: Callable[[], RuntimeFiles]         # the minimal closure of files (called once per worker)
    env: tuple[tuple[str, str], ...] = ()
    # Host folders and files whose contents decide what collect() returns: while none of them
    # changes (by their paths, sizes and modification times), a worker reuses the copy a previous
    # one built (image.py caches it in the runtime directory). Empty: built in every worker.
    inputs: Callable[[], list[str]] = field(default=lambda: [])
    memory_extra_mb: int = 0                    # added to the bot's memory cap (a JVM's own heap)
    start_extra_ms: int = 0                     # added to the start-up allowance (a JVM's start)
    version: Callable[[], str] = field(default=lambda: "")

    def command(self, uid: int, rlimits: str, bot: str = "/bot", lib: str = "/arena/lib",
                memory_mb: int = 256) -> list[str]:
        """The argv with this sandbox's values filled in (``{memory_mb}``: the bot's memory limit)."""
        values = {"uid": str(uid), "rlimits": rlimits, "bot": bot, "lib": lib, "memory_mb": str(memory_mb)}
        return [part.format(**values) for part in self.argv]


@dataclass(frozen=True)
class BuildSpec:
    """How a compiled language's bot is built (run by ``workers/build.py`` inside the sandbox)."""

    language: str
    toolchain: Callable[[], RuntimeFiles]       # the compiler's files (dpkg -L of its packages + ldd closure)
    argv: tuple[str, ...]                       # template: {src} (read-only sources), {out} (writable output)
    artifact: str                               # where the artifact appears, relative to {out}
    env: tuple[tuple[str, str], ...] = ()
    wall_s: float = 60.0
    memory_mb: int = 1024
    processes: int = 64
    output_mb: int = 64
    version: Callable[[], str] = field(default=lambda: "")


RUNTIMES: dict[str, Runtime] = {}
BUILDS: dict[str, BuildSpec] = {}


def register(runtime: Runtime, build: BuildSpec | None = None) -> Runtime:
    """Add a language's runtime (and its build) to the registry."""
    if runtime.language not in LANGUAGES:
        raise ValueError(f"unknown language {runtime.language!r} (one of {', '.join(LANGUAGES)})")
    RUNTIMES[runtime.language] = runtime
    if build is not None:
        BUILDS[runtime.language] = build
    return runtime


def get_runtime(language: str) -> Runtime:
    """The registered runtime of ``language``; SandboxError naming the known ones otherwise."""
    try:
        return RUNTIMES[language]
    except KeyError:
        raise SandboxError(f"no runtime for language {language!r} (known: {', '.join(RUNTIMES)})") from None


# --- helpers for declaring host files ------------------------------------------------------------

_LDD_LINE = re.compile(r"^\s*(?:\S+\s+=>\s+)?(/\S+)\s+\(0x[0-9a-f]+\)\s*$")


def ldd_closure(binaries: list[str]) -> list[str]:
    """The shared libraries (and the dynamic loader) the binaries load, as the host paths ldd names
    (one ldd run for all of them: ldd costs ~100 ms a run)."""
    if not binaries:
        return []
    try:
        done = subprocess.run(["ldd", *binaries], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"cannot list the shared libraries of {binaries[0]}...: {exc}") from None
    seen: dict[str, None] = {}
    current = binaries[0]
    for line in done.stdout.splitlines():
        if not line[:1].isspace() and line.endswith(":"):
            current = line[:-1]
            continue
        if "not found" in line:
            raise SandboxError(f"{current} needs a library this machine lacks: {line.strip()}")
        match = _LDD_LINE.match(line)
        if match:
            seen.setdefault(match.group(1))
    if done.returncode != 0 and not seen:
        raise SandboxError(f"cannot list the shared libraries of {current}: {done.stderr.strip()}")
    return [path for path in seen if path not in binaries]


def host_files(paths: list[str], mode: int = 0o644) -> RuntimeFiles:
    """Host files at the same path inside the sandbox: each real file at its resolved path, and a
    symlink for every name on the way that is one (``/lib64/ld-linux-x86-64.so.2`` ...)."""
    files: dict[str, RuntimeFile] = {}
    links: dict[str, str] = {}
    for path in paths:
        real = os.path.realpath(path)
        files.setdefault(real, RuntimeFile(real, source=real, mode=mode))
        _links_on_the_way(path, links)
    return RuntimeFiles(tuple(files.values()), tuple(links.items()))


def _links_on_the_way(path: str, links: dict[str, str]) -> None:
    """Every symlink met while resolving ``path`` (a folder such as /lib -> usr/lib, or the file)."""
    parts = Path(path).parts
    current = Path("/")
    for part in parts[1:]:
        current = current / part
        if current.is_symlink():
            target = os.readlink(current)
            links.setdefault(str(current), target)
            resolved = (current.parent / target).resolve()
            if str(resolved) != str(current):
                _links_on_the_way(str(resolved), links)
            current = resolved


def merge(*parts: RuntimeFiles) -> RuntimeFiles:
    """One runtime out of several parts (the first declaration of a path wins)."""
    files: dict[str, RuntimeFile] = {}
    links: dict[str, str] = {}
    for part in parts:
        for item in part.files:
            files.setdefault(item.path, item)
        for path, target in part.symlinks:
            links.setdefault(path, target)
    for path in list(links):
        if path in files:      # a real file there already (the resolved path of another name)
            del links[path]
    return RuntimeFiles(tuple(files.values()), tuple(links.items()))


# --- Python ------------------------------------------------------------------------------------

def _python_files() -> RuntimeFiles:
    prefix, name = pyruntime.interpreter()
    binary = prefix / "bin" / name
    extensions = pyruntime.extension_modules(prefix)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    prefix_libs: list[str] = []
    system_libs: list[str] = []
    for library in ldd_closure([str(binary), *map(str, extensions)]):
        (prefix_libs if Path(library).is_relative_to(prefix) else system_libs).append(library)
    # The interpreter's own binaries lose their debug sections; libpython goes beside the
    # interpreter (found through LD_LIBRARY_PATH), the extension modules in lib-dynload.
    targets = {binary: f"{SANDBOX_PREFIX}/bin/{name}"}
    targets.update({Path(os.path.realpath(lib)): f"{SANDBOX_PREFIX}/lib/{Path(lib).name}" for lib in prefix_libs})
    targets.update({path: f"{SANDBOX_PREFIX}/lib/python{version}/lib-dynload/{path.name}" for path in extensions})
    contents = pyruntime.without_debug_info(list(targets))
    own = [RuntimeFile(target, data=contents[source], mode=0o755) for source, target in targets.items()]
    own += [RuntimeFile(path, data=data) for path, data in pyruntime.stdlib_files(prefix)]
    own += [RuntimeFile(path, data=data, mode=mode) for path, data, mode in pyruntime.arena_files()]
    return merge(RuntimeFiles(tuple(own)), host_files(system_libs, mode=0o755))


PYTHON = register(Runtime(
    language="python",
    entry_file="main.py",
    argv=(f"{SANDBOX_PREFIX}/bin/{pyruntime.interpreter()[1]}", "-I", "-S", "-X", "frozen_modules=on",
          "/arena/launch.py", "{uid}", "{bot}", "{lib}", "{rlimits}"),
    collect=_python_files,
    inputs=lambda: [*pyruntime.inputs(), str(ENGINES_DIR), str(SDK_FILE), str(LAUNCHER_FILE),
                    str(Path(__file__).parent), "/var/lib/dpkg/status"],
    # MALLOC_ARENA_MAX: glibc reserves 64 MiB of address space per thread arena, which would
    # exhaust RLIMIT_AS after a handful of threads.
    env=(("PATH", f"{SANDBOX_PREFIX}/bin:/usr/bin:/bin"), ("HOME", "/tmp"), ("LANG", "C.UTF-8"),
         ("PYTHONDONTWRITEBYTECODE", "1"), ("MALLOC_ARENA_MAX", "2"), ("LD_LIBRARY_PATH", f"{SANDBOX_PREFIX}/lib")),
    version=lambda: sys.version.split()[0],
))
