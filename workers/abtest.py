"""A/B test of two bots on paired seeds, decided by a sequential probability ratio test.

    python -m workers.abtest GAME BOT_A BOT_B [--players N] [--opponents BOT,...] [--elo0 E0] [--elo1 E1]
                             [--alpha A] [--beta B] [--max-games N] [--jobs J] [--seed S] [--luck] [--json]

Each pair of games shares one seed, with A and B in swapped seats; with more seats the opponents
fill the other seats, the same in both games of a pair, and the seats A and B take rotate over
pairs (every pair of seat positions in turn, the opponents' order shifted each round of them).
Games run in ``--jobs`` parallel processes, each with the same sandbox and runner as the
workers. Results are counted pair by pair in seed order, so ``--seed`` reproduces the verdict
whatever the order games finish in. Statistics: :mod:`workers.sprt`, docs/abtests.md.
A live progress line goes to stderr; the result to stdout (one JSON object with ``--json``).
Exits 0 when the test ran (whatever the verdict), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import itertools
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from engines import InvalidOptions, get_game, list_games
from workers import sprt
from workers.build import BuildError, seat_for
from workers.luck import luck_of_game
from workers.play import _positive_ms, _whole_number
from workers.replay import joint_actions
from workers.runner import BUILTIN_PREFIX, default_limits, run_match
from workers.sandbox import SandboxError

DEFAULT_MAX_GAMES = 10_000
DEFAULT_OPPONENT = "builtin:heuristic"
SEED_LIMIT = 2**31


@dataclass(frozen=True)
class GameSpec:
    """One game of a test: which pair, which of its two games, the seed and who sits where."""

    pair: int
    index: int
    seed: int
    bots: tuple[str, ...]
    a_seat: int
    b_seat: int


@dataclass
class Config:
    """What a test plays and how it decides."""

    game: str
    a: str
    b: str
    players: int = 2
    opponents: tuple[str, ...] = ()
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = DEFAULT_MAX_GAMES
    seed: int = 0
    options: dict | None = None
    limits: dict = field(default_factory=dict)      # overrides of the game's default limits
    luck: bool = False                              # compare score - luck instead of ranks


def pair_seed(master: int, pair: int) -> int:
    """The seed of pair ``pair`` of the test seeded ``master`` (a hash, so pairs do not overlap)."""
    digest = hashlib.sha256(f"abtest:{master}:{pair}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_LIMIT


def seat_plan(pair: int, players: int, opponents: tuple) -> tuple[int, int, list]:
    """The seats of A and B in the first game of ``pair`` and the opponents of the other seats.

    The seat pairs (p, q), p < q, come in turn; each time they have all come, the opponents'
    order shifts by one (a short list repeats to fill the seats), so every opponent meets every
    seat over enough pairs.
    """
    combos = list(itertools.combinations(range(players), 2))
    a_seat, b_seat = combos[pair % len(combos)]
    if not opponents:
        return a_seat, b_seat, []
    shift = pair // len(combos)
    return a_seat, b_seat, [opponents[(shift + i) % len(opponents)] for i in range(players - 2)]


def pair_orders(pair: int, players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seat orders of the two games of ``pair`` over the table (A, B, opponent 1, ...): in
    ``orders[g][seat]``, 0 is A, 1 is B and 2.. the opponents, as :func:`seat_plan` places them
    (the platform seats its versions by these; A and B swapped in the second game)."""
    a_seat, b_seat, others = seat_plan(pair, players, tuple(range(2, players)))
    games = []
    for sa, sb in ((a_seat, b_seat), (b_seat, a_seat)):
        order = [-1] * players
        order[sa], order[sb] = 0, 1
        rest = iter(others)
        games.append(tuple(seat if seat >= 0 else next(rest) for seat in order))
    return games[0], games[1]


def pair_games(config: Config, pair: int) -> tuple[GameSpec, GameSpec]:
    """The two games of ``pair``: one seed, A and B swapped, the opponents where they were."""
    seed = pair_seed(config.seed, pair)
    a_seat, b_seat, others = seat_plan(pair, config.players, config.opponents)
    games = []
    for index, (sa, sb) in enumerate(((a_seat, b_seat), (b_seat, a_seat))):
        bots = [""] * config.players
        bots[sa], bots[sb] = config.a, config.b
        rest = iter(others)
        for seat in range(config.players):
            if not bots[seat]:
                bots[seat] = next(rest)
        games.append(GameSpec(pair, index, seed, tuple(bots), sa, sb))
    return games[0], games[1]


