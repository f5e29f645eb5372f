"""Timing channels through the kernel's caches: a sender bot, a receiver bot, and the decoder's score.

The sender and the receiver are the same bot (``PROBE_BOT``), driven over its stdin by the test
instead of a game. Each *bit* the test draws at random has a group of resources of its own, for
three channels at once:

* **page cache**: ``PAGES`` files; the sender reads them (bit 1) or not (bit 0); the receiver
  times its first read of each against a second one (cold pages take tens of µs, cached ones a few);
* **negative dentries**: ``NAMES`` names that do not exist in a shared folder; the sender looks
  them up (bit 1) or not; the receiver times its lookups against names of its own that nobody
  looked up (cold) and the same looked up again (warm);
* **positive dentries and inodes**: ``STATS`` files; the sender stats them (bit 1) or not; the
  receiver times its first stat against a second one;
* **shared mappings** (no clock): ``MAPS`` files; the sender maps every page of them and keeps the
  mappings while it lives (bit 1) or not; the receiver maps them too and reads its own
  ``/proc/self/smaps``: a proportional set size (Pss) below the resident size (Rss) means another
  process maps the same pages.

The receiver decodes each channel's bit on its own; the score is the share of bits it got right.
The positive controls give the sandboxes one shared root: an overlayfs of one copy of the image
on the host's disk, mounted afresh with its files' pages dropped (every resource starts cold), as
every sandbox had the host's /usr/lib and interpreter before issue 26; and one tmpfs holding the
image, read-only to every sandbox (one runtime per worker, the design ``docs/sandbox.md`` weighs
and rejects). The real runs use the sandbox as it is.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from workers.sandbox import SandboxedProcess, SandboxLimits
from workers.sandbox import process as sandbox_process
from workers.sandbox.image import RuntimeImage
from workers.sandbox.rootfs import MASK_FILE, MASK_FOLDER, MOUNT_POINTS, SlotRoot, mount_tmpfs, unmount
from workers.sandbox.runtimes import PYTHON, Runtime, RuntimeFile, RuntimeFiles, merge

PROBE_DIR = "/srv/probe"
PAGES, NAMES, STATS, MAPS = 2, 8, 3, 2   # resources per bit and channel
FILE_BYTES = 16 * 1024
CHANNELS = ("page_cache", "negative_dentry", "inode_and_dentry", "shared_mapping")

PROBE_BOT = r'''
import ctypes, json, mmap, os, sys, time
ns = time.perf_counter_ns
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
held = []          # the sender's mappings, kept while it lives
def map_pages(path):
    """Map the whole file shared (no descriptor kept: 64 is the limit) and touch every page."""
    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    for offset in range(0, size, mmap.PAGESIZE):
        ctypes.c_char.from_address(address + offset).value
    return address, size
def shared_share(paths):
    """Pss / Rss of this process's mappings of these files (below 1: another process maps them)."""
    maps = [map_pages(p) for p in paths]
    ratios, current = [], None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            parts = line.split()
            if "-" in parts[0] and not parts[0].endswith(":"):
                current = parts[-1] if parts[-1] in paths else None
                rss = None
            elif current and parts[0] == "Rss:":
                rss = int(parts[1])
            elif current and parts[0] == "Pss:" and rss:
                ratios.append(int(parts[1]) / rss)
    for address, size in maps:
        libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))
    return ratios or [1.0]
