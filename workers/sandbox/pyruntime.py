"""The files of the Python runtime: the interpreter, the standard library a bot may use, the SDK.

Inside the sandbox the interpreter lives at ``/opt/python`` (its own prefix layout):
``bin/pythonX.Y``, ``lib/libpythonX.Y.so*`` (when the interpreter is built shared),
``lib/pythonX.Y/`` (the pure-Python standard library as compiled modules without their sources:
``os.pyc``, ``json/__init__.pyc``...; the interpreter finds the folder on its default path and
imports them as sourceless modules) and ``lib/pythonX.Y/lib-dynload/`` (the extension modules a
bot may use). A folder, not one zip: the frozen ``zipimport`` reads a zip's whole directory at
every start, 2.3 ms of a 13 ms interpreter start here. Left out: site-packages,
the test suites, Tk, IDLE, curses, readline, ssl and the other modules that need a
terminal, a display, a network or host databases (``EXCLUDED_*`` below). The SDK and the engines
are at ``/arena/lib`` as source with unchecked hash-based ``.pyc`` files beside them (imported
without compiling; tracebacks still show their source lines), the launcher at
``/arena/launch.py``. No Django, no I/O beyond reading the host's interpreter files.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from workers.sandbox.host import ENGINES_DIR, LAUNCHER_FILE, SDK_FILE, python_runtime

SANDBOX_PREFIX = "/opt/python"
TAG = sys.implementation.cache_tag            # cpython-311

# Top-level packages and modules of the standard library a bot gets no use from (or that need
# what the sandbox does not have: a terminal, a display, the network, host databases).
EXCLUDED_STDLIB = frozenset({
    "site-packages", "test", "idlelib", "tkinter", "turtledemo", "turtle.py", "ensurepip", "lib2to3",
    "pydoc_data", "pydoc.py", "distutils", "venv", "curses", "dbm", "__phello__",
    "tabnanny.py", "smtpd.py", "imaplib.py", "nntplib.py", "poplib.py", "smtplib.py", "ftplib.py",
    "telnetlib.py", "xmlrpc", "wsgiref", "http", "urllib", "email", "mailbox.py", "mailcap.py",
    "cgi.py", "cgitb.py", "webbrowser.py", "ssl.py", "getpass.py", "pty.py", "tty.py",
    "asyncio", "xml", "unittest", "doctest.py", "pdb.py", "pickletools.py", "_pydecimal.py", "_pyio.py",
    "tarfile.py", "xdrlib.py", "nturl2path.py", "_osx_support.py", "_aix_support.py", "_bootsubprocess.py",
})
# The codecs of the CJK encodings (they need the _codecs_* extension modules, left out too).
CJK_CODECS = ("big5", "cp932", "cp949", "cp950", "euc_", "gb18030", "gb2312", "gbk", "hz", "iso2022_", "johab",
              "shift_jis")
EXCLUDED_SUBFOLDERS = frozenset({"test", "tests", "idle_test", "__pycache__"})
# Extension modules left out: tests, the terminal, Tk, ssl/crypto (hashlib keeps its own
# md5/sha1/sha2/sha3/blake2), host user databases, audio.
EXCLUDED_EXTENSIONS = frozenset({
    "_testcapi", "_testbuffer", "_testclinic", "_testimportmultiple", "_testinternalcapi",
    "_testmultiphase", "_ctypes_test", "_xxsubinterpreters", "_xxtestfuzz", "xxlimited", "xxlimited_35",
    "_tkinter", "_curses", "_curses_panel", "readline", "_ssl", "_hashlib", "nis", "spwd",
    "_crypt", "ossaudiodev", "syslog", "_dbm", "_gdbm", "audioop", "_asyncio", "pyexpat", "_elementtree",
    "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw", "_multibytecodec",
})


def interpreter() -> tuple[Path, str]:
    """(host prefix of the real interpreter, its executable name)."""
    return python_runtime()


def stdlib_folder(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"


def inputs() -> list[str]:
    """The host paths the Python runtime is made of (for the cache key): the interpreter, its
    shared library, the standard library's folders and files a bot may use, lib-dynload."""
    prefix, name = interpreter()
    root = stdlib_folder(prefix)
    found = [str(prefix / "bin" / name)]
    found += [str(path) for path in (prefix / "lib").glob("libpython*")]
    found += [str(path) for path in sorted(root.iterdir()) if path.name not in EXCLUDED_STDLIB
              and not path.name.startswith("config-")]
    return found


def _renamed(code: types.CodeType, name: str) -> types.CodeType:
    """``code`` and every code object in it, as if compiled from the file ``name``."""
    consts = tuple(_renamed(item, name) if isinstance(item, types.CodeType) else item for item in code.co_consts)
    return code.replace(co_filename=name, co_consts=consts)


