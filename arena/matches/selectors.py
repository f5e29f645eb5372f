"""Reads shared by pages and the API: matches, seats, who may read a seat's log, full replays."""

from __future__ import annotations

import gzip
import hashlib
import json

from django.conf import settings
from django.core.cache import cache
from django.db.models import Avg, Count, F, QuerySet

from arena.bots.models import Bot, BotVersion
from arena.keyset import Bounds, walks_down
from arena.matches.models import Match, MatchSeat
from arena.matches.replay_store import StoredReplayError, unpack
from engines import list_games
from workers.luck import luck_report
from workers.replay import ReplayError, expand, joint_actions


def match_list(*, bot: Bot | int | None = None, ladder=None, status: str | None = None,
               kind: str | None = None, game: str | None = None, bounds: Bounds | None = None,
               limit: int | None = None, group: int | None = None) -> QuerySet[Match]:
    """Matches newest first (by id), optionally of one bot, ladder (object or slug), status, kind, game
    or rotation group (a handful of games, from the group's index).

    Every filter has an index that yields its matches in id order, so a keyset page
    (``arena.keyset``) reads only its rows. A bot's matches come from its seats by
    ``(bot_version, match)`` without a join over matches or a DISTINCT (a bot takes one seat
    per match); ``bounds`` and ``limit`` (the rows a keyset page reads) cut those seats in the
    subquery already, so even a bot with a long history joins only a page of matches.
    """
    qs = Match.objects.select_related("ladder", "group").prefetch_related("seats__bot_version__bot")
    bounds = bounds or Bounds()
    if game:
        qs = qs.filter(game=game)
    if bot is not None:
        bot_id = bot.pk if isinstance(bot, Bot) else bot
        seats = MatchSeat.objects.filter(
            bot_version__in=BotVersion.objects.filter(bot_id=bot_id).values("id"), **bounds.as_filters("match_id"))
        if limit is not None:
            seats = seats.order_by("-match_id" if walks_down(bounds) else "match_id")[:limit]
        qs = qs.filter(pk__in=seats.values("match_id"))
    if ladder is not None:
        qs = qs.filter(ladder__slug=ladder) if isinstance(ladder, str) else qs.filter(ladder=ladder)
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    if group is not None:
        qs = qs.filter(group_id=group)
    return qs.filter(**bounds.as_filters()).order_by("-id")


def match_seats(*, match: Match) -> QuerySet[MatchSeat]:
    """The match's seats in seat order with their bot versions and bots."""
    return (match.seats.select_related("bot_version__bot__owner")
            .defer("bot_version__archive", "bot_version__artifact", "bot_version__build_log",
                   "bot_version__bot__owner__password").order_by("seat"))


