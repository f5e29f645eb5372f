"""The runtimes of the five languages beside Python: what a bot of each needs at match time.

Registered into ``workers.sandbox.runtimes`` (WHAT, never HOW: how the files reach a sandbox is
``workers.sandbox.image``'s business, the same for every language). Compiled bots run their built
artifact, staged at /bot: ``main`` for C++, Rust and Go, the ``.class`` files for Java; JavaScript
runs its sources. Each starts through the static launcher ``/arena/launch`` (``workers/launch_native.c``:
rlimits, the slot's uid, exec), about 1 ms where Python's own launcher costs ten.

What each brings into its sandbox (a minimal closure, measured sizes in docs/benchmarks.md):
  * C++ and Rust: libstdc++, libgcc_s, libm, libc and the dynamic loader (the ldd closure of
    libstdc++, which covers a Rust binary's libgcc_s and libc);
  * Go: nothing but the launcher (pure Go links statically);
  * JavaScript: the ``node`` binary (without its symbol tables) and its ldd closure;
  * Java: a ``jlink`` image of ``java.base`` with its class-data-sharing archive (made once per
    machine and JDK version in ``~/.cache/dive-arena/runtimes``, ``ARENA_RUNTIME_CACHE``), not the
    JDK's 260 MB.

Limits that differ (docs/writing-a-bot.md): the JVM gets 64 MiB of memory for itself beside the
bot's allowance and one more second to start; V8 and the JVM reserve far more address space than
they use, so their RLIMIT_AS is widened (the memory cgroup stays the hard cap). CPU time is charged
the same way for every language, and the freeze stops every thread (Go's and the JVM's included).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from workers import toolchains
from workers.sandbox.errors import SandboxError
from workers.sandbox.pyruntime import without_debug_info
from workers.sandbox.runtimes import Runtime, RuntimeFile, RuntimeFiles, host_files, ldd_closure, merge, register

LAUNCH = "/arena/launch"
JAVA_HOME = "/opt/java"
NODE = "/usr/bin/node"
RUNTIME_CACHE_ENV = "ARENA_RUNTIME_CACHE"
NATIVE_ENV = (("PATH", "/usr/bin:/bin"), ("HOME", "/tmp"), ("LANG", "C.UTF-8"), ("TMPDIR", "/tmp"),
              # glibc reserves 64 MiB of address space per thread arena: a few threads would exhaust RLIMIT_AS.
              ("MALLOC_ARENA_MAX", "2"))


def _launcher() -> RuntimeFiles:
    return RuntimeFiles((RuntimeFile(LAUNCH, data=toolchains.native_launcher(), mode=0o755),))


def _libstdcxx() -> str:
    done = subprocess.run(["gcc", "-print-file-name=libstdc++.so.6"], capture_output=True, text=True, timeout=60)
    path = done.stdout.strip()
    if done.returncode != 0 or not os.path.isabs(path):
        raise SandboxError("cannot find libstdc++.so.6 (install g++: `make install`)")
    return os.path.normpath(path)      # the soname's link, which the loader looks for


def _native_files() -> RuntimeFiles:
    library = _libstdcxx()
    return merge(_launcher(), host_files([library, *ldd_closure([library])], mode=0o755))


def _node_files() -> RuntimeFiles:
    if not os.access(NODE, os.X_OK):
        raise SandboxError(f"{NODE} is missing (install nodejs: `make install`)")
    # Without its symbol tables and debug sections (``strip --strip-all``): 86 MB instead of 99 in
    # every slot's root that runs JavaScript; V8 never reads them.
    node = RuntimeFiles((RuntimeFile(NODE, data=without_debug_info([Path(NODE)], "--strip-all")[Path(NODE)],
                                     mode=0o755),))
    return merge(_launcher(), node, host_files([NODE], mode=0o755), host_files(ldd_closure([NODE]), mode=0o755))


runtime_cache_dir = toolchains.runtime_cache_dir


@functools.lru_cache(maxsize=1)
def java_image() -> Path:
    """A jlink image of java.base with its CDS archive, made once per JDK version (10-50 s)."""
    version = toolchains.toolchain_version("java").split()[-1]
    target = runtime_cache_dir() / f"jre-{version}"
    if (target / "bin" / "java").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix="jre-", dir=target.parent))
    shutil.rmtree(partial)
    argv = [f"{toolchains.JDK_HOME}/bin/jlink", "--add-modules", "java.base", "--strip-debug", "--no-header-files",
            "--no-man-pages", "--generate-cds-archive", "--output", str(partial)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"cannot make the Java runtime with jlink: {exc} (install openjdk-17-jdk-headless)") from None
    if done.returncode != 0 or not (partial / "bin" / "java").is_file():
        shutil.rmtree(partial, ignore_errors=True)
        raise SandboxError(f"cannot make the Java runtime with jlink: {done.stderr.strip()[-2000:]}")
    # Compressed oops always (heaps far below 32 GiB): the other archive is never mapped.
    (partial / "lib" / "server" / "classes_nocoops.jsa").unlink(missing_ok=True)
    try:
        os.rename(partial, target)
    except OSError:                 # another process made it first
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _java_files() -> RuntimeFiles:
    image = java_image()
    files = []
    for path in sorted(image.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.name == "keytool":
            continue
        inside = f"{JAVA_HOME}/{path.relative_to(image).as_posix()}"
        executable = path.suffix == ".so" or path.parent.name == "bin" or os.access(path, os.X_OK)
        files.append(RuntimeFile(inside, source=str(path), mode=0o755 if executable else 0o644))
    # The JVM's own libraries find each other through their RUNPATH ($ORIGIN); from the system they
    # need libc, libm, libz, libstdc++ and libgcc_s (ldd of the launcher, libjvm and libstdc++).
    library = _libstdcxx()
    system = [lib for lib in ldd_closure([str(image / "bin" / "java"), str(image / "lib" / "server" / "libjvm.so"),
                                          library]) if not lib.startswith(str(image))]
    return merge(_launcher(), RuntimeFiles(tuple(files)), host_files([library, *system], mode=0o755))


def _native(language: str, collect, address_space_extra_mb: int, program: tuple[str, ...], entry: str,
            env=NATIVE_ENV, memory_extra_mb: int = 0, start_extra_ms: int = 0) -> Runtime:
    return register(Runtime(
        language=language, entry_file=entry,
        argv=(LAUNCH, "{uid}", "{rlimits}", str(address_space_extra_mb), "--", *program),
        collect=collect, env=env, memory_extra_mb=memory_extra_mb, start_extra_ms=start_extra_ms,
        version=(lambda: toolchains.toolchain_version(language)) if language in toolchains.BUILDS else _node_version))


def _node_version() -> str:
    try:
        done = subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"node {done.stdout.strip()}"


CPP = _native("cpp", _native_files, 0, ("{bot}/main",), "main")
RUST = _native("rust", _native_files, 0, ("{bot}/main",), "main")
# Go reserves its heap arenas' address space ahead of use.
GO = _native("go", _launcher, 256, ("{bot}/main",), "main")
# V8 reserves its code range and heap cages ahead of use. One thread pool worker: the bot's own
# work is single-threaded, and every thread counts against the slot's processes.
JAVASCRIPT = _native("javascript", _node_files, 2048,
                     (NODE, "--v8-pool-size=1", "--max-semi-space-size=8", "{bot}/main.js"), "main.js")
# The JVM: the serial collector (no GC threads), the client compiler only (fast start, one compiler
# thread), class data sharing, no perf-data file in /tmp; the heap within the bot's allowance
# and the JVM's own 64 MiB (metaspace, code cache, thread stacks) beside it.
JAVA = _native("java", _java_files, 2048,
               (f"{JAVA_HOME}/bin/java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-Xshare:auto", "-XX:-UsePerfData", "-XX:ReservedCodeCacheSize=32m", "-XX:MaxMetaspaceSize=48m",
                "-Xss1m", "-Xmx{memory_mb}m", "-cp", "{bot}", "Main"),
               "Main.class", memory_extra_mb=64, start_extra_ms=1000)
