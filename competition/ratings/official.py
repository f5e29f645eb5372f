"""The official rating of a ladder (the leaderboard's order): the batch rating on score margins
(``competition.ratings.batch_scores.fit_scores``) read on each seat's *play*, not its raw score.

Pure: no Django, no I/O. A seat's result goes through three steps before the fit:

1. **Luck out.** Its value is ``score - luck`` (``workers.luck``: what the dice gave it against
   what it could expect; mean 0 for every seat, so the value stays unbiased and is less noisy).
   A game where some seat's luck is not measured yet (or could not be) is read on its raw scores,
   every seat of it alike (a table's values must share one measure); the fit counts such games
   (``OfficialFit.raw_games``) and the page says so.
2. **The game's transform** (``TRANSFORMS``): play itself, except on Dive! Diver! Die!. Its
   scores run from 0 to over a hundred with a long tail (the jewel is worth 50), and its raw
   scores rank better through log(1 + score); the signed log of *play*, ``sign(x) log(1 + |x|)``,
   ranked worse than play (play can be near or below 0, where the log is steep). What ranks best
   there is ``log_score``: the log of the score less the luck at the log's slope at the game's
   typical score, ``sign(s) log(1 + |s|) - luck / (1 + LOG_TYPICAL_SCORE)``: still the score's log
   less something of mean 0 (``bench/rating_quality.py --official``, 100 ladders: tau at 60
   matches per bot 0.85 against 0.83 for the log of the score and 0.81 for play).
   Then a faulted seat is capped below every clean seat (``fault_capped``).
3. **Seat advantage, where it pays.** Each seat of the ladder's tables gets an effect (what that
   seat position adds to a value, the same for every bot), fitted jointly with the strengths by
   least squares and subtracted, when it pays on the ladder's own results: when it lowers the
   residual sum of squares enough that ``d ln(RSS0 / RSS1) > 2 (N - 1)`` (d the residual degrees
   of freedom; Akaike's criterion for the N - 1 extra parameters) on at least
   ``SEAT_EFFECT_MIN_GAMES`` games. Otherwise no effect is taken out.

The fit itself is ``fit_scores``'s, and so are its 95 % intervals (bootstrap over groups; the seat
effects are held at the full fit's in every replicate, N - 1 numbers from hundreds of games), but
widened about each rating by ``INTERVAL_WIDENING`` (:func:`fit_play`): on the graded bots of
``bench/rating_quality.py --official`` the bootstrap's intervals held the truth 91.6 % (Deep Sea
Adventure) and 93.1 % (Deep Dive) of the time, not 95 %; the ratings were unbiased, but their errors
were 1.0-1.2 times as spread as the bootstrap said (a bootstrap over a few dozen groups of tables
that matchmaking chose is narrower than the truth). The factor is the one that brought the 95 %
quantile of the errors to the interval's end on those ladders (1.12 on Deep Sea Adventure, 1.07 on
Deep Dive), and was then checked on Dive! Diver! Die!'s ladders, which did not choose it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from collections.abc import Mapping, Sequence

from competition.ratings.batch import PROVISIONAL_WIDTH, BatchRating
from competition.ratings.batch_scores import ScoredGroup, fit_scores, score_strengths

# (entrant id, seat index, final score, luck or None when not measured, faulted)
OfficialSeat = tuple[int, int, float, float | None, bool]
OfficialGame = Sequence[OfficialSeat]
OfficialUnit = Sequence[OfficialGame]  # a rotation group's games, or a lone match

# How far below the lowest seat that did not fault a faulted seat's value counts at least: one
# unit, so that a fault loses to every clean seat (as in Elo and the rank model) instead of
# drawing with the last of them.
FAULT_MARGIN = 1.0

TRANSFORMS: Mapping[str, str] = {"dive_diver_die": "log_score"}  # game -> transform other than "identity"
# A game's typical score for ``log_score``: the mean score of the graded bots' ladders of
# bench/rating_quality.py --official (34.7 on Dive! Diver! Die!, 12.4 on Deep Sea Adventure, 11.3 on
# Deep Dive; the last two measure the transform there, they do not use it). The log's slope there
# is 1 / (1 + it).
LOG_TYPICAL_SCORE: Mapping[str, float] = {"dive_diver_die": 35.0, "deep_sea_adventure": 12.0, "deep_dive": 11.0}
SEAT_EFFECT_MIN_GAMES = 30  # fewer games: no seat effects (a handful of games says nothing of them)
SEAT_EFFECT_ROUNDS = 4  # alternating fits of strengths and seat effects (converges in 2-3 on random seating)
INTERVAL_WIDENING = 1.12  # the bootstrap interval's half-widths times this: measured coverage (module docstring)


@dataclass(frozen=True)
class OfficialRead:
    """How a ladder's results are read for the official fit: ``groups`` for ``fit_scores`` and
    what went into them."""

    groups: list[list[list[tuple[int, float]]]]  # units of games of (entrant, value less its seat effect)
    adjusted_games: int  # games read on play (score - luck)
    raw_games: int  # games read on raw scores: some seat's luck not measured
    transform: str  # "identity", "signed_log" (of play) or "log_score" (see seat_value)
    seat_effects: dict[int, list[float]]  # seats at the table -> effect per seat (transformed units); {} when none paid


@dataclass(frozen=True)
class OfficialFit:
    """The official ratings of one ladder and how its results were read."""

    ratings: dict[int, BatchRating]
    read: OfficialRead


def signed_log(value: float) -> float:
    """``sign(x) log(1 + |x|)``: the logarithm's compression of large values, defined for every x."""
    return math.copysign(math.log1p(abs(value)), value)