def play_sandboxed(config: Config, spec: GameSpec) -> dict:
    """Play one game with the workers' runner; the plain facts a test counts."""
    seats = [seat_for(bot) for bot in spec.bots]      # a compiled bot: its cached build
    limits = dataclasses.replace(default_limits(config.game), **config.limits)
    outcome = run_match(config.game, seats, seed=spec.seed, options=config.options, limits=limits)
    played = {"scores": outcome.scores, "ranks": outcome.ranks,
              "faults": [{"seat": f.seat, "kind": f.kind} for f in outcome.faults],
              "decision_ms": [t.get("mean_ms", 0.0) for t in outcome.timing]}
    if config.luck:
        played["luck"] = luck_of_game(config.game, num_players=len(spec.bots), seed=spec.seed,
                                      options=config.options, actions=joint_actions(outcome.replay))
    return played


def values_of(spec: GameSpec, outcome: dict) -> list | None:
    """Each seat's score - luck when the game's luck was measured and neither A nor B faulted
    (a fault loses the game whatever the dice did: then ranks decide), else None."""
    if outcome.get("luck") is None or any(f["seat"] in (spec.a_seat, spec.b_seat) for f in outcome["faults"]):
        return None
    return [score - luck for score, luck in zip(outcome["scores"], outcome["luck"])]


@dataclass
class Progress:
    """Everything counted so far, beside the statistics' tally."""

    tally: sprt.Tally
    luck: bool = False                  # compare score - luck where the game's luck was measured
    faults: dict = field(default_factory=lambda: {"a": Counter(), "b": Counter()})
    started: float = field(default_factory=time.monotonic)

    def add(self, first: tuple[GameSpec, dict], second: tuple[GameSpec, dict]) -> None:
        """Count one pair of played games."""
        results, a_scores, b_scores = [], [], []
        for spec, outcome in (first, second):
            values = values_of(spec, outcome) if self.luck else None
            results.append(sprt.head_to_head(spec.a_seat, spec.b_seat, outcome["ranks"], values))
            a_scores.append(outcome["scores"][spec.a_seat])
            b_scores.append(outcome["scores"][spec.b_seat])
            for fault in outcome["faults"]:
                side = "a" if fault["seat"] == spec.a_seat else "b" if fault["seat"] == spec.b_seat else None
                if side:
                    self.faults[side][fault["kind"]] += 1
        self.tally.add_pair(results[0], results[1], tuple(a_scores), tuple(b_scores))

    def report(self, config: Config) -> dict:
        """The contract's JSON fields, the faults and the seconds taken."""
        data = sprt.report(self.tally, config.alpha, config.beta)
        data.update({"game": config.game, "a": config.a, "b": config.b, "players": config.players,
                     "opponents": list(config.opponents), "seed": config.seed,
                     "elo0": config.elo0, "elo1": config.elo1, "alpha": config.alpha, "beta": config.beta,
                     "luck": config.luck,
                     "faults": {side: dict(kinds) for side, kinds in self.faults.items()},
                     "seconds": round(time.monotonic() - self.started, 2)})
        return data


def progress_line(data: dict) -> str:
    """One line: games, mean scores, Elo with interval, LLR between its bounds."""
    def score(value):
        return "-" if value is None else f"{value:.2f}"
    lo, hi = data["bounds"]
    return (f"games {data['games']:>5}  A {score(data['a_mean_score'])}  B {score(data['b_mean_score'])}  "
            f"Elo {data['elo']:+.1f} [{data['elo_ci'][0]:+.1f}, {data['elo_ci'][1]:+.1f}]  "
            f"LLR {data['llr']:+.2f} [{lo:+.2f}, {hi:+.2f}]  {data['verdict']}  {data['seconds']:.0f} s")


