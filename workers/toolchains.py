"""The six bot languages: entry files, and how each compiled one is built (no Django here).

DESIGN.md, "Bot protocol": the entry file's name at the root of a bot gives its language. Python
and JavaScript run their sources; C++, Rust, Go and Java are built once per version inside the
sandbox (``workers.build``) and the built artifact is what every match runs.

A build's toolchain is declared as the Debian packages it comes from: the files those packages
and everything they depend on installed (``dpkg``'s own lists, so nothing else of the host: no
/etc but what a spec names, no home folders, no other bot), bound read-only at their host paths.
Folders that hold nothing but toolchain files are bound whole (a few dozen mounts instead of
thousands). The toolchains are far too big to copy per build (g++ and its closure alone: 3456
files, 481 MB), and a build runs no bot code: the compiler only reads the sources.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

LANGUAGES = ("python", "javascript", "cpp", "rust", "go", "java")

# The entry file at a bot's root, per language (DESIGN.md's table), and the reverse.
ENTRY_FILES = {"python": "main.py", "javascript": "main.js", "cpp": "main.cpp", "rust": "main.rs",
               "go": "main.go", "java": "Main.java"}
LANGUAGE_OF_ENTRY = {entry: language for language, entry in ENTRY_FILES.items()}
# A single uploaded source file is taken by its suffix (and staged under its entry file's name).
LANGUAGE_OF_SUFFIX = {".py": "python", ".js": "javascript", ".cpp": "cpp", ".rs": "rust", ".go": "go",
                      ".java": "java"}
TITLES = {"python": "Python", "javascript": "JavaScript", "cpp": "C++", "rust": "Rust", "go": "Go",
          "java": "Java"}

DPKG_DIR = Path("/var/lib/dpkg")
JDK_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
# Where host files may come from: the system's own trees (a package's files under /etc, /var or
# /home never are, unless a spec names the folder).
SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/")
# What no compiler reads: documentation, manuals, translations, debug symbols.
SKIPPED_PREFIXES = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/locale/", "/usr/share/info/",
                    "/usr/share/lintian/", "/usr/lib/debug/", "/usr/share/bug/")


@dataclass(frozen=True)
class BuildSpec:
    """How a compiled language's bot is built inside the sandbox.

    ``argv`` runs in ``/src`` (the bot's sources, read-only): ``{out}`` is the writable output
    folder (a tmpfs of ``output_mb``), ``{sources}`` expands to the root's files matching
    ``sources`` (sorted). ``artifact`` names the file in ``{out}`` that must exist afterwards.
    """

    language: str
    packages: tuple[str, ...]              # Debian packages of the toolchain (their closure is bound)
    argv: tuple[str, ...]
    sources: str                           # glob of the root's source files, e.g. "*.cpp"
    artifact: str
    version_argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    etc_prefixes: tuple[str, ...] = ()     # folders under /etc the toolchain reads (the JDK's conf)
    extra_binds: tuple[str, ...] = ()      # host folders bound whole (files a package made at install)
    wall_s: float = 60.0
    cpu_s: int = 120
    memory_mb: int = 1024
    processes: int = 64
    output_mb: int = 64
    tmp_mb: int = 256
    address_space_extra_mb: int = 4096     # compilers (the JVM, go, rustc) reserve far more than they use


# Every build script runs under /bin/sh and streams its output folder out with tar.
BASE_PACKAGES = ("dash", "tar")
LAUNCHER_SOURCE = Path(__file__).resolve().parent / "launch_native.c"
UNSAFE_NOTE = "ARENA_UNSAFE_NO_SANDBOX does not apply to builds"

BUILD_ENV = (("PATH", "/usr/bin:/bin"), ("HOME", "/tmp"), ("LANG", "C.UTF-8"), ("TMPDIR", "/tmp"))

BUILDS: dict[str, BuildSpec] = {
    "cpp": BuildSpec(
        language="cpp", packages=("g++",),
        argv=("/usr/bin/g++", "-O2", "-std=c++20", "-pipe", "-o", "{out}/main", "{sources}"),
        sources="*.cpp", artifact="main", version_argv=("/usr/bin/g++", "--version"), memory_mb=1024),
    "rust": BuildSpec(
        language="rust", packages=("rustc",),
        # The linker by its package's name: /usr/bin/cc is an alternative (/etc/alternatives), not a package file.
        argv=("/usr/bin/rustc", "-O", "--edition", "2021", "-C", "linker=gcc", "-C", "strip=symbols", "-o", "{out}/main", "main.rs"),
        sources="main.rs", artifact="main", version_argv=("/usr/bin/rustc", "--version"), memory_mb=1024),
    "go": BuildSpec(
        language="go", packages=("golang-go",),
        argv=("/usr/bin/go", "build", "-o", "{out}/main", "{sources}"),
        sources="*.go", artifact="main", version_argv=("/usr/bin/go", "version"),
        # No module, no network: the standard library only. The defaults otherwise (cgo's setting,
        # no -trimpath): Debian's precompiled standard library is then up to date, where
        # CGO_ENABLED=0 or -trimpath rebuild all of it (22 s and 102 s instead of 2.8 s, measured).
        # Pure Go code links statically; a package that needs cgo (net's resolver) finds no gcc.
        env=(("GO111MODULE", "off"), ("GOPROXY", "off"), ("GOCACHE", "/tmp/go-cache"), ("GOPATH", "/tmp/go"),
             ("GOTOOLCHAIN", "local")),
        memory_mb=1024),
    "java": BuildSpec(
        language="java", packages=("openjdk-17-jdk-headless",),
        argv=(f"{JDK_HOME}/bin/javac", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto",
              "-J-Xmx512m", "-encoding", "UTF-8", "-d", "{out}", "{sources}"),
        sources="*.java", artifact="Main.class", version_argv=(f"{JDK_HOME}/bin/javac", "-version"),
        # The JDK's folder whole: its CDS archive (lib/server/classes.jsa) is made at install time.
        etc_prefixes=("/etc/java-17-openjdk/",), extra_binds=(JDK_HOME,), memory_mb=1024),
}


def language_of_entry(name: str) -> str | None:
    """The language whose entry file is ``name`` (``main.cpp`` -> ``cpp``), else None."""
    return LANGUAGE_OF_ENTRY.get(name)


# --- the toolchain's host files ------------------------------------------------------------------

@dataclass(frozen=True)
class HostTree:
    """What a build sandbox binds of the host: paths bound read-only at the same place (files or
    whole folders) and symlinks ``(path, target)`` recreated inside."""

    binds: tuple[str, ...]
    symlinks: tuple[tuple[str, str], ...]


def _dpkg_status() -> dict[str, dict[str, str]]:
    """Installed packages: name -> fields (Depends, Pre-Depends, Provides)."""
    packages: dict[str, dict[str, str]] = {}
    text = (DPKG_DIR / "status").read_text(encoding="utf-8", errors="replace")
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if line.startswith((" ", "\t")) and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields.get("Package") and fields.get("Status", "").endswith(" installed"):
            packages.setdefault(fields["Package"], fields)
    return packages


def package_closure(roots: tuple[str, ...]) -> list[str]:
    """The installed packages ``roots`` need: themselves and their Depends/Pre-Depends, recursively
    (of each alternative, the first installed one; a virtual package by what provides it)."""
    status = _dpkg_status()
    provided: dict[str, str] = {}
    for name, fields in status.items():
        for item in fields.get("Provides", "").split(","):
            if item.strip():
                provided.setdefault(item.strip().split()[0].split(":")[0], name)
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = todo.pop()
        name = name if name in status else provided.get(name, "")
        if not name or name in seen:
            continue
        seen.append(name)
        for field in ("Depends", "Pre-Depends"):
            for alternatives in status[name].get(field, "").split(","):
                for choice in alternatives.split("|"):
                    dep = choice.strip().split(" ")[0].split(":")[0]
                    if dep and (dep in status or dep in provided):
                        todo.append(dep)
                        break
    missing = [root for root in roots if root not in seen and provided.get(root) not in seen]
    if missing:
        raise ToolchainMissing(f"the toolchain package(s) {', '.join(missing)} are not installed: "
                               "run `make install` (scripts/install-system-packages.sh)")
    return seen


class ToolchainMissing(Exception):
    """A toolchain this build needs is not installed on this machine."""


def _package_paths(package: str) -> list[str]:
    for name in (f"{package}.list", f"{package}:amd64.list", f"{package}:all.list"):
        path = DPKG_DIR / "info" / name
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace").splitlines()
    found = list((DPKG_DIR / "info").glob(f"{package}:*.list"))
    return found[0].read_text(encoding="utf-8", errors="replace").splitlines() if found else []


def _canonical(path: str) -> str:
    """``path`` with every folder on the way resolved (``/bin/sh`` -> ``/usr/bin/sh``), the last
    component kept as it is (it may be a symlink we want to recreate)."""
    parent, name = os.path.split(path)
    return os.path.join(os.path.realpath(parent), name)


@functools.cache
def toolchain_tree(spec: BuildSpec) -> HostTree:
    """The host files of the closure of ``spec``'s packages, folded into whole folders where possible."""
    allowed = SYSTEM_PREFIXES + spec.etc_prefixes
    files: set[str] = set()
    links: dict[str, str] = {}
    for folder in spec.extra_binds:
        for root, dirs, names in os.walk(folder):
            for name in names + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    links[path] = os.readlink(path)
                elif os.path.isfile(path):
                    files.add(path)
    for package in package_closure(spec.packages + BASE_PACKAGES):
        for listed in _package_paths(package):
            if not listed.startswith(allowed) or listed.startswith(SKIPPED_PREFIXES):
                continue
            path = _canonical(listed)
            if os.path.islink(path):
                links[path] = os.readlink(path)
                target = os.path.realpath(path)
                if os.path.isfile(target) and target.startswith(allowed):
                    files.add(target)           # what a link points at comes along (alternatives)
            elif os.path.isfile(path):
                files.add(path)
    return _fold(files, links)


def _fold(files: set[str], links: dict[str, str]) -> HostTree:
    """Bind a folder whole when everything under it is ours; else its own files one by one."""
    members = files | set(links)
    parents: dict[str, set[str]] = {}
    for path in members:
        parent = os.path.dirname(path)
        while parent not in ("/", ""):
            parents.setdefault(parent, set()).add(path)
            parent = os.path.dirname(parent)
    whole: set[str] = set()
    for folder in sorted(parents, key=len):
        if any(folder.startswith(done + "/") for done in whole) or folder.count("/") < 3:
            continue        # under a folder bound already, or too high (/usr/lib) to be all ours
        if _only_ours(folder, members):
            whole.add(folder)
    binds = sorted(whole) + sorted(p for p in files if not any(p.startswith(w + "/") for w in whole))
    symlinks = tuple(sorted((p, t) for p, t in links.items() if not any(p.startswith(w + "/") for w in whole)))
    return HostTree(tuple(binds), symlinks)


def _only_ours(folder: str, members: set[str]) -> bool:
    for root, dirs, names in os.walk(folder):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            if os.path.join(root, name) not in members:
                return False
    return True


@functools.cache
def toolchain_version(language: str) -> str:
    """The first line the compiler prints about its version (e.g. ``g++ (Debian 12.2.0-14) 12.2.0``)."""
    spec = BUILDS[language]
    try:
        done = subprocess.run(list(spec.version_argv), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolchainMissing(f"cannot run {spec.version_argv[0]}: {exc}") from None
    lines = (done.stdout + done.stderr).strip().splitlines()
    return re.sub(r"\s+", " ", lines[0]).strip() if lines else "unknown"


def runtime_cache_dir() -> Path:
    """Where what is made once per machine is kept: the launcher, the Java image
    (``ARENA_RUNTIME_CACHE``, default ~/.cache/dive-arena/runtimes)."""
    configured = os.environ.get("ARENA_RUNTIME_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "dive-arena" / "runtimes"


def toolchain_stamp(language: str) -> str:
    """What changes when the compiler does (its binary's resolved path, size and time), without
    running it: the local CLI keys its cache on this (running ``g++ --version`` costs tens of ms)."""
    binary = os.path.realpath(BUILDS[language].version_argv[0])
    try:
        info = os.stat(binary)
    except OSError:
        return f"{binary} missing"
    return f"{binary} {info.st_size} {info.st_mtime_ns}"


@functools.lru_cache(maxsize=1)
def native_launcher() -> bytes:
    """The static launcher of builds and of non-Python bots (``workers/launch_native.c``), compiled
    with the host's gcc (trusted source; about 0.3 s, seconds on a loaded machine) once per machine
    and source: kept in the runtime cache under the source's hash."""
    source = LAUNCHER_SOURCE.read_bytes()
    cached = runtime_cache_dir() / f"launch-{hashlib.sha256(source).hexdigest()[:16]}"
    if cached.is_file():
        return cached.read_bytes()
    with tempfile.TemporaryDirectory(prefix="arena-launcher-") as tmp:
        binary = os.path.join(tmp, "launch")
        try:
            done = subprocess.run(["gcc", "-O2", "-static", "-s", "-o", binary, str(LAUNCHER_SOURCE)],
                                  capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolchainMissing(f"cannot compile the sandbox's launcher with gcc: {exc} (`make install`)") from None
        if done.returncode != 0:
            raise ToolchainMissing(f"cannot compile the sandbox's launcher: {done.stderr.strip()}")
        with open(binary, "rb") as handle:
            data = handle.read()
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}")
        partial.write_bytes(data)
        os.replace(partial, cached)        # whole or absent, whatever runs beside us
    except OSError:
        pass                               # no cache: compiled again next time
    return data