def transform_value(value: float, transform: str) -> float:
    """``value`` under a named transform (``identity`` or ``signed_log``)."""
    if transform == "identity":
        return float(value)
    if transform == "signed_log":
        return signed_log(value)
    raise ValueError(f"unknown transform {transform!r}")


def seat_value(score: float, luck: float, transform: str, typical: float | None = None) -> float:
    """One seat's value: ``transform_value(score - luck)``, or for ``log_score`` the signed log of
    the score less the luck at the log's slope at ``typical`` (the game's typical score)."""
    if transform == "log_score":
        if typical is None:
            raise ValueError("the log_score transform needs the game's typical score (LOG_TYPICAL_SCORE)")
        return signed_log(score) - luck / (1.0 + typical)
    return transform_value(score - luck, transform)


def fault_capped(seats: Sequence[tuple[int, float, bool]]) -> list[tuple[int, float]]:
    """``(entrant, value, faulted)`` of one game as ``(entrant, value)`` with every faulted seat's
    value lowered to ``FAULT_MARGIN`` below the lowest value of the seats that did not fault (when it
    was not lower already): a fault never earns a margin, and always loses one. When every seat
    faulted, the values stay as they are."""
    clean = [value for _, value, faulted in seats if not faulted]
    ceiling = min(clean) - FAULT_MARGIN if clean else None
    return [(entrant, min(value, ceiling) if faulted and ceiling is not None else value)
            for entrant, value, faulted in seats]


def game_values(game: OfficialGame, transform: str,
                typical: float | None = None) -> tuple[list[tuple[int, int, float]], bool]:
    """One game's ``(entrant, seat, value)`` per seat, and whether it was read on play (every seat's
    luck measured) rather than raw scores."""
    adjusted = all(luck is not None for _, _, _, luck, _ in game)
    values = [(entrant, seat_value(score, luck if adjusted and luck is not None else 0.0, transform, typical), faulted)
              for entrant, _, score, luck, faulted in game]
    capped = fault_capped(values)
    return [(entrant, seat, value) for (entrant, value), (_, seat, _, _, _) in zip(capped, game)], adjusted


def _without(units, effects: Mapping[int, Sequence[float]]):
    """The units as ``fit_scores`` groups, each value less its seat's effect."""
    return [[[(entrant, value - (effects[len(game)][seat] if len(game) in effects else 0.0))
              for entrant, seat, value in game] for game in unit] for unit in units]


def _residuals(units, effects, strengths: Mapping[int, float]):
    """Per game, ``(seats, seat, residual)``: the value less its seat effect, its table's mean and
    the bot's strength against the table's mean strength."""
    out: list[tuple[int, int, float]] = []
    for unit in units:
        for game in unit:
            n = len(game)
            if n < 2:
                continue
            values = [value - (effects[n][seat] if n in effects else 0.0) for _, seat, value in game]
            mean = math.fsum(values) / n
            strength = math.fsum(strengths[entrant] for entrant, _, _ in game) / n
            out.extend((n, seat, v - mean - strengths[entrant] + strength)
                       for (entrant, seat, _), v in zip(game, values))
    return out


