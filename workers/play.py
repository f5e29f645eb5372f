"""Plays one local match with the same sandbox and runner as the workers; no database needed.

    python -m workers.play GAME BOT [BOT ...] [--seed N] [--options JSON] [--replay FILE] [--json]
                           [--log-lines N]
    python -m workers.play GAME BOT [BOT ...] --games N [--jobs J] [--rotate] [--seed S] [--json]

With ``--games`` it plays a batch (:mod:`workers.batch`): N matches on seeds S, S+1, ..., in
``--jobs`` parallel processes, summed up per bot (win rate and mean score with intervals, faults
by kind, timing).

BOT is ``builtin:NAME`` (a built-in bot of the game, e.g. ``builtin:random``) or a path to
a bot: one source file (``.py``, ``.js``, ``.cpp``, ``.rs``, ``.go``, ``.java``), a ``.zip`` with one
entry file at its root (``main.py``, ``main.js``, ``main.cpp``, ``main.rs``, ``main.go``,
``Main.java``) or a folder holding one. C++, Rust, Go and Java bots are built first, in the
sandbox, and the build is cached by the sources' hash (``workers.build``). Prints a readable
summary, with the last lines each bot wrote to stderr (or one JSON object with ``--json``, every
log whole) and exits 0 when the match was played to the end, whatever the bots did; 2 on bad
arguments or a bot that does not build (with the compiler's messages; checked before anything is
played), 1 when the replay could not be written after the match.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from engines import InvalidOptions, get_game, list_games
from workers import batch
from workers import replay as replays
from workers import rerun
from workers.build import BuildError, seat_for
from workers.runner import Limits, SeatSpec, default_limits, run_match
from workers.sandbox import SandboxError


DEFAULT_LOG_LINES = 20


def _whole_number(unit: str, minimum: int, too_small: str):
    """An argparse type: a whole number of ``unit``, at least ``minimum`` (else ``too_small``,
    formatted with the value)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of {unit}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(too_small.format(value=value))
        return value
    return parse