def read_time(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        start = ns(); os.pread(fd, 65536, 0); first = ns() - start
        start = ns(); os.pread(fd, 65536, 0); second = ns() - start
    finally:
        os.close(fd)
    return first, second
def stat_time(path):
    start = ns()
    try:
        os.stat(path)
    except OSError:
        pass
    return ns() - start
def median(values):
    values = sorted(values)
    return values[len(values) // 2]
def decode(group):
    pages = [read_time(p) for p in group["pages"]]
    page_bit = int(median([a / max(b, 1) for a, b in pages]) < 8.0)   # cold: 16-35x, cached: 2-6x
    names = [stat_time(p) for p in group["names"]]
    cold = [stat_time(p) for p in group["fresh"]]
    warm = [stat_time(p) for p in group["fresh"]]
    name_bit = int(median(names) < (median(cold) + median(warm)) / 2)
    stats = [(stat_time(p), stat_time(p)) for p in group["stats"]]
    stat_bit = int(median([a / max(b, 1) for a, b in stats]) < 1.6)
    map_bit = int(median(shared_share(group["maps"])) < 0.75)
    return [page_bit, name_bit, stat_bit, map_bit]
for line in sys.stdin:
    order = json.loads(line)
    if order["op"] == "send":
        for group in order["groups"]:
            for path in group["pages"]:
                with open(path, "rb") as f:
                    f.read()
            for path in group["names"] + group["stats"]:
                stat_time(path)
            held.extend(map_pages(path) for path in group["maps"])
        print(json.dumps({"sent": len(order["groups"]), "root": os.stat("/").st_dev}), flush=True)
    else:
        print(json.dumps({"bits": [decode(group) for group in order["groups"]], "root": os.stat("/").st_dev}),
              flush=True)
'''


@functools.cache
def _probe_files(count: int) -> RuntimeFiles:
    """The Python runtime plus ``count`` probe files (distinct random contents) in PROBE_DIR."""
    rng = random.Random(26)
    probes = tuple(RuntimeFile(f"{PROBE_DIR}/f{index:05d}", data=rng.randbytes(FILE_BYTES))
                   for index in range(count))
    return merge(PYTHON.collect(), RuntimeFiles(probes))


def probe_runtime(count: int) -> Runtime:
    # No inputs: built in this process, never taken for (or from) the Python runtime's cached copy.
    return replace(PYTHON, collect=functools.partial(_probe_files, count), inputs=lambda: [])


@dataclass
class Groups:
    """The resources of each bit: the sender's orders and the receiver's."""

    bits: list[int]
    send: list[dict]
    receive: list[dict]


def make_groups(bits: list[int], first_file: int, tag: str) -> Groups:
    send, receive = [], []
    per_bit = PAGES + STATS + MAPS
    for index, bit in enumerate(bits):
        base = first_file + index * per_bit
        group = {"pages": [f"{PROBE_DIR}/f{base + k:05d}" for k in range(PAGES)],
                 "stats": [f"{PROBE_DIR}/f{base + PAGES + k:05d}" for k in range(STATS)],
                 "maps": [f"{PROBE_DIR}/f{base + PAGES + STATS + k:05d}" for k in range(MAPS)],
                 "names": [f"{PROBE_DIR}/missing-{tag}-{index}-{k}" for k in range(NAMES)]}
        receive.append({**group, "fresh": [f"{PROBE_DIR}/fresh-{tag}-{index}-{k}" for k in range(NAMES)]})
        send.append(group if bit else {"pages": [], "stats": [], "names": [], "maps": []})
    return Groups(bits, send, receive)


def files_needed(bits: int) -> int:
    return bits * (PAGES + STATS + MAPS)


class Probe:
    """One probe bot in a sandbox of its own."""

    def __init__(self, bot: Path, runtime: Runtime, slot=None):
        self.process = SandboxedProcess(bot, SandboxLimits(memory_mb=128), slot=slot, runtime=runtime)
        os.set_blocking(self.process.stdout_fd, True)
        self.reader = os.fdopen(os.dup(self.process.stdout_fd), "rb")

    def ask(self, order: dict) -> dict:
        self.process.write((json.dumps(order) + "\n").encode())
        line = self.reader.readline()
        if not line:
            raise AssertionError("the probe bot died: " + self._stderr())
        return json.loads(line)

    def _stderr(self) -> str:
        try:
            return os.read(self.process.stderr_fd, 65536).decode(errors="replace")
        except BlockingIOError:
            return ""

    def close(self) -> None:
        self.reader.close()
        self.process.close()


def score(groups: Groups, decoded: list[list[int]]) -> dict[str, int]:
    """How many bits each channel's decoder got right."""
    return {channel: sum(int(bits[i] == sent) for bits, sent in zip(decoded, groups.bits))
            for i, channel in enumerate(CHANNELS)}


# --- the positive control: one shared root, as the host's folders were --------------------------

_libc = ctypes.CDLL(None, use_errno=True)


class SharedRoot:
    """One root for every sandbox: an overlayfs of one copy of the image on the host's disk,
    mounted afresh (its dentries and inodes cold) with the copy's pages dropped from the cache;
    or (``tmpfs``) one tmpfs holding the image, as one runtime per worker would be."""

    def __init__(self, runtime: Runtime, bot_source: str, workdir: Path, tmpfs: bool = False):
        self.lower = workdir / "lower"
        self.empty = workdir / "empty"
        self.path = workdir / "merged"
        self.tmpfs = tmpfs
        for folder in (self.lower, self.empty, self.path):
            folder.mkdir(parents=True)
        if tmpfs:
            mount_tmpfs(self.path, 512 * 1024 * 1024)
            self.lower = self.path
        image = RuntimeImage(runtime.collect())
        try:
            image.write_into(self.lower)
        finally:
            image.close()
        for name in MOUNT_POINTS:
            (self.lower / name).mkdir(exist_ok=True)
        (self.lower / MASK_FOLDER).mkdir(parents=True)
        (self.lower / MASK_FILE).touch()
        shutil.copyfile(bot_source, self.lower / "bot" / "main.py")
        subprocess.run(["chmod", "-R", "a+rX", str(self.lower)], check=True)
        os.sync()

    def mount(self) -> None:
        if self.tmpfs:
            return      # mounted and filled already: a tmpfs's pages cannot be dropped
        for folder, _, names in os.walk(self.lower):
            for name in names:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
        options = f"lowerdir={self.lower}:{self.empty}".encode()
        if _libc.mount(b"overlay", str(self.path).encode(), b"overlay", 1, options) != 0:   # MS_RDONLY
            raise OSError(ctypes.get_errno(), "mount overlay")

    def unmount(self) -> None:
        unmount(self.path)

    def patch(self, monkeypatch) -> None:
        """Make every sandbox of this test use this root (the bot is in it already)."""
        monkeypatch.setattr(SlotRoot, "take", lambda root: (self.path, self.path / "bot"))
        monkeypatch.setattr(SlotRoot, "release", lambda root, clean=True: None)
        monkeypatch.setattr(sandbox_process, "stage_bot", lambda source, target, **options: None)