def fit_seat_effects(units) -> tuple[dict[int, list[float]], float, float, int]:
    """Seat effects fitted jointly with the strengths (alternating least squares), per table size:
    ``(effects, RSS without effects, RSS with, residual degrees of freedom)``."""
    sizes = sorted({len(game) for unit in units for game in unit if len(game) >= 2})
    none: dict[int, list[float]] = {}
    effects = {n: [0.0] * n for n in sizes}
    base = _residuals(units, none, score_strengths(_without(units, none)))
    rss0 = math.fsum(r * r for _, _, r in base)
    freedom = sum(n - 1 for n, seat, _ in base if seat == 0)
    for _ in range(SEAT_EFFECT_ROUNDS):
        residuals = _residuals(units, effects, score_strengths(_without(units, effects)))
        for n in sizes:
            sums = [0.0] * n
            counts = [0] * n
            for size, seat, r in residuals:
                if size == n:
                    sums[seat] += r
                    counts[seat] += 1
            shift = [sums[s] / counts[s] if counts[s] else 0.0 for s in range(n)]
            centre = math.fsum(shift) / n
            effects[n] = [e + s - centre for e, s in zip(effects[n], shift)]
    final = _residuals(units, effects, score_strengths(_without(units, effects)))
    rss1 = math.fsum(r * r for _, _, r in final)
    return effects, rss0, rss1, freedom


def seat_effects_pay(rss0: float, rss1: float, freedom: int, parameters: int) -> bool:
    """Akaike's criterion: the effects pay when ``freedom ln(rss0 / rss1) > 2 parameters``."""
    if parameters <= 0 or rss1 <= 0.0 or rss0 <= rss1 or freedom <= parameters:
        return False
    return freedom * math.log(rss0 / rss1) > 2 * parameters


def official_read(units: Sequence[OfficialUnit], *, game: str, seat_effects: bool = True,
                  transform: str | None = None) -> OfficialRead:
    """A ladder of ``game``'s rated units (each game as :data:`OfficialSeat` tuples) read as the module
    docstring says. ``transform`` overrides the game's (``TRANSFORMS``); ``seat_effects=False`` never
    takes seat effects out."""
    name = transform if transform is not None else TRANSFORMS.get(game, "identity")
    typical = LOG_TYPICAL_SCORE.get(game)
    seat_value(0.0, 0.0, name, typical)  # an unknown transform fails before any work
    read = []
    adjusted = raw = 0
    for unit in units:
        games = []
        for one in unit:
            values, on_play = game_values(one, name, typical)
            games.append(values)
            adjusted += on_play
            raw += not on_play
        read.append(games)
    effects: dict[int, list[float]] = {}
    if seat_effects and adjusted + raw >= SEAT_EFFECT_MIN_GAMES:
        fitted, rss0, rss1, freedom = fit_seat_effects(read)
        if seat_effects_pay(rss0, rss1, freedom, sum(n - 1 for n in fitted)):
            effects = fitted
    return OfficialRead(groups=_without(read, effects), adjusted_games=adjusted, raw_games=raw, transform=name,
                        seat_effects=effects)


def widened(ratings: Mapping[int, BatchRating], factor: float = INTERVAL_WIDENING) -> dict[int, BatchRating]:
    """Each rating with its interval's ends ``factor`` times as far from it (provisional again when
    the wider interval is wider than ``PROVISIONAL_WIDTH``)."""
    out = {}
    for entrant, rating in ratings.items():
        low = rating.rating - factor * (rating.rating - rating.low)
        high = rating.rating + factor * (rating.high - rating.rating)
        out[entrant] = replace(rating, low=low, high=high, provisional=high - low > PROVISIONAL_WIDTH)
    return out


def fit_play(groups: Sequence[ScoredGroup], *, bootstrap: int = 200, seed: int = 0) -> dict[int, BatchRating]:
    """The official ratings of what :func:`official_read` read (its ``groups``): ``fit_scores``
    with its intervals :func:`widened`."""
    return widened(fit_scores(groups, bootstrap=bootstrap, seed=seed))


def official_fit(units: Sequence[OfficialUnit], *, game: str, seat_effects: bool = True,
                 transform: str | None = None, bootstrap: int = 200, seed: int = 0) -> OfficialFit:
    """The official ratings of a ladder: :func:`official_read`, then :func:`fit_play` (``bootstrap``
    and ``seed`` are ``fit_scores``'s)."""
    read = official_read(units, game=game, seat_effects=seat_effects, transform=transform)
    ratings = fit_play(read.groups, bootstrap=bootstrap, seed=seed) if read.groups else {}
    return OfficialFit(ratings=ratings, read=read)
