"""A/B test services: starting a test, advancing it pair by pair, stopping it (docs/abtests.md).

A test's games are unrated matches of kind ``abtest``; each pair is a match group of two games on
one fresh seed with A and B in swapped seats (``match_group_create`` over the table ``[a, b,
*opponents]`` with the seat orders of ``workers.abtest.pair_orders``: at 2 seats game 0 seats A
first, game 1 B first; with more seats the opponents fill the other seats, the same in both games,
and the seats A and B take rotate over pairs, as in the local command). The statistics are ``workers.sprt``, the same as the local
``python -m workers.abtest``. The beat's tick (``arena.runs.abtests``) calls
:func:`abtest_advance` for every open test: it counts the pairs whose two games are over, in pair
order, stops the test once the SPRT decides or ``max_games`` are counted, and otherwise keeps
``ABTEST_PAIRS_IN_FLIGHT`` pairs queued or running, only one while other matches wait
(``ABTEST_YIELD_QUEUED``), none once the owner's games of the last 24 hours reach ``ABTEST_GAMES_PER_DAY``.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from arena.abtests.models import ABTest, ABTestPair
from arena.bots.models import BotVersion
from arena.matches.models import MAX_SEED, Match, MatchGroup
from arena.matches.services import match_group_create
from engines import get_game, list_games
from workers import sprt
from workers.abtest import pair_orders

# A test whose games the workers keep failing (not the bots: the platform) ends as failed.
MAX_FAILED_GAMES = 10


class ABTestLimitReached(ValidationError):
    """The owner runs as many tests at once, or played as many A/B games today, as allowed."""


def may_use_as_a(user: AbstractBaseUser, version: BotVersion) -> bool:
    """A version the user may test against: any of their own, or another bot's active version
    (what they may challenge)."""
    bot = version.bot
    return user.is_staff or bot.owner_id == user.pk or bot.active_version_id == version.pk


def abtest_games_today(*, user: AbstractBaseUser) -> int:
    """A/B test games created for ``user`` in the last 24 hours."""
    since = timezone.now() - timedelta(hours=24)
    return Match.objects.filter(kind=Match.Kind.ABTEST, requested_by=user, created_at__gte=since).count()


def abtest_create(*, by: AbstractBaseUser, game: str, num_players: int, a: BotVersion, b: BotVersion,
                  elo0: float = 0.0, elo1: float = 10.0, max_games: int | None = None,
                  opponents: Sequence[BotVersion] = ()) -> ABTest:
    """Start a test of version ``b`` (the caller's) against ``a``, with ``opponents`` (versions
    the caller may use as ``a``, ``num_players - 2`` of them) in the other seats; its first pairs
    are queued by the next tick. Raises PermissionDenied (``b`` not the caller's, ``a`` or an
    opponent not a version they may use), ABTestLimitReached, or ValidationError (with a code
    naming the field)."""
    if not by.is_authenticated:
        raise PermissionDenied("Sign in to start an A/B test.")
    if not (by.is_staff or b.bot.owner_id == by.pk):
        raise PermissionDenied("Version b must be a version of one of your bots.")
    if not may_use_as_a(by, a):
        raise PermissionDenied("Version a must be one of your versions or another bot's active version.")
    if any(not may_use_as_a(by, version) for version in opponents):
        raise PermissionDenied("Each opponent must be one of your versions or another bot's active version.")
    if game not in {g.id for g in list_games()}:
        raise ValidationError(f"Unknown game {game!r}.", code="game")
    info = get_game(game)
    if not info.min_players <= num_players <= info.max_players:
        raise ValidationError(f"{game} takes {info.min_players}-{info.max_players} players.", code="num_players")
    if len(opponents) != num_players - 2:
        raise ValidationError(f"A test at {num_players} seats needs {num_players - 2} opponent version(s) for the "
                              f"seats beyond A's and B's, not {len(opponents)}.", code="opponents")
    if len({v.pk for v in (a, b, *opponents)}) != num_players and a.pk != b.pk:
        raise ValidationError("Each opponent takes one seat and is neither A nor B: list distinct versions.",
                              code="opponents")
    for version in opponents:
        if version.bot.game != game or version.status != BotVersion.Status.READY:
            raise ValidationError(f"Opponent {version.label} is not a ready version of {game}.", code="opponents")
    for name, version in (("a", a), ("b", b)):
        if version.bot.game != game:
            raise ValidationError(f"{version.label} plays {version.bot.game}, not {game}.", code=name)
        if version.status != BotVersion.Status.READY:
            raise ValidationError(f"{version.label} is not ready ({version.status}).", code=name)
    if a.pk == b.pk:
        raise ValidationError("Versions A and B (a and b) are the same version: pick two different versions.", code="b")
    if not elo1 > elo0:
        raise ValidationError(f"H1 (elo1, {elo1:g}) must be above H0 (elo0, {elo0:g}).", code="elo1")
    limit = settings.ABTEST_MAX_GAMES
    max_games = limit if max_games is None else max_games
    if not 2 * sprt.MIN_PAIRS <= max_games <= limit:
        raise ValidationError(f"max_games must lie between {2 * sprt.MIN_PAIRS} and {limit}.", code="max_games")
    with transaction.atomic():
        open_tests = ABTest.objects.select_for_update().filter(owner=by, status__in=ABTest.OPEN)
        if not by.is_staff and len(open_tests) >= settings.ABTESTS_AT_ONCE:
            raise ABTestLimitReached(f"At most {settings.ABTESTS_AT_ONCE} A/B tests at once: stop one or wait "
                                     "for one to finish.", code="limit")
        used = abtest_games_today(user=by)
        if not by.is_staff and used >= settings.ABTEST_GAMES_PER_DAY:
            raise ABTestLimitReached(f"At most {settings.ABTEST_GAMES_PER_DAY} A/B test games in 24 hours: "
                                     f"you played {used}.", code="limit")
        return ABTest.objects.create(owner=by, game=game, num_players=num_players, a=a, b=b, elo0=elo0,
                                     elo1=elo1, max_games=max_games, opponents=[v.pk for v in opponents],
                                     tally=sprt.Tally(elo0=elo0, elo1=elo1).to_dict())


def abtest_opponents(test: ABTest) -> list[BotVersion]:
    """The test's opponent versions in their order (none at 2 seats)."""
    if not test.opponents:
        return []
    found = BotVersion.objects.select_related("bot").defer("archive", "artifact").in_bulk(test.opponents)
    missing = [pk for pk in test.opponents if pk not in found]
    if missing:
        raise ValidationError(f"Opponent version(s) {missing} no longer exist.", code="opponents")
    return [found[pk] for pk in test.opponents]


