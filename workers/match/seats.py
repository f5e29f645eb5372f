"""The seats of a match: who plays each (``SeatSpec``), the seeds a seat is given, and the seat
objects the match loop drives: a built-in bot in-process, or a bot in its sandbox (its process, its
pipes, its log, its clock and bank).
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import time
from dataclasses import dataclass

from workers import protocol
from workers.match.clock import Limits, wall_allowance_ms
from workers.sandbox import SandboxedProcess, get_runtime
from workers.sandbox.image import image_for
from workers.storable import storable_text

BUILTIN_PREFIX = "builtin:"
_LOG_LINES_IN_FAULT = 15


@dataclass(frozen=True)
class SeatSpec:
    """Who plays a seat: ``builtin:NAME`` or a path to a bot, with a display name and version."""

    bot: str
    name: str = ""
    version: str = ""
    # The language of the bot at ``bot`` (workers.sandbox.RUNTIMES): for a compiled one, ``bot`` is
    # its built artifact (workers.build), never its sources.
    language: str = "python"

    @property
    def is_builtin(self) -> bool:
        """True for the game's own bots, which run in-process."""
        return self.bot.startswith(BUILTIN_PREFIX)


# Work factor of the per-match key below. A bot receives its seat seed and may run native code:
# with a cheap hash of (match seed, seat) it could search the match seeds (< 2**31 on the
# platform) for its own seat seed, learn the match seed and simulate every hidden card, chip
# and future die with the read-only engines. One slow derivation per match (~3 ms) makes that
# search cost years instead of minutes; seat seeds are then cheap hashes of the key.
SEAT_SEED_ITERATIONS = 10_000


@functools.lru_cache(maxsize=64)
def _match_key(seed: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", f"dive-arena:{seed}".encode(), b"dive-arena seat seeds",
                               SEAT_SEED_ITERATIONS)


def seat_seed(seed: int, seat: int) -> int:
    """The per-seat seed handed to a bot (and to a built-in bot's RNG): derived from the match seed.

    The same match seed always gives the same seat seeds (local runs replay exactly), but a
    seat seed does not cheaply give away the match seed (see ``SEAT_SEED_ITERATIONS``).
    """
    digest = hashlib.sha256(_match_key(seed) + f":{seat}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def fallback_rng(seed: int, seat: int) -> random.Random:
    """The RNG of the ``random`` fallback that plays a faulted seat."""
    return random.Random(seat_seed(seed, seat) ^ 0x5EED_FA11)


@dataclass
class Fault:
    """Why a seat stopped playing itself (``kind`` one of ``FAULT_KINDS``)."""

    seat: int
    kind: str
    step: int
    message: str


class Seat:
    """One seat of a match: its seeds, its fault if any, and the times of its decisions."""

    def __init__(self, seat: int, spec: SeatSpec, seed: int):
        self.seat = seat
        self.spec = spec
        self.seed = seat_seed(seed, seat)
        self.fallback_rng = fallback_rng(seed, seat)
        self.fault: Fault | None = None
        self.times_ms: list[float] = []
        self.cpu_times_ms: list[float] = []
        self.sandbox_cpu_ms: float | None = None
        self.charges_cpu = False
        self.bank_used_ms = 0.0
        self.start_ms: float | None = None
        self.uid: int | None = None

    def log(self) -> str:
        """What the seat's bot wrote to its log (stderr); a built-in bot writes none."""
        return ""


class BuiltinSeat(Seat):
    """A seat played in-process by one of the game's own bots (trusted code)."""

    def __init__(self, seat, spec, seed, bot):
        super().__init__(seat, spec, seed)
        self.bot = bot
        self.rng = random.Random(self.seed)


class SandboxSeat(Seat):
    """A seat played by a bot in its sandboxed process, over the JSON-lines protocol."""

    def __init__(self, seat, spec, seed, limits: Limits):
        super().__init__(seat, spec, seed)
        self.limits = limits
        runtime = get_runtime(spec.language)
        image_for(runtime)      # made once per process (a second or two for node's 86 MB, stripped): not the bot's start-up
        started = time.perf_counter()
        self.process = SandboxedProcess(spec.bot, limits.sandbox(), runtime=runtime)
        # A runtime that starts slowly (the JVM) gets that much more start-up time.
        self.init_ms = limits.init_ms + runtime.start_extra_ms
        self.spawned = started
        self.uid = self.process.slot.uid
        self.buffer = protocol.LineBuffer(limits.max_line_bytes)
        self.stderr = bytearray()
        self.stderr_dropped = 0
        self.stdout_eof = False
        self.stderr_eof = False
        self.bank_left_ms = float(limits.bank_ms)
        self.sent_at = 0.0
        self.deadline = 0.0
        # Charged CPU time needs both a clock and the freezer (or an idle bot's children would
        # burn the cores between its decisions); without them, wall time is charged.
        self.charges_cpu = self.process.has_cpu_clock and self.process.slot.cgroups.freezer_version() is not None
        self.cpu_at_send = 0
        self.budget_ms = 0.0
        self.cpu_check_at = 0.0
        # Wall-clock time the runner spent waiting on this seat's current decision (writing the
        # request, polling for the reply), never the time it spent on other seats (stopping a
        # faulted one, say); what the decision may take of it; and the match's allowance left.
        self.waited_ms = 0.0
        self.wait_allowed_ms = 0.0
        self.wall_left_ms = wall_allowance_ms(limits.bank_ms)
        self.clean = True

    def cpu_since_sent_ms(self) -> float:
        """CPU time the sandbox used since the current request was sent."""
        now = self.process.cpu_ns()
        return 0.0 if now is None else max(0, now - self.cpu_at_send) / 1e6

    def keep_stderr(self, block: bytes) -> None:
        """Keep a block of the bot's stderr, the last ``log_bytes`` of it at most."""
        self.stderr += block
        excess = len(self.stderr) - self.limits.log_bytes
        if excess > 0:
            del self.stderr[:excess]
            self.stderr_dropped += excess

    def drain_stderr(self) -> None:
        """Read what is waiting on the bot's stderr without blocking."""
        while not self.stderr_eof:
            try:
                block = os.read(self.process.stderr_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                block = b""
            if not block:
                self.stderr_eof = True
                return
            self.keep_stderr(block)

    def log(self) -> str:
        text = storable_text(self.stderr.decode("utf-8", "replace"))
        if self.stderr_dropped:
            text = f"[... {self.stderr_dropped} earlier bytes of log dropped ...]\n" + text
        return text

    def last_lines(self) -> str:
        """The last lines of the bot's log, for a fault's message."""
        lines = self.stderr.decode("utf-8", "replace").rstrip("\n").splitlines()[-_LOG_LINES_IN_FAULT:]
        return storable_text("\n".join(line[:300] for line in lines))