def _compiled(source: Path, name: str) -> bytes:
    """The .pyc bytes of ``source`` compiled as the file ``name`` (its path in the sandbox, never the
    host's): the host's own compiled copy renamed when it is current, else compiled now."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    try:
        data = cached.read_bytes()
        stat = source.stat()
        if (data[:4] == importlib.util.MAGIC_NUMBER and int.from_bytes(data[4:8], "little") == 0
                and int.from_bytes(data[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
                and int.from_bytes(data[12:16], "little") == stat.st_size & 0xFFFFFFFF):
            return importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(_renamed(marshal.loads(data[16:]), name))
    except OSError:
        pass
    code = compile(source.read_bytes(), name, "exec", dont_inherit=True)
    # A timestamp .pyc without a source beside it: the sourceless loader takes it as it is.
    return importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)


def stdlib_modules(prefix: Path) -> list[tuple[str, Path]]:
    """(archive name, host source) of every standard-library module a bot may import."""
    root = stdlib_folder(prefix)
    found = []
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root)
        if rel == Path("."):
            dirs[:] = [d for d in dirs if d not in EXCLUDED_STDLIB and not d.startswith(("config-", "lib-"))]
            files = [f for f in files if f not in EXCLUDED_STDLIB]
        else:
            dirs[:] = [d for d in dirs if d not in EXCLUDED_SUBFOLDERS]
        dirs.sort()
        if rel == Path("encodings"):
            files = [f for f in files if not f.startswith(CJK_CODECS)]
        for name in sorted(files):
            if name.endswith(".py"):
                found.append(((rel / name).as_posix().removeprefix("./"), Path(folder) / name))
    return found


def stdlib_files(prefix: Path) -> list[tuple[str, bytes]]:
    """The pure-Python standard library as compiled modules: (sandbox path of each ``.pyc``, its bytes)."""
    stdlib = f"{SANDBOX_PREFIX}/lib/python{sys.version_info.major}.{sys.version_info.minor}"
    return [(f"{stdlib}/{name[:-3]}.pyc", _compiled(source, f"{stdlib}/{name}"))
            for name, source in stdlib_modules(prefix)]


def extension_modules(prefix: Path) -> list[Path]:
    """The standard library's extension modules a bot may use (host paths)."""
    folder = stdlib_folder(prefix) / "lib-dynload"
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir()
                  if path.name.endswith(".so") and path.name.split(".", 1)[0] not in EXCLUDED_EXTENSIONS)


def without_debug_info(paths: list[Path], option: str = "--strip-debug") -> dict[Path, bytes]:
    """The contents of these ELF files without their debug sections (``strip --strip-debug``, from
    binutils; ``--strip-all`` drops the symbol tables too): an interpreter built from source carries
    ~18 MB of them in libpython alone, which every slot's root would copy. Where strip is missing
    the files are taken as they are."""
    strip = shutil.which("strip")
    if strip is None:
        return {path: path.read_bytes() for path in paths}
    with tempfile.TemporaryDirectory(prefix="dive-arena-strip-") as scratch:
        copies = []
        for index, path in enumerate(paths):
            copy = Path(scratch) / f"{index}-{path.name}"
            shutil.copyfile(path, copy)
            copies.append(copy)
        done = subprocess.run([strip, option, *map(str, copies)], capture_output=True, timeout=120)
        if done.returncode != 0:
            return {path: path.read_bytes() for path in paths}
        return {path: copy.read_bytes() for path, copy in zip(paths, copies)}


def unchecked_pyc(source: Path, name: str) -> bytes:
    """A hash-based .pyc that the import system uses without checking it against its source
    (PEP 552): the copies in the sandbox get new modification times, their content is the same."""
    data = source.read_bytes()
    code = compile(data, name, "exec", dont_inherit=True)
    flags = 0b01   # hash-based, check_source = 0
    return (importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little") + importlib.util.source_hash(data)
            + marshal.dumps(code))


def arena_files() -> list[tuple[str, bytes, int]]:
    """(sandbox path, content, mode) of the launcher, the SDK and the engines."""
    files = [("/arena/launch.py", LAUNCHER_FILE.read_bytes(), 0o644)]
    sources = [(SDK_FILE, "/arena/lib/arena_bot.py")]
    for folder, dirs, names in os.walk(ENGINES_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = Path(folder) / name
                sources.append((path, "/arena/lib/engines/" + path.relative_to(ENGINES_DIR).as_posix()))
    for source, target in sources:
        files.append((target, source.read_bytes(), 0o644))
        folder, name = target.rsplit("/", 1)
        files.append((f"{folder}/__pycache__/{name[:-3]}.{TAG}.pyc", unchecked_pyc(source, target), 0o644))
    return files
