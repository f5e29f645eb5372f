"""The match loop: start the seats, ask the seats to act at each step (all of ``to_act()`` together,
none seeing another's answer), collect their replies against their clocks, fault the failures and
let the fallback play them, record each step, and tell the bots the end.

Between its decisions a sandboxed bot is frozen (cgroup freezer): neither it nor its children run
on the other seats' time.
"""

from __future__ import annotations

import logging
import math
import os
import select
import time
from dataclasses import replace
from pathlib import Path

from engines.bots import random_bot
from workers import protocol
from workers.match.clock import (WALL_BACKSTOP_FACTOR, Limits, late_text, over_cpu_text, timing_row,
                                 waited_too_long_text, wall_backstop_ms)
from workers.match.faults import classify, ranks_with_faults
from workers.match.seats import BUILTIN_PREFIX, BuiltinSeat, Fault, SandboxSeat, Seat, SeatSpec
from workers.replay.codec import CompactRecorder
from workers.sandbox import BotFilesError
from workers.storable import storable_text

log = logging.getLogger(__name__)


class Match:
    """One match being played: its seats, the engine's state, and what is recorded of it."""

    def __init__(self, game, seats: list[SeatSpec], seed: int, options, limits: Limits, on_step=None):
        self.game = game
        # Told after every applied step: ``on_step(step, state)`` (live pages). Its errors never
        # stop the match: they are logged and the watcher is dropped.
        self.on_step = on_step
        self.specs = seats
        self.seed = seed
        self.limits = limits
        # What a decision may be waited for, beyond its CPU time, before it draws on the seat's
        # wall-clock allowance for the match (``wall_allowance_ms``).
        self.free_wait_ms = WALL_BACKSTOP_FACTOR * limits.move_ms
        self.state = game.new_state(num_players=len(seats), seed=seed, options=options)
        self.options = self.state.options
        self.seats: list[Seat] = []
        self.has_sandbox = any(not spec.is_builtin for spec in seats)
        self.poller = select.poll()
        self.fd_owner: dict[int, tuple[SandboxSeat, str]] = {}
        self.faults: list[Fault] = []
        self.step = 0
        self.recorder = CompactRecorder()

    # --- faults ----------------------------------------------------------------------------
    def fault(self, seat: Seat, kind: str, message: str) -> None:
        """Fault ``seat``: kill its process (and everything it started) and note why."""
        if seat.fault is not None:
            return
        if isinstance(seat, SandboxSeat):
            kind, message = classify(seat, kind, message, self.limits)
            self._stop(seat, grace=0.0)
            tail = seat.last_lines()
            if tail:
                message = f"{message}\n--- last lines of the bot's log ---\n{tail}"
        seat.fault = Fault(seat=seat.seat, kind=kind, step=self.step, message=storable_text(message))
        self.faults.append(seat.fault)

    def _stop(self, seat: SandboxSeat, grace: float) -> None:
        """Stop a sandboxed seat's process (after ``grace`` seconds) and its pipes' polling."""
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
        """Start every seat (sandboxed processes spawned together) and wait for their ``ready``."""
        slots: list[Seat | None] = [None] * len(self.specs)
        for index, spec in enumerate(self.specs):
            if spec.is_builtin:
                name = spec.bot[len(BUILTIN_PREFIX):]
                if name not in self.game.bots:
                    raise ValueError(f"{self.game.id} has no built-in bot {name!r}; "
                                     f"it has {', '.join(sorted(self.game.bots))}")
                slots[index] = BuiltinSeat(index, spec, self.seed, self.game.bots[name])
            elif not Path(spec.bot).exists():
                raise ValueError(f"bot {spec.bot!r} not found (a path, or builtin:NAME)")
        # Every process is spawned before any is waited for: start-ups overlap.
        try:
            for index, spec in enumerate(self.specs):
                if not spec.is_builtin:
                    try:
                        sandboxed = SandboxSeat(index, spec, self.seed, self.limits)
                    except BotFilesError as exc:
                        # The bot's own files cannot run: its fault, not the match's.
                        unstarted = slots[index] = Seat(index, spec, self.seed)
                        self.fault(unstarted, "crash", f"the bot cannot be started: {exc}")
                        continue
                    slots[index] = sandboxed
                    for fd, which in ((sandboxed.process.stdout_fd, "out"), (sandboxed.process.stderr_fd, "err")):
                        self.poller.register(fd, select.POLLIN)
                        self.fd_owner[fd] = (sandboxed, which)
        finally:
            self.seats = [seat for seat in slots if seat is not None]
        if len(self.seats) != len(self.specs):
            self.close()
            raise RuntimeError("not every seat could be started")
        pending = {}
        for seat in self.seats:
            if isinstance(seat, SandboxSeat):
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
    def _collect(self, pending: dict[int, SandboxSeat], startup: bool = False,
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
                    self.fault(seat, timeout_kind, late_text(
                        replace(self.limits, init_ms=seat.init_ms), startup=startup, charges_cpu=seat.charges_cpu, budget_ms=seat.budget_ms,
                        cpu_ms=seat.cpu_since_sent_ms() if seat.charges_cpu else 0.0))
                elif seat.charges_cpu and not startup and seat.waited_ms >= seat.wait_allowed_ms:
                    del pending[seat.seat]
                    self.fault(seat, timeout_kind, waited_too_long_text(
                        self.limits, seat.waited_ms, seat.cpu_since_sent_ms()))
                elif seat.charges_cpu and not startup and seat.cpu_check_at <= now:
                    used = seat.cpu_since_sent_ms()
                    if used > seat.budget_ms:
                        del pending[seat.seat]
                        self.fault(seat, timeout_kind, over_cpu_text(self.limits, used))
                    else:
                        # The earliest moment the rest of the budget can be used up at full quota.
                        seat.cpu_check_at = now + max(0.001, (seat.budget_ms - used) / 1000 / seat.process.cores)

    def _received(self, seat: SandboxSeat, line: bytes, received: float, startup: bool,
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
            assert legal is not None and chosen is not None  # a decision's collection passes both
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
            self.fault(seat, "timeout", over_cpu_text(self.limits, cpu_ms))
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

    def _ask_sandbox(self, seat: SandboxSeat, observation: dict, legal_actions: list,
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
        """Play the match to the end: every step, the seats to act asked together."""
        state = self.state
        while True:
            to_act = state.to_act()
            if not to_act:
                return
            legal = {seat: state.legal_actions(seat) for seat in to_act}
            observations = {seat: state.observation(seat) for seat in to_act}
            # Serialized once: for a sandboxed bot's act message and for the compact replay's hash.
            texts = {seat: protocol.observation_text(observations[seat]) for seat in to_act}
            chosen: dict[int, tuple] = {}
            pending: dict[int, SandboxSeat] = {}
            # Built-in bots decide first: a sandboxed bot's clock must not run while the
            # runner is busy computing someone else's move.
            for index in to_act:
                seat = self.seats[index]
                if seat.fault is None and isinstance(seat, BuiltinSeat):
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
                if seat.fault is None and isinstance(seat, SandboxSeat):
                    if self._ask_sandbox(seat, observations[index], legal[index], texts.get(index)):
                        pending[index] = seat
            self._collect(pending, legal=legal, chosen=chosen)
            for index in to_act:
                if index not in chosen:
                    seat = self.seats[index]
                    action = random_bot(observations[index], legal[index], seat.fallback_rng)
                    chosen[index] = (action, None, "fallback")
            # Recorded before the apply: the observations are those the seats decided on.
            self.recorder.record(to_act, chosen, legal, texts)
            state.apply({index: chosen[index][0] for index in to_act})
            self.step += 1
            if self.on_step is not None:
                self._tell_watcher()

    def _tell_watcher(self) -> None:
        try:
            self.on_step(self.step, self.state)
        except Exception:  # a live page is no reason to stop a match
            log.exception("the step watcher failed: no more live steps for this match")
            self.on_step = None

    # --- the end ---------------------------------------------------------------------------
    def finish(self) -> tuple[dict, list[int]]:
        """The engine's result and the ranks with faults applied; the live bots told and stopped."""
        result = self.state.result()
        faulted = {seat.seat for seat in self.seats if seat.fault is not None}
        ranks = ranks_with_faults(list(result["ranks"]), faulted)
        end = protocol.end_message({"scores": result["scores"], "ranks": ranks})
        live = [s for s in self.seats if isinstance(s, SandboxSeat) and s.fault is None]
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
        """Stop every sandboxed seat still running (whatever happened)."""
        for seat in self.seats:
            if isinstance(seat, SandboxSeat):
                self._stop(seat, 0.0)

    def timing(self) -> list[dict]:
        """The timing row of every seat (``clock.timing_row``)."""
        return [timing_row(seat) for seat in self.seats]