def run_test(config: Config, play=play_sandboxed, jobs: int = 1, on_pair=None) -> dict:
    """Play pairs until the SPRT decides or ``max_games`` are played; the final report.

    ``play(config, GameSpec) -> {"scores", "ranks", "faults"}`` plays one game (a
    module-level function: with ``jobs`` > 1 it runs in other processes). Pairs are counted in
    order; ``on_pair(report)`` is called after each.
    """
    progress = Progress(sprt.Tally(elo0=config.elo0, elo1=config.elo1), luck=config.luck)
    max_pairs = config.max_games // 2
    done: dict[tuple[int, int], dict] = {}
    next_pair = 0                                       # the next pair to count
    specs = (spec for pair in range(max_pairs) for spec in pair_games(config, pair))

    def count_ready() -> bool:
        nonlocal next_pair
        while (next_pair, 0) in done and (next_pair, 1) in done:
            first, second = pair_games(config, next_pair)
            progress.add((first, done.pop((next_pair, 0))), (second, done.pop((next_pair, 1))))
            next_pair += 1
            data = progress.report(config)
            if on_pair:
                on_pair(data)
            if data["verdict"] != "undecided" or next_pair >= max_pairs:
                return True
        return next_pair >= max_pairs

    if jobs <= 1:
        for spec in specs:
            done[(spec.pair, spec.index)] = play(config, spec)
            if spec.index == 1 and count_ready():
                break
        return progress.report(config)

    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        running: dict[concurrent.futures.Future, GameSpec] = {}
        finished = False
        try:
            while not finished:
                for spec in itertools.islice(specs, max(0, 2 * jobs - len(running))):
                    running[pool.submit(play, config, spec)] = spec
                if not running:
                    break
                ready, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in ready:
                    spec = running.pop(future)
                    done[(spec.pair, spec.index)] = future.result()
                finished = count_ready()
        finally:
            for future in running:
                future.cancel()
    return progress.report(config)


def _probability(text: str) -> float:
    value = float(text)
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"{text}: must lie strictly between 0 and 0.5")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workers.abtest", description="Is bot B stronger than bot A? Paired games and an SPRT.",
        epilog="games: " + ", ".join(game.id for game in list_games()))
    parser.add_argument("game", metavar="GAME")
    parser.add_argument("a", metavar="BOT_A", help="the reference: builtin:NAME or a path (.py, .zip, folder)")
    parser.add_argument("b", metavar="BOT_B", help="the candidate")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    parser.add_argument("--opponents", default="", metavar="BOT,...",
                        help=f"bots for the other seats, in turn (default {DEFAULT_OPPONENT})")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: B not stronger by more than this (default 0)")
    parser.add_argument("--elo1", type=float, default=10.0, help="H1: B stronger by at least this (default 10)")
    parser.add_argument("--alpha", type=_probability, default=0.05, help="false-H1 rate (default 0.05)")
    parser.add_argument("--beta", type=_probability, default=0.05, help="false-H0 rate (default 0.05)")
    parser.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES,
                        help=f"stop undecided after this many games (default {DEFAULT_MAX_GAMES})")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel games (default: the cores)")
    parser.add_argument("--seed", type=int, default=None, help="reproduce a test (default: a new seed, printed)")
    parser.add_argument("--options", default=None, help="game options as a JSON object")
    parser.add_argument("--move-ms", type=_positive_ms, help="override the per-move limit")
    parser.add_argument("--bank-ms", type=_whole_number("milliseconds", 0, "{value} ms: the bank cannot be negative"),
                        help="override the time bank (0 for none)")
    parser.add_argument("--init-ms", type=_positive_ms, help="override the start-up limit")
    parser.add_argument("--luck", action="store_true",
                        help="compare score - luck (workers.luck) instead of ranks: measured to save a few "
                             "per cent of the games at most, and to cost some in other games (docs/abtests.md)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    return parser


def _check_bot(game, bot: str) -> str | None:
    """Why ``bot`` cannot play ``game`` (None when it can)."""
    if bot.startswith(BUILTIN_PREFIX):
        name = bot[len(BUILTIN_PREFIX):]
        return None if name in game.bots else (f"{bot}: {game.id} has no built-in bot {name!r} "
                                               f"(it has {', '.join(sorted(game.bots))})")
    return None if os.path.exists(bot) else f"{bot}: no such file or folder"


def config_from_args(args) -> tuple[Config | None, str | None]:
    """The test the command line asks for, or why it cannot be played."""
    try:
        game = get_game(args.game)
    except KeyError as exc:
        return None, str(exc.args[0] if exc.args else exc)
    if not game.min_players <= args.players <= game.max_players:
        return None, f"--players {args.players}: {game.id} is played by {game.min_players} to {game.max_players}"
    if args.players < 2:
        return None, "--players: an A/B test needs at least 2 seats (A and B)"
    opponents = tuple(o.strip() for o in args.opponents.split(",") if o.strip())
    if args.players > 2 and not opponents:
        opponents = (DEFAULT_OPPONENT,)
    if args.players == 2 and opponents:
        return None, "--opponents: at 2 seats A and B fill every seat"
    for bot in (args.a, args.b, *opponents):
        if problem := _check_bot(game, bot):
            return None, problem
    if args.elo1 <= args.elo0:
        return None, f"--elo1 {args.elo1} must be above --elo0 {args.elo0}"
    if args.max_games < 2 * sprt.MIN_PAIRS:
        return None, f"--max-games {args.max_games}: at least {2 * sprt.MIN_PAIRS} (a verdict needs {sprt.MIN_PAIRS} pairs)"
    if args.jobs < 1:
        return None, f"--jobs {args.jobs}: at least 1"
    options = None
    if args.options:
        try:
            options = json.loads(args.options)
        except ValueError as exc:
            return None, f"--options is not valid JSON ({exc}): {args.options!r}"
        if not isinstance(options, dict):
            return None, f"--options must be a JSON object, not {args.options!r}"
        try:
            game.new_state(num_players=args.players, seed=0, options=options)
        except InvalidOptions as exc:
            return None, f"--options: {exc}"
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big") % SEED_LIMIT
    limits = {k: v for k, v in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms),
                                ("init_ms", args.init_ms)) if v is not None}
    return Config(game=game.id, a=args.a, b=args.b, players=args.players, opponents=opponents,
                  elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta,
                  max_games=args.max_games, seed=seed, options=options, limits=limits, luck=args.luck), None


