"""Builds a bot of a compiled language once, inside the sandbox (no Django here).

    result = build_bot("mybot.zip")          # or a folder, or one source file (main.cpp, bot.rs...)
    result.status                            # "ok", "failed", "timeout", "too_much_output"
    result.log                               # the compiler's messages (capped)
    result.artifact                          # the built files as a zip (stageable like a bot)

The build runs in a slot like a bot (its own uid, memory, pids and CPU cgroups, the seccomp
filter, no network, a PID namespace of its own), with the limits of its ``BuildSpec``: wall time,
CPU, memory, processes, bytes written (the output folder and /tmp are size-capped tmpfs). It sees
the bot's sources read-only at /src, the toolchain's own files (``workers.toolchains``) read-only
at their host paths, and nothing else of the host: no /etc but what a spec names, no /home, no
other bot, no /proc of the machine. The artifact leaves the sandbox as a tar stream on stdout
(capped), the compiler's messages on stderr.

The local CLI caches successful builds by the hash of the sources and the toolchain's version
(``ARENA_BUILD_CACHE``, default ``~/.cache/dive-arena/builds``), the compiler known by its
binary's path, size and time (``toolchains.toolchain_stamp``): a second run of the same bot starts
at once.
"""

from __future__ import annotations

import hashlib
import io
import os
import selectors
import shutil
import signal
import stat
import subprocess
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from workers import toolchains
from workers.match.seats import SeatSpec
from workers.sandbox import (BotFilesError, SandboxError, SandboxLimits, acquire_slot, bwrap_path, rlimit_spec,
                             stage_bot, unsafe_mode)
from workers.sandbox.process import _proc_masks, _with_cgroups
from workers.sandbox.reaping import _become_subreaper, _reap_orphaned_inits
from workers.sandbox.syscalls import filter_fd
from workers.toolchains import BUILDS, ENTRY_FILES, LANGUAGE_OF_SUFFIX, BuildSpec, ToolchainMissing

STATUSES = ("ok", "failed", "timeout", "too_much_output")
LOG_CAP_BYTES = 64 * 1024
CACHE_ENV = "ARENA_BUILD_CACHE"
# The build's last act: the output folder as a tar stream on stdout (the compiler's own stdout
# goes to stderr, with its messages).
_BUILD_SCRIPT = '"$@" 1>&2 || exit $?; cd /out && exec tar --numeric-owner -cf - .'


@dataclass
class BuildResult:
    """What a build gave: its status, the compiler's messages, the artifact and facts about it."""

    language: str
    status: str
    log: str = ""
    toolchain: str = ""
    artifact: bytes | None = None           # a zip of the output folder (ok only)
    artifact_sha256: str = ""
    artifact_size: int = 0
    seconds: float = 0.0
    cached: bool = False
    facts: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def message(self) -> str:
        """What the author reads when the build did not succeed: which limit, and the compiler's output."""
        spec = BUILDS.get(self.language)
        wall = self.facts.get("wall_s", spec.wall_s if spec else 0)
        output = self.facts.get("output_mb", spec.output_mb if spec else 0)
        tmp = self.facts.get("tmp_mb", spec.tmp_mb if spec else 0)
        reasons = {
            "failed": "the build failed",
            "timeout": f"the build took too long (limit {wall:g} s of wall time)",
            "too_much_output": f"the build wrote too much (limit {output} MiB of output, {tmp} MiB of temporary files)",
        }
        head = reasons.get(self.status, self.status)
        return f"{head} ({toolchains.TITLES.get(self.language, self.language)}, {self.toolchain}):\n{self.log}".rstrip()


class BuildError(Exception):
    """A bot that cannot be built (its files, or a missing toolchain): the message says why."""


# --- what a bot is --------------------------------------------------------------------------------

def detect_language(path: str | os.PathLike) -> str:
    """The language of a bot (a source file, a .zip or a folder) from its entry file.

    BuildError when it has none, or more than one, at its root."""
    path = Path(path)
    if path.is_file() and path.suffix == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                names = [n.lstrip("./") for n in archive.namelist()]
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise BuildError(f"bot archive {path.name} is not a valid zip: {exc}") from None
        root = {name for name in names if "/" not in name}
        where = f"bot archive {path.name}"
    elif path.is_dir():
        root = {entry.name for entry in path.iterdir() if entry.is_file()}
        where = f"bot folder {path}"
    elif path.is_file():
        language = LANGUAGE_OF_SUFFIX.get(path.suffix)
        if language is None:
            raise BuildError(f"bot {path}: a single file must be a source file "
                             f"({', '.join(sorted(LANGUAGE_OF_SUFFIX))}) or a .zip")
        return language
    else:
        raise BuildError(f"bot {path} not found")
    entries = sorted(name for name in root if name in toolchains.LANGUAGE_OF_ENTRY)
    if not entries:
        raise BuildError(f"{where} has no entry file at its root (one of {', '.join(ENTRY_FILES.values())})")
    if len(entries) > 1:
        raise BuildError(f"{where} has {len(entries)} entry files at its root ({', '.join(entries)}): "
                         "keep exactly one, it gives the language")
    return toolchains.LANGUAGE_OF_ENTRY[entries[0]]


