"""Plays one match of any registered engine between bots; no Django here.

    from workers.runner import SeatSpec, Limits, run_match, default_limits
    outcome = run_match("deep_sea_adventure", [SeatSpec("builtin:random"), SeatSpec("bots/mine.py")], seed=7)
    outcome.to_dict()

``builtin:NAME`` seats are the game's own bots, run in-process (trusted code); every other
seat is a path (.py, .zip or folder) run only in the sandbox (:mod:`workers.sandbox`),
spoken to over the JSON-lines protocol (:mod:`workers.protocol`). All seats in
``to_act()`` are asked together and none sees another's answer.

Timing is CodinGame/Kaggle style: each decision may take ``move_ms``; time beyond that
comes out of the seat's ``bank_ms``; the bank exhausted is a timeout. A sandboxed bot is
charged the CPU time of its whole sandbox (every process and thread of it) from the moment
the request is written to the moment the whole reply line is read, so a loaded machine or a
greedy opponent cannot make it time out; a wall-clock backstop (``wall_backstop_ms``) ends a
bot that waits instead of thinking, and a wall-clock allowance per match (``wall_allowance_ms``)
one that waits a little at every decision. Between its decisions a bot is frozen (cgroup
freezer): neither it nor its children run on the other seats' time. Where the machine has no CPU
clock or freezer for the sandbox (no cgroups), wall time is charged instead. Start-up is wall time.

A faulted seat (init_timeout, timeout, crash, protocol, illegal, memory) is killed with
everything it started, played to the end by the ``random`` built-in seeded from the match
seed, and ranked below every seat that did not fault. The kind comes from what the kernel
saw (the memory cgroup's OOM kills, the pids cgroup's refusals, the CPU clock against the
CPU-time rlimit), never from an exit status, which a bot can choose.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import random
import select
import signal
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engines import get_game, ranks_from_scores
from engines.bots import random_bot
from workers import protocol
from workers.sandbox import BotFilesError, SandboxedProcess, SandboxLimits, get_runtime
from workers.sandbox.image import image_for
from workers.storable import storable_text

REPLAY_FORMAT = "dive-arena-replay"
# Version 2 is compact (actions, timing, faults and hashes; views recomputed on demand); version 1,
# every view of every step, is still read and can still be recorded (``replay_version=1``).
REPLAY_VERSION = 2
REPLAY_VERSIONS = (1, 2)
# Hex digits kept of each step's hash in a compact replay: 16 bits. A re-simulation that diverges
# is caught at the step it diverges but for 1 chance in 65,536, and a divergence stays visible, so
# each later step cuts those odds as much again; the first and the last positions carry the whole
# sha256. Half the bytes of a compact replay are these hashes: more digits would cost the storage
# budget (docs/benchmarks.md) for no divergence that could slip through in practice.
STEP_HASH_CHARS = 4
FAULT_KINDS = ("init_timeout", "timeout", "crash", "protocol", "illegal", "memory")
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


_SANDBOX_DEFAULTS = SandboxLimits()


@dataclass(frozen=True)
class Limits:
    """Time and resource limits of a match (the same for every seat)."""

    move_ms: int = 100
    bank_ms: int = 2000
    init_ms: int = 3000
    # The sandbox's own defaults: one place says how much a bot gets.
    memory_mb: int = _SANDBOX_DEFAULTS.memory_mb
    processes: int = _SANDBOX_DEFAULTS.processes
    cpu_s: int = _SANDBOX_DEFAULTS.cpu_s
    file_size_mb: int = _SANDBOX_DEFAULTS.file_size_mb
    open_files: int = _SANDBOX_DEFAULTS.open_files
    tmp_mb: int = _SANDBOX_DEFAULTS.tmp_mb
    cpus: float = _SANDBOX_DEFAULTS.cpus
    max_line_bytes: int = protocol.MAX_LINE_BYTES
    log_bytes: int = 64 * 1024
    end_grace_ms: int = 100

    def sandbox(self) -> SandboxLimits:
        """The part of the limits the sandbox enforces."""
        return SandboxLimits(memory_mb=self.memory_mb, processes=self.processes, cpu_s=self.cpu_s,
                             file_size_mb=self.file_size_mb, open_files=self.open_files,
                             tmp_mb=self.tmp_mb, cpus=self.cpus)

    def for_bot(self) -> dict:
        """The limits a bot is told about in ``start``."""
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "init_ms": self.init_ms,
                "memory_mb": self.memory_mb}


# Per-game defaults, the one table. Simultaneous Dive gets more per move (every seat
# thinks at once); the others are short turn-based decisions.
DEFAULT_LIMITS: dict[str, dict] = {
    "deep_sea_adventure": {"move_ms": 100, "bank_ms": 2000},
    "divee": {"move_ms": 100, "bank_ms": 2000},
    "dive_diver_die": {"move_ms": 100, "bank_ms": 2000},
    "deep_dive": {"move_ms": 100, "bank_ms": 2000},
    "dive": {"move_ms": 200, "bank_ms": 3000},
}


# A bot charged CPU time could otherwise wait (sleep, block) for ever at no cost.
# Generous, so that a machine loaded several times over (other matches, other workers) does not
# turn a thinking bot's CPU time into a wall-clock timeout.
WALL_BACKSTOP_FACTOR = 3
WALL_BACKSTOP_MIN_EXTRA_MS = 2000

# The share of the CPU-time rlimit the sandbox's clock must show for a SIGXCPU death to count.
CPU_LIMIT_EVIDENCE = 0.75


def wall_backstop_ms(time_left_ms: float) -> float:
    """The wall-clock time a decision may take at most when CPU time is what is charged."""
    return max(WALL_BACKSTOP_FACTOR * time_left_ms, time_left_ms + WALL_BACKSTOP_MIN_EXTRA_MS)


def wall_allowance_ms(bank_ms: float) -> float:
    """The wall-clock time a seat charged CPU time may be waited for, over a whole match, beyond
    ``WALL_BACKSTOP_FACTOR`` x ``move_ms`` at each decision.

    Waiting costs no CPU time, and each decision's backstop alone would let a bot that waits at
    every decision stretch a match without end (a Deep Dive seat may be asked 180 times, each with
    a 6.3 s backstop at the default limits): past the task's time limit, the match would fail and
    go unrated. A thinking bot on a machine loaded up to the backstop's factor uses its CPU bank up
    first: its wall time beyond the factor times the move limit is at most the factor times the
    CPU time it draws from its bank.
    """
    return WALL_BACKSTOP_FACTOR * bank_ms + WALL_BACKSTOP_MIN_EXTRA_MS


def default_limits(game_id: str) -> Limits:
    """The default limits of ``game_id`` (the generic defaults for a game not in the table)."""
    return Limits(**DEFAULT_LIMITS.get(game_id, {}))


@dataclass
class Fault:
    """Why a seat stopped playing itself."""

    seat: int
    kind: str
    step: int
    message: str


@dataclass
class MatchOutcome:
    """Everything a finished match produced."""

    game: str
    seed: int
    options: dict
    scores: list
    ranks: list[int]
    faults: list[Fault]
    timing: list[dict]
    logs: list[str]
    replay: dict
    clean: bool = True                      # no process of any bot was left behind
    uids: list = field(default_factory=list)  # slot uid per sandboxed seat (None for built-ins)

    def to_dict(self) -> dict:
        """The JSON-able outcome (DESIGN.md fields and more)."""
        return {"game": self.game, "seed": self.seed, "options": self.options,
                "scores": self.scores, "ranks": self.ranks,
                "faults": [asdict(fault) for fault in self.faults],
                "timing": self.timing, "logs": self.logs, "replay": self.replay}


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


def state_hash(full_view: dict) -> str:
    """The replay hash of a position: sha256 of the canonical JSON of ``full_view()``."""
    canonical = json.dumps(full_view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def step_hash(observation_texts: list[str], chars: int = STEP_HASH_CHARS) -> str:
    """A compact replay's hash of one step: what the deciding seats were sent, each observation's
    JSON text as the ``act`` message carries it (``protocol.observation_text``), in ``to_act``
    order, one per line; sha256, first ``chars`` hex digits.

    The observations, not the full view: the runner serializes them anyway (the bots are sent
    them), where a ``full_view()`` per step costs many times the engine's own step. Whatever
    diverges and is not visible to a deciding seat yet is caught where it becomes visible, and
    at the latest by the final position's full hash.
    """
    return hashlib.sha256("\n".join(observation_texts).encode("utf-8")).hexdigest()[:chars]


def action_index(legal: list, action) -> int:
    """The index of ``action`` in ``legal`` (the engine's own object, else an equal one)."""
    for index, candidate in enumerate(legal):
        if candidate is action:
            return index
    return legal.index(action)


def ranks_with_faults(engine_ranks: list[int], faulted: set[int]) -> list[int]:
    """Engine ranks with every faulted seat placed below every seat that did not fault."""
    keys = [(seat in faulted, rank) for seat, rank in enumerate(engine_ranks)]
    return ranks_from_scores(keys, higher_is_better=False)


# --- seats ----------------------------------------------------------------------------------

class _Seat:
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
        self.uid = None

    def log(self) -> str:
        return ""


class _BuiltinSeat(_Seat):
    def __init__(self, seat, spec, seed, bot):
        super().__init__(seat, spec, seed)
        self.bot = bot
        self.rng = random.Random(self.seed)


class _SandboxSeat(_Seat):
    def __init__(self, seat, spec, seed, limits: Limits):
        super().__init__(seat, spec, seed)
        self.limits = limits
        runtime = get_runtime(spec.language)
        image_for(runtime)      # made once per process (a second for node's 99 MB): not the bot's start-up
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
        self.stderr += block
        excess = len(self.stderr) - self.limits.log_bytes
        if excess > 0:
            del self.stderr[:excess]
            self.stderr_dropped += excess

    def drain_stderr(self) -> None:
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
        lines = self.stderr.decode("utf-8", "replace").rstrip("\n").splitlines()[-_LOG_LINES_IN_FAULT:]
        return storable_text("\n".join(line[:300] for line in lines))


# --- the match --------------------------------------------------------------------------------

class _Match:
    def __init__(self, game, seats: list[SeatSpec], seed: int, options, limits: Limits,
                 replay_version: int = REPLAY_VERSION):
        self.game = game
        self.replay_version = replay_version
        self.specs = seats
        self.seed = seed
        self.limits = limits
        # What a decision may be waited for, beyond its CPU time, before it draws on the seat's
        # wall-clock allowance for the match (``wall_allowance_ms``).
        self.free_wait_ms = WALL_BACKSTOP_FACTOR * limits.move_ms
        self.state = game.new_state(num_players=len(seats), seed=seed, options=options)
        self.options = self.state.options
        self.seats: list[_Seat] = []
        self.has_sandbox = any(not spec.is_builtin for spec in seats)
        self.poller = select.poll()
        self.fd_owner: dict[int, tuple[_SandboxSeat, str]] = {}
        self.faults: list[Fault] = []
        self.step = 0
        self.steps: list[dict] = []
        # A compact replay's steps, one list (or string) per field: columns compress far better
        # than one object per step, whose hash digits break up the repeated structure.
        self.columns = {"to_act": [], "actions": [], "ms": [], "by": [], "hash": []}

    # --- faults ----------------------------------------------------------------------------
    def fault(self, seat: _Seat, kind: str, message: str) -> None:
        """Fault ``seat``: kill its process (and everything it started) and note why."""
        if seat.fault is not None:
            return
        if isinstance(seat, _SandboxSeat):
            kind, message = self._classify(seat, kind, message)
            self._stop(seat, grace=0.0)
            tail = seat.last_lines()
            if tail:
                message = f"{message}\n--- last lines of the bot's log ---\n{tail}"
        seat.fault = Fault(seat=seat.seat, kind=kind, step=self.step, message=storable_text(message))
        self.faults.append(seat.fault)

    def _classify(self, seat: _SandboxSeat, kind: str, message: str) -> tuple[str, str]:
        """The fault the kernel saw behind a crash, timeout or garbage: the memory cgroup's OOM
        kills, the pids cgroup's refused forks, or the CPU-time rlimit (by the sandbox's CPU clock).

        The exit status is not evidence: bwrap reports a bot killed by a signal as 128 + its
        number, which the bot could equally exit with.
        """
        if kind == "illegal":
            return kind, message
        process = seat.process
        if process.poll() is None and kind == "crash":
            try:
                process.process.wait(timeout=2.0)
            except Exception:
                pass
        hits = process.limit_hits()
        if hits.get("oom_kill"):
            return "memory", (f"memory limit of {self.limits.memory_mb} MiB reached: the kernel killed "
                              f"{hits['oom_kill']} process(es) of the bot")
        if hits.get("pids_max"):
            return "memory", (f"process limit of {self.limits.processes} reached "
                              f"({hits['pids_max']} forks refused); then: {message}")
        # RLIMIT_CPU ends a process with SIGXCPU (SIGKILL at the hard limit). The status alone
        # proves nothing, but with the CPU clock showing the time spent, it is the limit. The
        # rlimit counts scheduler ticks, which on a busy VM include stolen time: it can fire with
        # the clock (precise run time) a little short of the limit, hence the margin.
        used_ns = process.cpu_ns()
        if (process.poll() in (128 + signal.SIGXCPU, 128 + signal.SIGKILL) and used_ns is not None
                and used_ns >= CPU_LIMIT_EVIDENCE * self.limits.cpu_s * 1e9):
            return "timeout", (f"CPU time limit of {self.limits.cpu_s} s reached "
                               f"({used_ns / 1e9:.1f} s of CPU used; {process.exit_description()})")
        if kind == "crash":
            message = f"{message}: {process.exit_description()}"
        return kind, message

    def _stop(self, seat: _SandboxSeat, grace: float) -> None:
        for fd in (seat.process.stdout_fd, seat.process.stderr_fd):
            if fd in self.fd_owner:
                self.poller.unregister(fd)
                del self.fd_owner[fd]
        if not seat.process.closed:
            seat.clean = seat.process.close(grace, drain=seat.drain_stderr)
            used = seat.process.cpu_ns()    # as the slot's clock read it once everything was dead
            seat.sandbox_cpu_ms = None if used is None else round(used / 1e6, 3)

    # --- start-up --------------------------------------------------------------------------
    def start(self) -> None:
        slots: list[_Seat | None] = [None] * len(self.specs)
        for index, spec in enumerate(self.specs):
            if spec.is_builtin:
                name = spec.bot[len(BUILTIN_PREFIX):]
                if name not in self.game.bots:
                    raise ValueError(f"{self.game.id} has no built-in bot {name!r}; "
                                     f"it has {', '.join(sorted(self.game.bots))}")
                slots[index] = _BuiltinSeat(index, spec, self.seed, self.game.bots[name])
            elif not Path(spec.bot).exists():
                raise ValueError(f"bot {spec.bot!r} not found (a path, or builtin:NAME)")
        # Every process is spawned before any is waited for: start-ups overlap.
        try:
            for index, spec in enumerate(self.specs):
                if not spec.is_builtin:
                    try:
                        seat = _SandboxSeat(index, spec, self.seed, self.limits)
                    except BotFilesError as exc:
                        # The bot's own files cannot run: its fault, not the match's.
                        slots[index] = _Seat(index, spec, self.seed)
                        self.fault(slots[index], "crash", f"the bot cannot be started: {exc}")
                        continue
                    slots[index] = seat
                    for fd, which in ((seat.process.stdout_fd, "out"), (seat.process.stderr_fd, "err")):
                        self.poller.register(fd, select.POLLIN)
                        self.fd_owner[fd] = (seat, which)
        finally:
            self.seats = [seat for seat in slots if seat is not None]
        if len(self.seats) != len(self.specs):
            self.close()
            raise RuntimeError("not every seat could be started")
        pending = {}
        for seat in self.seats:
            if isinstance(seat, _SandboxSeat):
                message = protocol.start_message(self.game.id, seat.seat, len(self.specs),
                                                 self.options, self.limits.for_bot(), seat.seed)
                seat.sent_at = seat.spawned
                seat.deadline = seat.spawned + seat.init_ms / 1000
                try:
                    written = seat.process.write(message, timeout=seat.init_ms / 1000)
                except TimeoutError as exc:
                    self.fault(seat, "init_timeout", str(exc))
                    continue
                if written:
                    pending[seat.seat] = seat
                else:
                    self.fault(seat, "crash", "the bot exited during start-up")
        self._collect(pending, startup=True)

    # --- decisions -------------------------------------------------------------------------
    def _collect(self, pending: dict[int, _SandboxSeat], startup: bool = False,
                 legal: dict | None = None, chosen: dict | None = None) -> None:
        """Wait for one line from every pending seat, or its deadline; fault the failures."""
        timeout_kind = "init_timeout" if startup else "timeout"
        while pending:
            # Look at the pipes first, the clocks after: a reply that is already waiting in its
            # pipe when a deadline passes came in time, even if the runner was slow to look.
            now = time.perf_counter()
            wake = min(min(s.deadline, s.cpu_check_at, now + (s.wait_allowed_ms - s.waited_ms) / 1000)
                       if s.charges_cpu and not startup else s.deadline
                       for s in pending.values())
            wait_ms = max(0, math.ceil((wake - now) * 1000))
            events = self.poller.poll(wait_ms)
            if not startup:
                waited_ms = (time.perf_counter() - now) * 1000
                for seat in pending.values():
                    seat.waited_ms += waited_ms
            for fd, _ in events:
                owner = self.fd_owner.get(fd)
                if owner is None:
                    continue
                seat, which = owner
                try:
                    block = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    block = b""
                if which == "err":
                    if block:
                        seat.keep_stderr(block)
                    else:
                        seat.stderr_eof = True
                        self.poller.unregister(fd)
                        del self.fd_owner[fd]
                    continue
                received = time.perf_counter()
                if not block:
                    seat.stdout_eof = True
                    self.poller.unregister(fd)
                    del self.fd_owner[fd]
                    if seat.seat in pending:
                        del pending[seat.seat]
                        self.fault(seat, "crash", "the bot exited" +
                                   (" during start-up" if startup else " before answering"))
                    continue
                seat.buffer.feed(block)
                if seat.seat not in pending:
                    if len(seat.buffer.data) > self.limits.max_line_bytes:
                        # Output nobody asked for, and a lot of it: stop reading (the bot then
                        # blocks on its full pipe) instead of buffering it without end. It is
                        # faulted when it is next asked (see _ask_sandbox).
                        self.poller.unregister(fd)
                        del self.fd_owner[fd]
                    continue
                try:
                    line = seat.buffer.pop_line()
                except protocol.ProtocolError as exc:
                    del pending[seat.seat]
                    self.fault(seat, "protocol", str(exc))
                    continue
                if line is None:
                    continue
                del pending[seat.seat]
                self._received(seat, line, received, startup, legal, chosen)
            now = time.perf_counter()
            for seat in list(pending.values()):
                if seat.deadline <= now:
                    del pending[seat.seat]
                    self.fault(seat, timeout_kind, self._late(seat, startup))
                elif seat.charges_cpu and not startup and seat.waited_ms >= seat.wait_allowed_ms:
                    del pending[seat.seat]
                    self.fault(seat, timeout_kind, self._waited_too_long(seat))
                elif seat.charges_cpu and not startup and seat.cpu_check_at <= now:
                    used = seat.cpu_since_sent_ms()
                    if used > seat.budget_ms:
                        del pending[seat.seat]
                        self.fault(seat, timeout_kind, self._over_cpu(used))
                    else:
                        # The earliest moment the rest of the budget can be used up at full quota.
                        seat.cpu_check_at = now + max(0.001, (seat.budget_ms - used) / 1000 / seat.process.cores)

    def _limits_text(self) -> str:
        return f"move limit of {self.limits.move_ms} ms plus time bank of {self.limits.bank_ms} ms"

    def _over_cpu(self, used_ms: float) -> str:
        return f"used {used_ms:.0f} ms of CPU time, over the {self._limits_text()}"

    def _waited_too_long(self, seat: _SandboxSeat) -> str:
        return (f"no reply after {seat.waited_ms:.0f} ms of wall-clock time (it used "
                f"{seat.cpu_since_sent_ms():.0f} ms of CPU time): its wall-clock allowance for the match "
                f"({WALL_BACKSTOP_FACTOR} x the move limit of {self.limits.move_ms} ms a decision, and "
                f"{wall_allowance_ms(self.limits.bank_ms):.0f} ms beyond that in all) is used up: it waited "
                "instead of answering")

    def _late(self, seat: _SandboxSeat, startup: bool) -> str:
        if startup:
            return f"no reply within the start-up limit of {seat.init_ms} ms"
        if seat.charges_cpu:
            backstop = wall_backstop_ms(seat.budget_ms)
            return (f"no reply within the wall-clock backstop of {backstop:.0f} ms (it used "
                    f"{seat.cpu_since_sent_ms():.0f} ms of CPU time of the {self._limits_text()}: "
                    "it waited instead of answering)")
        return f"no reply within the {self._limits_text()}"

    def _received(self, seat: _SandboxSeat, line: bytes, received: float, startup: bool,
                  legal: dict | None, chosen: dict | None) -> None:
        # Its turn is over: it and its children stop where they stand (the CPU time they use until
        # they have all stopped is this decision's).
        if seat.charges_cpu:
            seat.process.freeze_and_settle()
        else:
            seat.process.freeze()
        elapsed_ms = (received - seat.sent_at) * 1000
        try:
            if startup:
                protocol.parse_ready(line)
                seat.start_ms = elapsed_ms
                return
            action = protocol.parse_reply(line, legal[seat.seat])
        except protocol.ProtocolError as exc:
            self.fault(seat, "protocol", str(exc))
            return
        except protocol.IllegalReply as exc:
            self.fault(seat, "illegal", str(exc))
            return
        except Exception as exc:  # the decoder's own bug: still the reply's fault, never the match's
            self.fault(seat, "protocol", f"the reply could not be read ({type(exc).__name__})")
            return
        cpu_ms = seat.cpu_since_sent_ms() if seat.charges_cpu else None
        charged = cpu_ms if cpu_ms is not None else elapsed_ms
        if cpu_ms is not None and cpu_ms > seat.budget_ms:
            self.fault(seat, "timeout", self._over_cpu(cpu_ms))
            return
        over = charged - self.limits.move_ms
        if over > 0:
            seat.bank_left_ms -= over
            seat.bank_used_ms += over
        if seat.charges_cpu:
            seat.wall_left_ms -= max(0.0, seat.waited_ms - self.free_wait_ms)
        seat.times_ms.append(elapsed_ms)
        if cpu_ms is not None:
            seat.cpu_times_ms.append(cpu_ms)
        chosen[seat.seat] = (action, elapsed_ms, "bot")

    def _ask_sandbox(self, seat: _SandboxSeat, observation: dict, legal_actions: list,
                     observation_json: str | None = None) -> bool:
        """Send one ``act``; False (and the seat faulted) when that is already impossible."""
        if not seat.buffer and seat.process.stdout_fd in self.fd_owner:
            try:
                block = os.read(seat.process.stdout_fd, 65536)
                if block:
                    seat.buffer.feed(block)
                else:
                    seat.stdout_eof = True
            except BlockingIOError:
                pass
            except OSError:
                seat.stdout_eof = True
        if seat.buffer:
            self.fault(seat, "protocol", "the bot wrote output when it was not asked for any")
            return False
        if seat.stdout_eof:
            self.fault(seat, "crash", "the bot exited between decisions")
            return False
        time_left = self.limits.move_ms + max(0.0, seat.bank_left_ms)
        message = protocol.act_message(self.step, observation, legal_actions, time_left, observation_json)
        seat.budget_ms = time_left
        seat.cpu_at_send = (seat.process.cpu_ns() or 0) if seat.charges_cpu else 0   # still frozen
        seat.process.thaw()
        seat.sent_at = time.perf_counter()
        wall_ms = wall_backstop_ms(time_left) if seat.charges_cpu else time_left
        seat.deadline = seat.sent_at + wall_ms / 1000
        seat.cpu_check_at = seat.sent_at + time_left / 1000 / seat.process.cores
        seat.wait_allowed_ms = self.free_wait_ms + max(0.0, seat.wall_left_ms)
        try:
            written = seat.process.write(message, timeout=time_left / 1000)
        except TimeoutError as exc:
            self.fault(seat, "timeout", str(exc))
            return False
        finally:
            # A bot that reads its request slowly is waited for as much as one slow to answer.
            seat.waited_ms = (time.perf_counter() - seat.sent_at) * 1000
        if not written:
            self.fault(seat, "crash", "the bot closed its input")
            return False
        return True

    def play(self) -> None:
        state = self.state
        while True:
            to_act = state.to_act()
            if not to_act:
                return
            legal = {seat: state.legal_actions(seat) for seat in to_act}
            observations = {seat: state.observation(seat) for seat in to_act}
            # Serialized once: for a sandboxed bot's act message and for the compact replay's hash.
            texts = ({seat: protocol.observation_text(observations[seat]) for seat in to_act}
                     if self.replay_version != 1 or self.has_sandbox else {})
            chosen: dict[int, tuple] = {}
            pending: dict[int, _SandboxSeat] = {}
            # Built-in bots decide first: a sandboxed bot's clock must not run while the
            # runner is busy computing someone else's move.
            for index in to_act:
                seat = self.seats[index]
                if seat.fault is None and isinstance(seat, _BuiltinSeat):
                    began = time.perf_counter()
                    try:
                        action = seat.bot(observations[index], legal[index], seat.rng)
                    except Exception as exc:  # our own code, but a seat never stops the match
                        self.fault(seat, "crash", f"built-in bot raised {exc!r}")
                        continue
                    elapsed_ms = (time.perf_counter() - began) * 1000
                    if action not in legal[index]:
                        self.fault(seat, "illegal", f"built-in bot answered {action!r}")
                        continue
                    seat.times_ms.append(elapsed_ms)
                    chosen[index] = (action, elapsed_ms, "bot")
            for index in to_act:
                seat = self.seats[index]
                if seat.fault is None and isinstance(seat, _SandboxSeat):
                    if self._ask_sandbox(seat, observations[index], legal[index], texts.get(index)):
                        pending[index] = seat
            self._collect(pending, legal=legal, chosen=chosen)
            for index in to_act:
                if index not in chosen:
                    seat = self.seats[index]
                    action = random_bot(observations[index], legal[index], seat.fallback_rng)
                    chosen[index] = (action, None, "fallback")
            if self.replay_version == 1:
                state.apply({index: chosen[index][0] for index in to_act})
                self._record_step(to_act, chosen)
            else:
                # Recorded before the apply: the observations are those the seats decided on.
                self._record_compact_step(to_act, chosen, legal, texts)
                state.apply({index: chosen[index][0] for index in to_act})
            self.step += 1

    # --- replay ----------------------------------------------------------------------------
    def _snapshot(self) -> dict:
        state = self.state
        return {"hash": state_hash(state.full_view()), "spectator": state.spectator_view(),
                "observations": [state.observation(seat) for seat in range(state.num_players)]}

    def _record_step(self, to_act: list[int], chosen: dict) -> None:
        record = {"step": self.step, "to_act": list(to_act),
                  "actions": [chosen[i][0] for i in to_act],
                  "ms": [None if chosen[i][1] is None else round(chosen[i][1], 3) for i in to_act],
                  "by": [chosen[i][2] for i in to_act]}
        step_faults = [asdict(f) for f in self.faults if f.step == self.step]
        if step_faults:
            record["faults"] = step_faults
        record.update(self._snapshot())
        self.steps.append(record)

    def _record_compact_step(self, to_act: list[int], chosen: dict, legal: dict, texts: dict) -> None:
        columns = self.columns
        columns["to_act"].append(list(to_act))
        columns["actions"].append([action_index(legal[i], chosen[i][0]) for i in to_act])
        columns["ms"].append([None if chosen[i][1] is None else round(chosen[i][1], 1) for i in to_act])
        by = [chosen[i][2] for i in to_act]
        columns["by"].append(by if "fallback" in by else None)
        columns["hash"].append(step_hash([texts[i] for i in to_act]))

    def compact_steps(self) -> dict:
        """The compact replay's ``steps`` (docs/replay-format.md, version 2)."""
        steps = {key: self.columns[key] for key in ("to_act", "actions", "ms")}
        if any(self.columns["by"]):
            steps["by"] = self.columns["by"]
        steps["hash"] = "".join(self.columns["hash"])
        return steps

    # --- the end ---------------------------------------------------------------------------
    def finish(self) -> tuple[dict, list[int]]:
        result = self.state.result()
        faulted = {seat.seat for seat in self.seats if seat.fault is not None}
        ranks = ranks_with_faults(list(result["ranks"]), faulted)
        end = protocol.end_message({"scores": result["scores"], "ranks": ranks})
        live = [s for s in self.seats if isinstance(s, _SandboxSeat) and s.fault is None]
        for seat in live:
            seat.process.thaw()
            try:
                seat.process.write(end, timeout=0.05)
            except TimeoutError:
                pass
        grace = self.limits.end_grace_ms / 1000
        deadline = time.monotonic() + grace
        for seat in live:
            self._stop(seat, max(0.0, deadline - time.monotonic()))
        return result, ranks

    def close(self) -> None:
        for seat in self.seats:
            if isinstance(seat, _SandboxSeat):
                self._stop(seat, 0.0)

    def timing(self) -> list[dict]:
        rows = []
        for seat in self.seats:
            times = sorted(seat.times_ms)
            row = {"seat": seat.seat, "decisions": len(times),
                   "mean_ms": round(statistics.fmean(times), 3) if times else 0.0,
                   "p50_ms": round(_percentile(times, 50), 3),
                   "p95_ms": round(_percentile(times, 95), 3),
                   "max_ms": round(times[-1], 3) if times else 0.0,
                   "bank_used_ms": round(seat.bank_used_ms, 3),
                   "start_ms": None if seat.start_ms is None else round(seat.start_ms, 3)}
            # CPU time of the whole sandbox per decision (what is charged where "clock" is "cpu").
            cpu = sorted(seat.cpu_times_ms)
            row.update({"clock": "cpu" if seat.charges_cpu else "wall",
                        "cpu_mean_ms": round(statistics.fmean(cpu), 3) if cpu else None,
                        "cpu_p95_ms": round(_percentile(cpu, 95), 3) if cpu else None,
                        "cpu_max_ms": round(cpu[-1], 3) if cpu else None,
                        "cpu_total_ms": round(sum(cpu), 3) if cpu else None,
                        "sandbox_cpu_ms": seat.sandbox_cpu_ms})
            rows.append(row)
        return rows


def _percentile(ordered: list[float], pct: float) -> float:
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, math.ceil(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def run_match(game_id: str, seats: list[SeatSpec], seed: int, options: dict | None = None,
              limits: Limits | None = None, replay_version: int = REPLAY_VERSION) -> MatchOutcome:
    """Play one match to the end and return its outcome; whatever the bots do, it completes.

    The replay is compact (version 2, docs/replay-format.md) unless ``replay_version=1`` asks
    for every view of every step as it was played.

    Raises before anything runs on an unknown game, bad options or seat count, an unknown
    built-in bot or a missing bot path, and SandboxError when bots cannot be sandboxed here.
    """
    game = get_game(game_id)
    seats = [spec if isinstance(spec, SeatSpec) else SeatSpec(str(spec)) for spec in seats]
    limits = limits or default_limits(game_id)
    if replay_version not in REPLAY_VERSIONS:
        raise ValueError(f"replay version {replay_version!r}: the runner records {REPLAY_VERSIONS}")
    match = _Match(game, seats, seed, options, limits, replay_version)
    initial = match._snapshot() if replay_version == 1 else {"hash": state_hash(match.state.full_view())}
    try:
        match.start()
        match.play()
        result, ranks = match.finish()
    finally:
        match.close()
    faults = sorted(match.faults, key=lambda f: (f.step, f.seat))
    replay = {
        "format": REPLAY_FORMAT, "version": replay_version,
        "game": game.id, "engine_version": game.version, "seed": seed,
        "options": match.options, "num_players": len(seats),
        "seats": [{"seat": i, "bot": s.bot if s.is_builtin else Path(s.bot).name,
                   "name": s.name or s.bot, "version": s.version, "language": s.language}
                  for i, s in enumerate(seats)],
        "limits": asdict(limits),
        "initial": initial,
        "steps": match.steps if replay_version == 1 else match.compact_steps(),
        "faults": [asdict(f) for f in faults],
        "result": {"scores": result["scores"], "engine_ranks": result["ranks"], "ranks": ranks},
    }
    if replay_version == 1:
        replay["final"] = {"full_view": match.state.full_view()}
    else:
        replay["final"] = {"hash": state_hash(match.state.full_view())}
        replay["step_hash_chars"] = STEP_HASH_CHARS
    seat_rows = sorted(match.seats, key=lambda s: s.seat)
    return MatchOutcome(
        game=game.id, seed=seed, options=match.options, scores=list(result["scores"]), ranks=ranks,
        faults=faults, timing=match.timing(), logs=[s.log() for s in seat_rows], replay=replay,
        clean=all(getattr(s, "clean", True) for s in seat_rows), uids=[s.uid for s in seat_rows])


__all__ = ["FAULT_KINDS", "REPLAY_VERSIONS", "STEP_HASH_CHARS", "action_index", "step_hash", "Fault", "Limits", "MatchOutcome", "SeatSpec", "default_limits",
           "ranks_with_faults", "run_match", "seat_seed", "state_hash", "SEAT_SEED_ITERATIONS",
           "wall_allowance_ms", "wall_backstop_ms"]
