"""The replay command line (docs/replay-format.md):

    python -m workers.replay verify FILE [FILE ...]
    python -m workers.replay view FILE [--out PAGE.html]
    python -m workers.replay full FILE --out FULL.replay.json.gz
    python -m workers.replay luck FILE [--json]

``verify`` re-simulates each file and prints its problems; it exits 1 on any mismatch, 0 when
every file re-simulates exactly. ``view`` writes one self-contained HTML page and prints its path.
``full`` writes a compact replay as a full one (every view, no engine needed to show it): do it
before installing an arena whose engine changed. ``luck`` prints each seat's score,
its luck (workers.luck, docs/luck.md) and the rest, its play ("seat 2: 31 points; luck +6.5;
play 24.5"); with ``--json`` one object with those lists, the setup's luck and every step's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib

from workers.luck import luck_lines, luck_report
from workers.replay.codec import ReplayError, load, save, step_count, unreadable_reason
from workers.replay.expansion import joint_actions, to_full
from workers.replay.page import load_or_say_why, write_page
from workers.replay.verification import verify


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status."""
    parser = argparse.ArgumentParser(prog="python -m workers.replay", description="Dive Arena replays.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("verify", help="re-simulate replays and check every step and the result")
    check.add_argument("files", nargs="+", metavar="FILE")
    view = commands.add_parser("view", help="write one self-contained HTML page that draws a replay")
    view.add_argument("file", metavar="FILE")
    view.add_argument("--out", metavar="PAGE", help="the page to write (default: FILE with .html)")
    full = commands.add_parser("full", help="write a compact replay as a full (version 1) replay, which "
                                            "stays readable after the engine changes")
    full.add_argument("file", metavar="FILE")
    full.add_argument("--out", metavar="FILE", required=True, help="the full replay to write")
    luck = commands.add_parser("luck", help="each seat's luck and play (score - luck) in a finished replay")
    luck.add_argument("file", metavar="FILE")
    luck.add_argument("--json", action="store_true", help="print one JSON object (per-step luck included)")
    args = parser.parse_args(argv)
    if args.command == "luck":
        return _luck(args.file, args.json)
    if args.command == "view":
        return write_page(args.file, args.out)
    if args.command == "full":
        return _full(args.file, args.out)
    return _verify_files(args.files)


def _verify_files(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        try:
            replay = load(path)
        except (OSError, ValueError, EOFError, zlib.error) as exc:
            print(f"{path}: {unreadable_reason(exc)}")
            failed += 1
            continue
        problems = verify(replay)
        if problems:
            failed += 1
            print(f"{path}: FAILED ({len(problems)} problem(s))")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"{path}: OK ({replay['game']}, seed {replay['seed']}, {step_count(replay)} steps, "
                  f"format version {replay['version']})")
    return 1 if failed else 0


def _full(path: str, out: str) -> int:
    replay = load_or_say_why(path)
    if replay is None:
        return 1
    try:
        converted = to_full(replay)
    except ReplayError as exc:
        print(f"{path}: cannot be converted: {exc}", file=sys.stderr)
        return 1
    try:
        save(converted, out)
    except OSError as exc:
        print(f"{out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(os.path.abspath(out))
    return 0


def _luck(path: str, as_json: bool) -> int:
    replay = load_or_say_why(path)
    if replay is None:
        return 1
    try:
        luck = luck_report(replay["game"], replay["num_players"], replay["seed"], replay["options"],
                           joint_actions(replay))
    except ValueError as exc:  # ReplayError, IllegalAction, a game that is not over
        print(f"{path}: cannot measure luck: {exc}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(luck))
    else:
        print(f"{path}: {luck['game']}, seed {luck['seed']}, {len(luck['steps'])} steps")
        for line in luck_lines(luck):
            print("  " + line)
    return 0
