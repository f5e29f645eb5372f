"""Plays one local match with the same sandbox and runner as the workers; no database needed.

    python -m workers.play GAME BOT [BOT ...] [--seed N] [--options JSON] [--replay FILE] [--json]

BOT is ``builtin:NAME`` (a built-in bot of the game, e.g. ``builtin:random``) or a path to
a bot: a ``.py`` file, a ``.zip`` with ``main.py`` at its root, or a folder holding
``main.py``. Prints a readable summary (or one JSON object with ``--json``) and exits 0
when the match was played to the end, whatever the bots did; 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from engines import InvalidOptions, get_game, list_games
from workers import replay as replays
from workers.runner import Limits, SeatSpec, default_limits, run_match
from workers.sandbox import SandboxError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workers.play", description="Play one local Dive Arena match.",
        epilog="games: " + ", ".join(game.id for game in list_games()))
    parser.add_argument("game", metavar="GAME")
    parser.add_argument("bots", metavar="BOT", nargs="+", help="builtin:NAME or a path (.py, .zip, folder)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default=None, help="game options as a JSON object")
    parser.add_argument("--replay", metavar="FILE", help="write the compressed replay here")
    parser.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    parser.add_argument("--move-ms", type=int, help="override the per-move limit")
    parser.add_argument("--bank-ms", type=int, help="override the time bank")
    parser.add_argument("--init-ms", type=int, help="override the start-up limit")
    return parser


def summary(outcome) -> str:
    """A readable account of an outcome: ranks, scores, faults, timing."""
    lines = [f"{outcome.game}, seed {outcome.seed}, {len(outcome.replay['steps'])} steps"]
    seats = outcome.replay["seats"]
    for seat in sorted(range(len(seats)), key=lambda s: outcome.ranks[s]):
        t = outcome.timing[seat]
        lines.append(f"  rank {outcome.ranks[seat]}  seat {seat}  {seats[seat]['name']:<28} "
                     f"score {outcome.scores[seat]!s:>6}   {t['decisions']:>4} decisions, "
                     f"p50 {t['p50_ms']:.2f} ms, p95 {t['p95_ms']:.2f} ms, max {t['max_ms']:.2f} ms, "
                     f"bank used {t['bank_used_ms']:.0f} ms")
    for fault in outcome.faults:
        first, *rest = fault.message.splitlines() or [""]
        lines.append(f"  FAULT seat {fault.seat} at step {fault.step}: {fault.kind}: {first}")
        lines.extend(f"      {line}" for line in rest)
    if not outcome.faults:
        lines.append("  no faults")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        get_game(args.game)
        options = json.loads(args.options) if args.options else None
        if options is not None and not isinstance(options, dict):
            raise ValueError("--options must be a JSON object")
    except (KeyError, ValueError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    overrides = {k: v for k, v in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms),
                                   ("init_ms", args.init_ms)) if v is not None}
    limits = Limits(**{**default_limits(args.game).__dict__, **overrides})
    seats = [SeatSpec(bot, name=bot) for bot in args.bots]
    try:
        outcome = run_match(args.game, seats, seed=args.seed, options=options, limits=limits)
    except (ValueError, InvalidOptions, SandboxError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.replay:
        replays.save(outcome.replay, args.replay)
    if args.json:
        data = outcome.to_dict()
        if args.replay:
            data["replay"] = {"file": args.replay}
        print(json.dumps(data))
    else:
        print(summary(outcome))
        if args.replay:
            print(f"  replay written to {args.replay}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
