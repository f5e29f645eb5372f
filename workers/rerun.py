"""Plays a recorded match again with another bot in one seat, so an author reproduces a fault or
a decision locally.

    python -m workers.play --from-replay FILE --seat S [--until-step K] [--json] BOT

The game starts from the replay's seed and options; BOT (``builtin:NAME`` or a path, run in the
same sandbox and runner as the workers, with the seat's own seed) plays seat S and the other
seats play the actions they were recorded playing, step by step, for as long as that is possible:
the run stops after step K (``--until-step``), when the game ends, when BOT faults, or when the
game has left the recorded path so far that the other seats' recorded actions no longer apply
(other seats to act than recorded, or a recorded action that is not legal now). It then says
where and why it stopped, and at which steps BOT chose otherwise than the recorded seat.
The limits are the recorded match's. The replay must come from the installed engine version (the
game is re-simulated from its seed).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from typing import Any

from engines import get_game
from workers import replay as replays
from workers.match.loop import Match
from workers.match.seats import BuiltinSeat, SandboxSeat
from workers.runner import BUILTIN_PREFIX, Limits, SeatSpec, default_limits
from workers.sandbox import SandboxError

SHOWN_DIFFERENCES = 20


def recorded_steps(replay: dict) -> list[dict]:
    """Per step of a replay, ``{"to_act": [...], "actions": {seat: action dict}}``.

    Raises :class:`workers.replay.ReplayError` when the replay cannot be read, or was recorded by
    another engine version than the installed one.
    """
    replays.check_readable(replay)
    replays.check_engine_version(replay)
    steps = replays.expand(replay)["steps"] if replay["version"] == 2 else replay["steps"]
    return [{"to_act": list(step["to_act"]), "actions": dict(zip(step["to_act"], step["actions"]))}
            for step in steps]


def recorded_limits(replay: dict) -> Limits:
    """The limits the match was played under (the game's defaults for any the replay lacks)."""
    known = {f.name for f in dataclasses.fields(Limits)}
    recorded: dict[str, Any] = {k: v for k, v in (replay.get("limits") or {}).items()
                                if k in known and isinstance(v, (int, float))}
    return dataclasses.replace(default_limits(replay["game"]), **recorded)


class _Rerun:
    """One re-run: the runner's seats, a loop that follows the recording."""

    def __init__(self, replay: dict, seat: int, bot: str, until_step: int | None):
        self.replay = replay
        self.seat = seat
        self.until_step = until_step
        self.recorded = recorded_steps(replay)
        game = get_game(replay["game"])
        specs = [SeatSpec(bot, name=bot) if index == seat else SeatSpec(BUILTIN_PREFIX + "random")
                 for index in range(replay["num_players"])]
        self.match = Match(game, specs, replay["seed"], replay["options"], recorded_limits(replay))
        self.differences: list[dict] = []
        self.same = 0

    def _bot_action(self, observation: dict, legal: list) -> dict | None:
        """What the seat's bot chose, or None when it faulted."""
        match, seat = self.match, self.match.seats[self.seat]
        if seat.fault is not None:
            return None
        if isinstance(seat, BuiltinSeat):
            began = time.perf_counter()
            action = seat.bot(observation, legal, seat.rng)
            seat.times_ms.append((time.perf_counter() - began) * 1000)
            if action not in legal:
                match.fault(seat, "illegal", f"built-in bot answered {action!r}")
                return None
            return action
        chosen: dict = {}
        if isinstance(seat, SandboxSeat) and match._ask_sandbox(seat, observation, legal):
            match._collect({self.seat: seat}, legal={self.seat: legal}, chosen=chosen)
        return chosen[self.seat][0] if self.seat in chosen else None

    def _step(self, number: int) -> str | None:
        """Play step ``number``; why the run stops here (None to go on)."""
        state = self.match.state
        to_act = state.to_act()
        if not to_act:
            return "finished: the game is over"
        if number >= len(self.recorded):
            return f"stopped before step {number}: the recording has only {len(self.recorded)} steps"
        recorded = self.recorded[number]
        if to_act != recorded["to_act"]:
            return (f"stopped before step {number}: seats {to_act} are to act, the recording had seats "
                    f"{recorded['to_act']} (the game left the recorded path)")
        actions = {}
        for index in to_act:
            if index == self.seat:
                continue
            legal = state.legal_actions(index)
            if recorded["actions"][index] not in legal:
                return (f"stopped before step {number}: seat {index}'s recorded action "
                        f"{json.dumps(recorded['actions'][index])} is not legal now (the game left the "
                        "recorded path)")
            actions[index] = recorded["actions"][index]
        if self.seat in to_act:
            action = self._bot_action(state.observation(self.seat), state.legal_actions(self.seat))
            if action is None:
                fault = self.match.seats[self.seat].fault
                assert fault is not None  # no action from the bot: the seat faulted
                return f"stopped at step {number}: the bot faulted ({fault.kind}): {fault.message}"
            if action == recorded["actions"][self.seat]:
                self.same += 1
            else:
                self.differences.append({"step": number, "recorded": recorded["actions"][self.seat],
                                         "chosen": action})
            actions[self.seat] = action
        state.apply(actions)
        self.match.step += 1
        if self.until_step is not None and number >= self.until_step:
            return f"stopped after step {number}: --until-step {self.until_step}"
        return None

    def run(self) -> dict:
        """Play until the run stops; what happened."""
        match = self.match
        try:
            match.start()
            reason = None
            fault = match.seats[self.seat].fault
            if fault is not None:
                reason = f"stopped at the start: the bot faulted ({fault.kind}): {fault.message}"
            number = 0
            while reason is None:
                reason = self._step(number)
                number += 1
        finally:
            match.close()
        state = match.state
        timing = match.timing()[self.seat]
        return {"game": self.replay["game"], "seed": self.replay["seed"], "seat": self.seat,
                "bot": match.specs[self.seat].bot, "recorded_bot": self.replay["seats"][self.seat]["name"],
                "steps_played": match.step, "recorded_steps": len(self.recorded),
                "finished": state.is_terminal(), "reason": reason,
                "result": state.result() if state.is_terminal() else None,
                "same_choices": self.same, "different_choices": len(self.differences),
                "differences": self.differences[:SHOWN_DIFFERENCES],
                "faults": [{"seat": f.seat, "kind": f.kind, "step": f.step, "message": f.message}
                           for f in match.faults],
                "timing": timing, "log": match.seats[self.seat].log()}


def rerun(replay: dict, seat: int, bot: str, until_step: int | None = None) -> dict:
    """Play ``replay`` again with ``bot`` in ``seat`` (see the module's docstring)."""
    return _Rerun(replay, seat, bot, until_step).run()


def summary(data: dict, log_lines: int = 20) -> str:
    """A readable account of a re-run."""
    lines = [f"{data['game']}, seed {data['seed']}: seat {data['seat']} ({data['recorded_bot']} in the recording) "
             f"played by {data['bot']}",
             f"  {data['steps_played']} of {data['recorded_steps']} recorded steps played; {data['reason']}",
             f"  the bot chose as recorded {data['same_choices']} times, otherwise {data['different_choices']} times"]
    for difference in data["differences"]:
        lines.append(f"    step {difference['step']}: recorded {json.dumps(difference['recorded'])}, "
                     f"chose {json.dumps(difference['chosen'])}")
    if data["result"]:
        lines.append(f"  result: scores {data['result']['scores']}, ranks {data['result']['ranks']}")
    t = data["timing"]
    lines.append(f"  {t['decisions']} decisions, mean {t['mean_ms']:.2f} ms, p95 {t['p95_ms']:.2f} ms, "
                 f"max {t['max_ms']:.2f} ms")
    written = data["log"].splitlines()
    if written and log_lines:
        lines.append(f"  stderr of the bot, the last {min(log_lines, len(written))} of {len(written)} lines:")
        lines.extend(f"    | {line}" for line in written[-log_lines:])
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workers.play --from-replay",
        description="Play a recorded match again with BOT in one seat and the others' recorded actions.")
    parser.add_argument("--from-replay", dest="replay", metavar="FILE", required=True)
    parser.add_argument("--seat", type=int, required=True, help="the seat BOT plays (0 is the first)")
    parser.add_argument("--until-step", type=int, default=None, metavar="K", help="stop after step K")
    parser.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    parser.add_argument("--log-lines", type=int, default=20, metavar="N", help="last lines of the bot's stderr")
    parser.add_argument("bot", metavar="BOT", help="builtin:NAME or a path (.py, .zip, folder)")
    return parser


def main(argv: list[str]) -> int:
    """The ``--from-replay`` mode of ``python -m workers.play``; exit 0 when it ran, 2 on bad input."""
    args = _parser().parse_args(argv)
    try:
        replay = replays.load(args.replay)
    except Exception as exc:   # noqa: BLE001 (every way a file can fail to be a replay is reported)
        print(f"error: {args.replay}: {replays.unreadable_reason(exc)}", file=sys.stderr)
        return 2
    problem = None
    try:
        replays.check_readable(replay)
        seats = replay["num_players"]
        if not 0 <= args.seat < seats:
            problem = f"--seat {args.seat}: the match had seats 0 to {seats - 1}"
    except replays.ReplayError as exc:
        problem = f"{args.replay}: {exc}"
    if problem is None and args.until_step is not None and args.until_step < 0:
        problem = f"--until-step {args.until_step}: steps are numbered from 0"
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        data = rerun(replay, args.seat, args.bot, args.until_step)
    except replays.ReplayError as exc:
        print(f"error: {args.replay}: {exc}", file=sys.stderr)
        return 2
    except (ValueError, SandboxError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(data) if args.json else summary(data, args.log_lines))
    return 0