def needs_build(language: str) -> bool:
    """True for the compiled languages (C++, Rust, Go, Java)."""
    return language in BUILDS


def sources_hash(folder: Path) -> str:
    """sha256 over a staged folder: every file's relative path and content, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# --- the build sandbox -----------------------------------------------------------------------------

def _argv_for(spec: BuildSpec, src: Path) -> list[str]:
    sources = sorted(p.name for p in src.glob(spec.sources) if p.is_file())
    argv: list[str] = []
    for part in spec.argv:
        if part == "{sources}":
            argv += sources
        else:
            argv.append(part.replace("{out}", "/out"))
    return argv


def _bwrap_argv(bwrap: str, spec: BuildSpec, src: Path, seccomp_fd: int, launcher_fd: int,
                uid: int, rlimits: str) -> list[str]:
    tree = toolchains.toolchain_tree(spec)
    argv = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user"]
    argv += ["--seccomp", str(seccomp_fd)]
    # bwrap makes the parents of a bind target mode 0700 unless told: the slot's uid must get through.
    folders = {str(parent) for path in tree.binds + tuple(p for p, _ in tree.symlinks)
               for parent in Path(path).parents if str(parent) != "/"}
    for folder in sorted(folders - {"/bin", "/sbin", "/lib", "/lib64"}):
        argv += ["--perms", "0755", "--dir", folder]
    for path in tree.binds:
        argv += ["--ro-bind", path, path]
    for path, target in tree.symlinks:
        argv += ["--symlink", target, path]
    # The merged-/usr links (/bin -> usr/bin ...), as the host has them.
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
    argv += ["--perms", "0755", "--dir", "/arena", "--perms", "0755", "--file", str(launcher_fd), "/arena/launch",
             "--ro-bind", str(src), "/src",
             "--perms", "1777", "--size", str(spec.output_mb * 2**20), "--tmpfs", "/out",
             "--perms", "1777", "--size", str(spec.tmp_mb * 2**20), "--tmpfs", "/tmp",
             "--proc", "/proc", *_proc_masks(), "--dev", "/dev", "--remount-ro", "/", "--clearenv"]
    for key, value in toolchains.BUILD_ENV + spec.env:
        argv += ["--setenv", key, value]
    argv += ["--chdir", "/src", "--", "/arena/launch", str(uid), rlimits, str(spec.address_space_extra_mb), "--",
             "/bin/sh", "-c", _BUILD_SCRIPT, "build", *_argv_for(spec, src)]
    return argv


def _launcher_fd() -> int:
    data = toolchains.native_launcher()
    fd = os.memfd_create("arena-launch", os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _run_sandboxed(spec: BuildSpec, src: Path) -> tuple[int | None, bytes, bytes, bool, str, dict]:
    """Run the build: (exit status or None when killed at the wall limit, stdout (the tar), stderr
    (capped), whether stdout went over its cap, why it was stopped, the slot's limit hits)."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed; builds run only inside it (`make install`)")
    limits = SandboxLimits(memory_mb=spec.memory_mb, processes=spec.processes, cpu_s=spec.cpu_s,
                           file_size_mb=spec.output_mb, open_files=1024, tmp_mb=spec.tmp_mb, cpus=1.0)
    slot = acquire_slot()
    seccomp_fd = launcher_fd = None
    stdout, stderr = bytearray(), bytearray()
    over = False
    stopped = ""
    try:
        staged = slot.directory / "bot"
        if staged.exists():
            shutil.rmtree(staged)
        shutil.copytree(src, staged)
        for root, _dirs, files in os.walk(staged):
            os.chmod(root, 0o755)
            for name in files:
                os.chmod(Path(root) / name, 0o644)
        seccomp_fd, launcher_fd = filter_fd(), _launcher_fd()
        uid = slot.uid if slot.uid is not None else -1
        argv = _bwrap_argv(bwrap, spec, staged, seccomp_fd, launcher_fd, uid,
                           rlimit_spec(limits, "pids" in slot.cgroups.dirs))
        slot.cgroups.prepare(limits)
        _become_subreaper()
        process = subprocess.Popen(_with_cgroups(argv, slot.cgroups.procs_files()), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={}, close_fds=True,
                                   start_new_session=True, pass_fds=(seccomp_fd, launcher_fd))
        os.close(seccomp_fd)
        os.close(launcher_fd)
        seccomp_fd = launcher_fd = None
        deadline = time.monotonic() + spec.wall_s
        out_cap = (spec.output_mb + 1) * 2**20
        assert process.stdout is not None and process.stderr is not None  # both are PIPEs
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, stdout)
            selector.register(process.stderr, selectors.EVENT_READ, stderr)
            open_streams = 2
            while open_streams:
                left = deadline - time.monotonic()
                if left <= 0:
                    stopped = "timeout"
                    break
                for key, _ in selector.select(timeout=min(left, 0.5)):
                    block = os.read(key.fd, 1 << 16)
                    if not block:
                        selector.unregister(key.fileobj)
                        open_streams -= 1
                        continue
                    buffer = key.data
                    if buffer is stdout and len(stdout) + len(block) > out_cap:
                        over = True
                        continue
                    if buffer is stderr and len(stderr) >= LOG_CAP_BYTES:
                        continue       # read and dropped: a chatty compiler cannot fill the memory
                    buffer += block
                if over:
                    stopped = "too_much_output"
                    break
        if stopped:
            slot.cgroups.kill_all(timeout=0.5, spare=process.pid)
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            code = process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        hits = slot.cgroups.limit_hits()
        slot.cgroups.kill_all()
        _reap_orphaned_inits()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        return (None if stopped else code), bytes(stdout), bytes(stderr), over, stopped, hits
    finally:
        for fd in (seccomp_fd, launcher_fd):
            if fd is not None:
                os.close(fd)
        shutil.rmtree(slot.directory / "bot", ignore_errors=True)
        slot.release()