_positive_ms = _whole_number("milliseconds", 1, "{value} ms: a time limit must be at least 1 ms")
_lines = _whole_number("lines", 0, "{value}: the number of lines cannot be negative")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workers.play", description="Play one local Dive Arena match.",
        epilog="games: " + ", ".join(game.id for game in list_games()))
    parser.add_argument("game", metavar="GAME")
    parser.add_argument("bots", metavar="BOT", nargs="+",
                        help="builtin:NAME or a path (a source file, a .zip or a folder)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default=None, help="game options as a JSON object")
    parser.add_argument("--replay", metavar="FILE", help="write the compressed replay here")
    parser.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    parser.add_argument("--move-ms", type=_positive_ms, help="override the per-move limit")
    parser.add_argument("--bank-ms", type=int, help="override the time bank (0 for none)")
    parser.add_argument("--init-ms", type=_positive_ms, help="override the start-up limit")
    parser.add_argument("--log-lines", type=_lines, default=DEFAULT_LOG_LINES, metavar="N",
                        help=f"last lines of each bot's stderr to print (default {DEFAULT_LOG_LINES}; 0: none)")
    parser.add_argument("--games", type=_whole_number("games", 1, "{value}: a batch plays at least 1 game"),
                        help="play a batch of N matches (seeds S, S+1, ...) and sum it up per bot")
    parser.add_argument("--jobs", type=_whole_number("processes", 1, "{value}: at least 1 job"),
                        default=None, help="parallel matches of a batch (default: the cores)")
    parser.add_argument("--rotate", action="store_true", help="in a batch, move the bots one seat on each game")
    return parser


def summary(outcome, log_lines: int = DEFAULT_LOG_LINES) -> str:
    """A readable account of an outcome: ranks, scores, faults, timing, and the last ``log_lines``
    lines of each bot's stderr (a bot's author debugs with them; the arena shows them only to
    the owner)."""
    lines = [f"{outcome.game}, seed {outcome.seed}, {replays.step_count(outcome.replay)} steps"]
    seats = outcome.replay["seats"]
    for seat in sorted(range(len(seats)), key=lambda s: outcome.ranks[s]):
        t = outcome.timing[seat]
        lines.append(f"  rank {outcome.ranks[seat]}  seat {seat}  {seats[seat]['name']:<28} "
                     f"score {outcome.scores[seat]!s:>6}   {t['decisions']:>4} decisions, "
                     f"p50 {t['p50_ms']:.2f} ms, p95 {t['p95_ms']:.2f} ms, max {t['max_ms']:.2f} ms"
                     + (f" (CPU p95 {t['cpu_p95_ms']:.2f} ms)" if t.get("cpu_p95_ms") is not None else "")
                     + f", bank used {t['bank_used_ms']:.0f} ms")
    for fault in outcome.faults:
        first, *rest = fault.message.splitlines() or [""]
        lines.append(f"  FAULT seat {fault.seat} at step {fault.step}: {fault.kind}: {first}")
        lines.extend(f"      {line}" for line in rest)
    if not outcome.faults:
        lines.append("  no faults")
    for seat, log in enumerate(outcome.logs if log_lines else []):
        written = log.splitlines()
        if not written:
            continue
        shown = written[-log_lines:]
        part = "all" if len(shown) == len(written) else f"the last {len(shown)}"
        lines.append(f"  stderr of seat {seat} ({seats[seat]['name']}), {part} of {len(written)} "
                     f"line{'s' if len(written) != 1 else ''}:")
        lines.extend(f"    | {line}" for line in shown)
    return "\n".join(lines)


def _replay_path_problem(path: str) -> str | None:
    """Why the replay could not be written to ``path`` (checked before the match is played)."""
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return f"--replay {path}: is a directory, give a file name"
    if not os.path.isdir(parent):
        return f"--replay {path}: the directory {parent} does not exist"
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return f"--replay {path}: not writable"
    return None


def _emit(text: str) -> None:
    """Print ``text``; a reader that went away (``| head``) is not an error."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _batch(args, options, limits) -> int:
    """Play ``--games`` matches and print their summary (exit codes as for one match)."""
    jobs = args.jobs or batch.default_jobs()
    started = [0.0]
    try:
        data = batch.run_batch(args.game, tuple(args.bots), args.games, args.seed, args.rotate, options,
                               limits, jobs, on_game=lambda done, total: batch.progress(done, total, started))
    except (ValueError, InvalidOptions, SandboxError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _emit(json.dumps(data) if args.json else batch.summary(data))
    return 0


def _seat(bot: str, quiet: bool = False) -> tuple[SeatSpec | None, str | None]:
    """The seat of ``bot`` (``workers.build.seat_for``: a compiled bot is built in the sandbox once,
    then cached by its sources' hash); (None, why) when it cannot play: its files, or a build that
    failed (with the compiler's messages)."""
    progress = None if quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    try:
        return seat_for(bot, progress=progress), None
    except BuildError as exc:
        return None, str(exc)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(arg == "--from-replay" or arg.startswith("--from-replay=") for arg in argv):
        return rerun.main(argv)
    args = _parser().parse_args(argv)
    try:
        get_game(args.game)
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    options = None
    if args.options:
        try:
            options = json.loads(args.options)
        except ValueError as exc:
            print(f"error: --options is not valid JSON ({exc}): {args.options!r}", file=sys.stderr)
            return 2
        if not isinstance(options, dict):
            print(f'error: --options must be a JSON object such as \'{{"name": value}}\', '
                  f"not {args.options!r}", file=sys.stderr)
            return 2
    if args.bank_ms is not None and args.bank_ms < 0:
        print(f"error: --bank-ms {args.bank_ms}: the time bank cannot be negative", file=sys.stderr)
        return 2
    if args.replay and (problem := _replay_path_problem(args.replay)):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    overrides = {k: v for k, v in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms),
                                   ("init_ms", args.init_ms)) if v is not None}
    limits = Limits(**{**default_limits(args.game).__dict__, **overrides})
    if args.games is None and (args.jobs is not None or args.rotate):
        print("error: --jobs and --rotate belong to a batch: give --games N", file=sys.stderr)
        return 2
    if args.games is not None and args.replay:
        print("error: --replay records one match: a batch (--games) writes none", file=sys.stderr)
        return 2
    seats = []
    for bot in args.bots:       # compiled bots are built (or found in the cache) before anything plays
        seat, problem = _seat(bot, quiet=args.json)
        if problem or seat is None:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        seats.append(seat)
    if args.games is not None:
        return _batch(args, options, limits)
    try:
        outcome = run_match(args.game, seats, seed=args.seed, options=options, limits=limits)
    except (ValueError, InvalidOptions, SandboxError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.replay:
        try:
            replays.save(outcome.replay, args.replay)
        except OSError as exc:
            print(f"error: the match was played but its replay could not be written to "
                  f"{args.replay}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if args.json:
        data = outcome.to_dict()
        if args.replay:
            data["replay"] = {"file": args.replay}
        _emit(json.dumps(data))
    else:
        _emit(summary(outcome, args.log_lines) + (f"\n  replay written to {args.replay}" if args.replay else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