def _tally(test: ABTest) -> sprt.Tally:
    """The test's stored tally (its hypotheses are the test's)."""
    if not test.tally:
        return sprt.Tally(elo0=test.elo0, elo1=test.elo1)
    return sprt.Tally.from_dict(test.tally, elo0=test.elo0, elo1=test.elo1)


def abtest_report(test: ABTest) -> dict:
    """The contract's fields (DESIGN.md, "A/B tests") of a test as it stands."""
    tally = _tally(test)
    data = sprt.report(tally, test.alpha, test.beta)
    data["verdict"] = test.verdict
    return data


def _close_open_pairs(test: ABTest, now) -> None:
    """The test ended: its games not started yet will not be played (failed, with the reason);
    games running finish and are not counted. A group with no game left open is finished."""
    groups = list(test.pairs.filter(counted=False).values_list("group_id", flat=True))
    Match.objects.filter(group_id__in=groups, status=Match.Status.QUEUED).update(
        status=Match.Status.FAILED, finished_at=now, error="The A/B test ended before this game was played.")
    open_groups = set(Match.objects.filter(group_id__in=groups, status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
                      .values_list("group_id", flat=True))
    MatchGroup.objects.filter(pk__in=set(groups) - open_groups, finished_at__isnull=True).update(finished_at=now)


def _end(test: ABTest, status: str, verdict: str, reason: str) -> None:
    now = timezone.now()
    test.status, test.verdict, test.reason, test.finished_at = status, verdict, reason, now
    _close_open_pairs(test, now)


def _pair_results(test: ABTest, games: list[Match]) -> tuple[list[float], list[float], list[float]]:
    """B's head-to-head results and each side's scores in the two games of a pair."""
    results, a_scores, b_scores = [], [], []
    for game in games:
        seats = {seat.bot_version_id: seat for seat in game.seats.all()}
        a, b = seats[test.a_id], seats[test.b_id]
        ranks = {a.seat: a.rank, b.seat: b.rank}
        results.append(sprt.head_to_head(a.seat, b.seat, ranks))
        a_scores.append(a.score or 0.0)
        b_scores.append(b.score or 0.0)
    return results, a_scores, b_scores


def _count_finished_pairs(test: ABTest, tally: sprt.Tally) -> None:
    """Count, in pair order, every pair whose two games are over; stop at the first still open."""
    pairs = list(test.pairs.filter(counted=False).order_by("number"))
    games: dict[int, list[Match]] = {}
    for match in (Match.objects.filter(group_id__in=[p.group_id for p in pairs]).defer("replay")
                  .prefetch_related("seats").order_by("group_id", "group_index")):
        games.setdefault(match.group_id, []).append(match)
    for pair in pairs:
        played = games.get(pair.group_id, [])
        if len(played) != 2 or not all(m.is_finished for m in played):
            break
        if all(m.status == Match.Status.DONE for m in played):
            results, a_scores, b_scores = _pair_results(test, played)
            tally.add_pair(results[0], results[1], tuple(a_scores), tuple(b_scores))
            elo, (lo, hi) = sprt.elo_estimate(tally)
            test.history.append([tally.games, round(sprt.llr(tally), 4),
                                 round(elo, 2), round(lo, 2), round(hi, 2)])
        else:
            test.games_failed += sum(m.status == Match.Status.FAILED for m in played)
        pair.counted = True
        pair.save(update_fields=["counted"])
        if sprt.verdict(tally, test.alpha, test.beta) != "undecided":
            break


def _add_pairs(test: ABTest) -> None:
    """Queue pairs until ``ABTEST_PAIRS_IN_FLIGHT`` are open (one while other matches wait), unless
    the owner's daily games are used up (then a test with nothing left open stops)."""
    open_pairs = test.pairs.filter(counted=False).count()
    planned = test.pairs.count()
    wanted = min(settings.ABTEST_PAIRS_IN_FLIGHT - open_pairs, test.max_games // 2 - planned)
    if wanted <= 0:
        return
    waiting = Match.objects.filter(status=Match.Status.QUEUED).exclude(kind=Match.Kind.ABTEST).count()
    if waiting >= settings.ABTEST_YIELD_QUEUED:
        # Others wait: one pair at a time, so the test still moves on a platform that is never idle.
        wanted = min(wanted, 1 - open_pairs)
        if wanted <= 0:
            return
    used = abtest_games_today(user=test.owner)
    if not test.owner.is_staff:
        wanted = min(wanted, (settings.ABTEST_GAMES_PER_DAY - used) // 2)
    if wanted <= 0:
        if open_pairs == 0:
            _end(test, ABTest.Status.STOPPED, "undecided",
                 f"The daily limit of {settings.ABTEST_GAMES_PER_DAY} A/B test games was reached.")
        return
    table = [test.a, test.b, *abtest_opponents(test)]
    for number in range(planned, planned + wanted):
        matches = match_group_create(game=test.game, versions=table, orders=pair_orders(number, test.num_players),
                                     seed=secrets.randbelow(MAX_SEED + 1), kind=Match.Kind.ABTEST,
                                     requested_by=test.owner, same_bot=True, chance_set=f"abtest:{test.pk}")
        ABTestPair.objects.create(test=test, number=number, group_id=matches[0].group_id)


def abtest_advance(*, test_id: int) -> str:
    """One step of an open test (the tick's work): count finished pairs, decide or queue more.
    Returns the test's status afterwards; harmless when run twice or concurrently (the row is
    locked, and a counted pair is never counted again)."""
    with transaction.atomic():
        test = (ABTest.objects.select_for_update(of=("self",)).select_related("a__bot", "b__bot", "owner")
                .filter(pk=test_id).first())
        if test is None or not test.is_open:
            return test.status if test else ""
        if test.status == ABTest.Status.QUEUED:
            test.status, test.started_at = ABTest.Status.RUNNING, timezone.now()
        tally = _tally(test)
        _count_finished_pairs(test, tally)
        verdict = sprt.verdict(tally, test.alpha, test.beta)
        if verdict != "undecided":
            _end(test, ABTest.Status.FINISHED, verdict, "")
        elif tally.games >= test.max_games or (tally.games + 2 * test.games_failed >= test.max_games
                                               and not test.pairs.filter(counted=False).exists()):
            _end(test, ABTest.Status.FINISHED, "undecided", f"max_games ({test.max_games}) reached.")
        elif test.games_failed >= MAX_FAILED_GAMES:
            _end(test, ABTest.Status.FAILED, "undecided",
                 f"The workers could not play {test.games_failed} of its games.")
        else:
            try:
                _add_pairs(test)
            except ValidationError as exc:   # a version that can no longer play (deleted, failed)
                _end(test, ABTest.Status.FAILED, "undecided", " ".join(exc.messages))
        test.tally = tally.to_dict()
        test.save()
        return test.status


def abtest_stop(*, by: AbstractBaseUser, test: ABTest) -> ABTest:
    """The owner (or staff) stops an open test: no more games; the verdict is what the SPRT says
    of the pairs counted (usually undecided). Raises PermissionDenied or ValidationError."""
    if not (by.is_authenticated and (by.is_staff or test.owner_id == by.pk)):
        raise PermissionDenied("Only the test's owner can stop it.")
    with transaction.atomic():
        test = ABTest.objects.select_for_update().get(pk=test.pk)
        if not test.is_open:
            raise ValidationError(f"The test is already {test.status}.", code="status")
        tally = _tally(test)
        _end(test, ABTest.Status.STOPPED, sprt.verdict(tally, test.alpha, test.beta),
             f"Stopped by {by.get_username()}.")
        test.save()
        return test


def abtests_advance_open() -> int:
    """Advance every open test, oldest first; how many were looked at."""
    ids = list(ABTest.objects.filter(status__in=ABTest.OPEN).order_by("id").values_list("id", flat=True))
    for test_id in ids:
        abtest_advance(test_id=test_id)
    return len(ids)