# What a compiler says when its output hit the size caps (ENOSPC on the tmpfs, EFBIG or SIGXFSZ from
# RLIMIT_FSIZE).
_OUTPUT_FULL = ("No space left on device", "File too large", "file too large", "Disk quota exceeded",
                "File size limit exceeded")


def _artifact_zip(tar_bytes: bytes) -> bytes:
    """The tar stream of the output folder as a zip (regular files only; executables keep their bit).

    Executables are stored, not deflated: every sandbox of the version unpacks its artifact, and
    inflating a 2.3 MiB Go binary took 11 ms of each start (bench/languages.py), a third of it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar, \
            zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            name = member.name.lstrip("./")
            if not member.isfile() or not name or ".." in name.split("/"):
                continue
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = ((0o755 if member.mode & 0o100 else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_STORED if member.mode & 0o100 else zipfile.ZIP_DEFLATED
            extracted = tar.extractfile(member)
            assert extracted is not None  # a regular file (the loop keeps only those)
            archive.writestr(info, extracted.read())
    return buffer.getvalue()


def build_staged(language: str, src: Path, spec: BuildSpec | None = None) -> BuildResult:
    """Build the staged sources in ``src`` (their entry file at the root) inside the sandbox
    (with ``spec``'s limits when given: tests shorten them)."""
    spec = spec or BUILDS[language]
    version = toolchains.toolchain_version(language)
    if unsafe_mode():
        raise BuildError(f"{language} bots are built only inside the sandbox ({toolchains.UNSAFE_NOTE})")
    started = time.perf_counter()
    code, out, err, over, stopped, hits = _run_sandboxed(spec, src)
    seconds = time.perf_counter() - started
    log = err.decode("utf-8", "replace")
    if len(err) >= LOG_CAP_BYTES:
        log += f"\n[... the compiler's messages are cut at {LOG_CAP_BYTES // 1024} KiB]"
    if hits.get("oom_kill"):
        log += f"\n[the build ran out of memory: its limit is {spec.memory_mb} MiB]"
    result = BuildResult(language=language, status="failed", log=log.strip(), toolchain=version,
                         seconds=seconds, facts={"limit_hits": hits, "wall_s": spec.wall_s, "output_mb": spec.output_mb,
                                                 "tmp_mb": spec.tmp_mb})
    if stopped == "timeout":
        result.status = "timeout"
    elif (over or stopped == "too_much_output" or any(text in log for text in _OUTPUT_FULL)
          or code == 128 + signal.SIGXFSZ):
        result.status = "too_much_output"
    elif code == 0:
        try:
            artifact = _artifact_zip(out)
        except (tarfile.TarError, OSError, EOFError) as exc:
            result.log = (result.log + f"\n[the build's output could not be read: {exc}]").strip()
            return result
        with zipfile.ZipFile(io.BytesIO(artifact)) as archive:
            if spec.artifact not in archive.namelist():
                result.log = (result.log + f"\n[the build made no {spec.artifact}]").strip()
                return result
        result.status = "ok"
        result.artifact = artifact
        result.artifact_sha256 = hashlib.sha256(artifact).hexdigest()
        result.artifact_size = len(artifact)
    elif code is not None and code > 128:
        result.log = (result.log + f"\n[the compiler was killed by signal {code - 128}]").strip()
    return result


def stage_sources(path: str | os.PathLike, target: Path, language: str | None = None,
                  label: str | None = None) -> str:
    """Stage a bot's sources into ``target`` (entry file at the root); returns its language.

    BuildError (or BotFilesError) when its files cannot be staged."""
    language = language or detect_language(path)
    stage_bot(path, target, label=label, entry=ENTRY_FILES[language])
    return language


def build_bot(path: str | os.PathLike, language: str | None = None, spec: BuildSpec | None = None) -> BuildResult:
    """Build a bot (source file, .zip or folder) of a compiled language; no cache."""
    with tempfile.TemporaryDirectory(prefix="arena-build-") as tmp:
        src = Path(tmp) / "src"
        language = stage_sources(path, src, language)
        if not needs_build(language):
            raise BuildError(f"{toolchains.TITLES[language]} bots are not built")
        return build_staged(language, src, spec)


# --- the local CLI's cache -------------------------------------------------------------------------

def cache_dir() -> Path:
    """Where the local CLI keeps built bots (``ARENA_BUILD_CACHE``, default ~/.cache/dive-arena/builds)."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "dive-arena" / "builds"


def build_cached(path: str | os.PathLike, progress=None) -> tuple[str, Path | None, BuildResult | None]:
    """For the local CLI: (language, the folder to run, the build result).

    Python and JavaScript bots run their sources: (language, None, None), the caller stages the
    bot as it is. A compiled bot is built once per (sources, toolchain) and its artifact kept in
    the cache; a failed build returns (language, None, result) and is not cached. ``progress(text)``
    is told when a build starts (builds take seconds)."""
    with tempfile.TemporaryDirectory(prefix="arena-build-") as tmp:
        src = Path(tmp) / "src"
        language = stage_sources(path, src)
        if not needs_build(language):
            return language, None, None
        stamp = toolchains.toolchain_stamp(language)
        key = hashlib.sha256(f"{language}\0{stamp}\0{sources_hash(src)}".encode()).hexdigest()[:32]
        folder = cache_dir() / key
        if (folder / "artifact.zip").is_file() and (folder / "toolchain").is_file():
            data = (folder / "artifact.zip").read_bytes()
            return language, folder / "artifact.zip", BuildResult(
                language=language, status="ok", log=(folder / "build.log").read_text(errors="replace"),
                toolchain=(folder / "toolchain").read_text().strip(), artifact=data,
                artifact_sha256=hashlib.sha256(data).hexdigest(), artifact_size=len(data), cached=True)
        version = toolchains.toolchain_version(language)
        if progress:
            progress(f"building {path} ({toolchains.TITLES[language]}, {version}) in the sandbox...")
        result = build_staged(language, src)
        if not result.ok:
            return language, None, result
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"artifact.zip.{os.getpid()}"
        assert result.artifact is not None  # a build that is ok has its artifact
        partial.write_bytes(result.artifact)
        (folder / "build.log").write_text(result.log)
        (folder / "toolchain").write_text(result.toolchain + "\n")
        os.replace(partial, folder / "artifact.zip")      # whole or absent, whatever runs beside us
        return language, folder / "artifact.zip", result


def seat_for(bot: str, name: str | None = None, progress=None):
    """The runner's SeatSpec for a bot given on a command line: ``builtin:NAME`` or a path as it is
    (the runner names what is wrong with it), a Python or JavaScript bot as it is, or a compiled
    bot's cached build (built first when needed). BuildError (with the compiler's messages) when
    it does not build or its files are refused."""
    if bot.startswith("builtin:") or not os.path.exists(bot):
        return SeatSpec(bot, name=name or bot)
    try:
        language, artifact, result = build_cached(bot, progress=progress)
    except (BotFilesError, ToolchainMissing, SandboxError) as exc:
        raise BuildError(f"{bot}: {exc}") from None
    if result is not None and not result.ok:
        raise BuildError(f"{bot} does not build: {result.message()}")
    return SeatSpec(str(artifact or bot), name=name or bot, language=language)


__all__ = ["BuildError", "BuildResult", "STATUSES", "ToolchainMissing", "BotFilesError", "build_bot", "build_cached",
           "build_staged", "cache_dir", "detect_language", "seat_for", "needs_build", "sources_hash", "stage_sources"]