def summary(data: dict) -> str:
    """A readable account of a finished test."""
    meaning = {"H1": f"B is stronger than A (by at least {data['elo1']:g} Elo, at most {data['alpha']:.0%} "
                     "false positives)",
               "H0": f"B is not stronger than A by more than {data['elo0']:g} Elo",
               "undecided": "undecided: --max-games reached before the test could decide"}[data["verdict"]]
    lines = [f"{data['game']} A/B test, seed {data['seed']}: A = {data['a']}, B = {data['b']}"
             + (f", opponents {', '.join(data['opponents'])}" if data["opponents"] else ""),
             "  " + progress_line(data),
             f"  pairs by B's result (0, 1/4, 1/2, 3/4, 1): {data['pair_counts']}",
             f"  verdict {data['verdict']}: {meaning}"]
    for side in ("a", "b"):
        if data["faults"][side]:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(data["faults"][side].items()))
            lines.append(f"  faults of {side.upper()}: {kinds}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    config, problem = config_from_args(args)
    if problem or config is None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        # Compiled bots are built (or found in the cache) once, here, before any game.
        for bot in dict.fromkeys([config.a, config.b, *config.opponents]):
            seat_for(bot, progress=None if args.quiet else lambda text: print(text, file=sys.stderr, flush=True))
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    live = sys.stderr.isatty()
    last = [0.0]

    def on_pair(data: dict) -> None:
        if args.quiet:
            return
        now = time.monotonic()
        if live:
            sys.stderr.write("\r" + progress_line(data) + "\033[K")
            sys.stderr.flush()
        elif now - last[0] >= 5 or data["verdict"] != "undecided":
            last[0] = now
            print(progress_line(data), file=sys.stderr, flush=True)

    if not args.quiet:
        print(f"A/B test seed {config.seed} ({args.jobs} parallel games)", file=sys.stderr, flush=True)
    try:
        data = run_test(config, jobs=args.jobs, on_pair=on_pair)
    except (ValueError, InvalidOptions, SandboxError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    if live and not args.quiet:
        sys.stderr.write("\n")
    print(json.dumps(data) if args.json else summary(data), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