def match_seat_log_visible(*, seat: MatchSeat, user) -> bool:
    """True when ``user`` may read the seat's log and fault message: the bot's owner or staff."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or seat.bot_version.bot.owner_id == user.pk)


def match_group_settled(match: Match) -> bool:
    """True unless the match is a game of a rotation group with a game still queued or running:
    the group's games share one seed (and, with keyed chance, the chance each key meets), so a
    done game's seed or replay would show what a game still to play hides. Reads ``match.group``
    (select it with the match to save the query)."""
    return getattr(match, "group_id", None) is None or match.group.finished_at is not None


def match_public(match: Match) -> bool:
    """Done, and no game of its rotation group still to play: its seed and replay are public."""
    return match.status == Match.Status.DONE and match_group_settled(match)


def match_seed_visible(*, match: Match, user) -> bool:
    """True when ``user`` may see the match's seed.

    The seed, with the public engines, rebuilds every hidden value of the game: it is private
    until the match is done (queued, running and failed matches — a failed match may be run
    again — hide it) and, for a game of a rotation group, until no game of the group is queued
    or running. Staff see it, and so does the requester of a challenge (who may have named it).
    """
    if match_public(match):
        return True
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or (match.kind == Match.Kind.CHALLENGE and match.requested_by_id == user.pk))


def match_replay_visible(*, match: Match) -> bool:
    """A replay is shown for done matches only (it holds the seed and every hidden value), and for
    a game of a rotation group once no game of the group is queued or running."""
    return match_public(match)


def match_full_replay(match: Match) -> dict | None:
    """The finished match's replay in full form (``workers.replay.expand``), as viewers read it.

    None when the match has no replay (not finished yet). Raises ``workers.replay.ReplayError``
    with a message for stored data that is not a replay this arena reads. The full form shows
    every hidden value at every step, which the rules allow once the match is over: only a done
    match's replay is expanded.
    """
    data = match_full_replay_gzip(match)
    return None if data is None else json.loads(gzip.decompress(data))


def match_full_replay_gzip(match: Match) -> bytes | None:
    """:func:`match_full_replay` as gzip-compressed JSON, from the cache when it was asked for before.

    A compact replay is re-simulated once, not on every request: the expansion is cached under the
    stored bytes' digest and the installed engine versions (a converted or pruned replay, or
    another engine, is another key) for ``REPLAY_FULL_CACHE_SECONDS``.
    """
    if not match_public(match):
        return None
    stored = match.replay
    if stored is None or not bytes(stored):
        return None
    stored = bytes(stored)
    key = "replay-full:" + hashlib.sha256(stored + _ENGINE_VERSIONS.encode()).hexdigest()
    cached = cache.get(key)
    if cached is not None:
        return cached
    full = expand(_stored_replay(stored))
    data = gzip.compress(json.dumps(full, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
                         compresslevel=5, mtime=0)
    cache.set(key, data, settings.REPLAY_FULL_CACHE_SECONDS)
    return data


# What an expansion depends on besides the stored bytes.
_ENGINE_VERSIONS = ";".join(f"{game.id}={game.version}" for game in list_games())


def _stored_replay(stored: bytes) -> dict:
    try:
        return unpack(stored)
    except StoredReplayError as exc:
        raise ReplayError(str(exc)) from None


def match_luck_steps(match: Match) -> dict | None:
    """Every seat's score, luck and play of a public done match, with the luck of the setup and of
    every step (``workers.luck.luck_report``; recomputed when asked, then cached like the full
    replay). None when the match has no public replay; ``ReplayError`` when it cannot be measured."""
    if not match_public(match):
        return None
    stored = match.replay
    if stored is None or not bytes(stored):
        return None
    stored = bytes(stored)
    key = "replay-luck:" + hashlib.sha256(stored + _ENGINE_VERSIONS.encode()).hexdigest()
    cached = cache.get(key)
    if cached is not None:
        return cached
    replay = _stored_replay(stored)
    try:
        report = luck_report(replay["game"], replay["num_players"], replay["seed"], replay.get("options"),
                             joint_actions(replay))
    except (KeyError, TypeError) as exc:
        raise ReplayError(f"the replay cannot be measured: {type(exc).__name__}: {exc}") from None
    except ValueError as exc:  # ReplayError, IllegalAction, a game that is not over
        raise ReplayError(str(exc)) from None
    cache.set(key, report, settings.REPLAY_FULL_CACHE_SECONDS)
    return report


def bot_luck_summary(*, bot: Bot) -> dict:
    """A bot's measured matches: how many, its mean score, mean luck (near 0 for any bot) and mean
    play (score - luck, the luck-adjusted mean); the means are None before its first measured match."""
    row = (MatchSeat.objects.filter(bot_version__bot=bot, luck__isnull=False, score__isnull=False)
           .aggregate(count=Count("id"), mean_score=Avg("score"), mean_luck=Avg("luck"),
                      mean_play=Avg(F("score") - F("luck"))))
    return {"count": row["count"], "mean_score": row["mean_score"], "mean_luck": row["mean_luck"],
            "mean_play": row["mean_play"]}
