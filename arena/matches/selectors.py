"""Reads shared by pages and the API: matches, seats, who may read a seat's log, full replays."""

from __future__ import annotations

import gzip
import hashlib
import json

from django.conf import settings
from django.core.cache import cache
from django.db.models import Avg, BooleanField, Case, Count, Exists, F, OuterRef, Q, QuerySet, Value, When

from arena.bots.models import Bot, BotVersion
from arena.keyset import Bounds, walks_down
from arena.matches.models import Match, MatchGroup, MatchSeat
from arena.matches.replay_store import StoredReplayError, unpack
from engines import list_games
from workers.luck import LUCK_MODEL, luck_report
from workers.replay import ReplayError, expand, joint_actions


def match_list(*, bot: Bot | int | None = None, ladder=None, status: str | None = None,
               kind: str | None = None, game: str | None = None, bounds: Bounds | None = None,
               limit: int | None = None, group: int | None = None) -> QuerySet[Match]:
    """Matches newest first (by id), optionally of one bot, ladder (object or slug), status, kind, game
    or rotation group (a handful of games, from the group's index). Smoke tests are never listed
    (their owner reads them on the bot's page).

    Every filter has an index that yields its matches in id order, so a keyset page
    (``arena.keyset``) reads only its rows. A bot's matches come from its seats by
    ``(bot_version, match)`` without a join over matches or a DISTINCT (a bot takes one seat
    per match); ``bounds`` and ``limit`` (the rows a keyset page reads) cut those seats in the
    subquery already, so even a bot with a long history joins only a page of matches.
    """
    qs = Match.objects.select_related("ladder", "group").prefetch_related("seats__bot_version__bot")
    bounds = bounds or Bounds()
    wanted = {}
    if game:
        wanted["game"] = game
    if ladder is not None:
        wanted.update({"ladder__slug": ladder} if isinstance(ladder, str) else {"ladder": ladder})
    if status:
        wanted["status"] = status
    if kind:
        wanted["kind"] = kind
    if group is not None:
        wanted["group_id"] = group
    if bot is not None:
        bot_id = bot.pk if isinstance(bot, Bot) else bot
        seats = MatchSeat.objects.filter(
            bot_version__in=BotVersion.objects.filter(bot_id=bot_id).values("id"), **bounds.as_filters("match_id"))
        seats = seats.exclude(match__kind=Match.Kind.SMOKE)
        if limit is not None:
            # The other filters go into the subquery too, before its cut: cut first, a page of the
            # bot's matches would be thinned afterwards, and rows lost (issue 25.1).
            seats = (seats.filter(**{f"match__{name}": value for name, value in wanted.items()})
                     .order_by("-match_id" if walks_down(bounds) else "match_id")[:limit])
        qs = qs.filter(pk__in=seats.values("match_id"))
    return qs.filter(**wanted, **bounds.as_filters()).exclude(kind=Match.Kind.SMOKE).order_by("-id")


def match_seats(*, match: Match) -> QuerySet[MatchSeat]:
    """The match's seats in seat order with their bot versions and bots."""
    return (match.seats.select_related("bot_version__bot__owner")
            .defer("bot_version__archive", "bot_version__artifact", "bot_version__build_log",
                   "bot_version__bot__owner__password").order_by("seat"))


# --- chance privacy ---------------------------------------------------------------------------
# One rule, here only: whatever reveals the chance of a game still to be played (its seed, its
# replay, the seats' logs and fault messages, anything derived from them) stays private, to
# everyone but staff (owners included), until every game that shares that chance has been played.
# Games share chance when they are in one match group (a rotation group plays one seed in every
# seat order) or in two groups that have the same seed (every table of a tournament round plays
# the round's seed) or the same non-empty ``chance_set`` (groups on different seeds released
# together, e.g. the pairs of one A/B test). So any kind of match put in groups is covered by
# construction: a group whose games are not all played (``MatchGroup.finished_at`` is None: a
# game queued, running, or withdrawn to be re-created) keeps every game sharing its chance private.


def _unfinished_groups_sharing(seed, chance_set) -> QuerySet[MatchGroup]:
    """Unfinished groups that share chance with a group of ``seed`` and ``chance_set`` (either may
    be an ``OuterRef``); each side reads a small partial index (unfinished groups only)."""
    sharing = Q(seed=seed)
    if chance_set is not None:
        sharing |= Q(chance_set=chance_set) & ~Q(chance_set="")
    return MatchGroup.objects.filter(sharing, finished_at__isnull=True)


def with_chance_state(queryset: QuerySet[Match]) -> QuerySet[Match]:
    """Annotate ``chance_open`` on every match: True when a game that shares its chance is still to
    be played (see the rule above). Lists annotate it so that a page costs no query per match."""
    sharing = _unfinished_groups_sharing(OuterRef("group__seed"), OuterRef("group__chance_set"))
    return queryset.annotate(chance_open=Case(
        When(group__isnull=True, then=Value(False)), default=Exists(sharing), output_field=BooleanField()))


def match_chance_open(match: Match) -> bool:
    """True when a game sharing the match's chance is still to be played: its seed, replay, logs
    and fault messages are private to staff until then. Reads the ``chance_open`` annotation of
    :func:`with_chance_state` when present, else asks the database (one query)."""
    annotated = getattr(match, "chance_open", None)
    if annotated is not None:
        return bool(annotated)
    if getattr(match, "group_id", None) is None:
        return False
    group = MatchGroup.objects.filter(pk=match.group_id).values("seed", "chance_set").first()
    if group is None:
        return False
    return _unfinished_groups_sharing(group["seed"], group["chance_set"]).exists()


def match_group_settled(match: Match) -> bool:
    """True unless a game sharing the match's chance is still to be played (:func:`match_chance_open`)."""
    return not match_chance_open(match)


def match_public(match: Match) -> bool:
    """Done, and no game sharing its chance still to play: its seed and replay are public."""
    return match.status == Match.Status.DONE and not match_chance_open(match)


def match_seat_log_visible(*, seat: MatchSeat, user, match: Match | None = None) -> bool:
    """True when ``user`` may read the seat's log and fault message: staff; the bot's owner once no
    game sharing the match's chance is still to be played (a bot that logs its rolls would show
    its owner the chance of the games to come). ``match`` is the seat's match when the caller has
    it (annotated by :func:`with_chance_state`), else ``seat.match`` is read."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    if seat.bot_version.bot.owner_id != user.pk:
        return False
    return not match_chance_open(match if match is not None else seat.match)


def log_refusal(*, seat: MatchSeat, user) -> str:
    """Why :func:`match_seat_log_visible` said no to a signed-in ``user``: the message of the 403."""
    if seat.bot_version.bot.owner_id == getattr(user, "pk", None):
        return ("Your bot's log is shown once every game sharing this match's chance has been played "
                "(its rotation group, every table of its tournament round): it could show what is still to come.")
    return "Only the bot's owner and staff can read its log."


def match_seed_visible(*, match: Match, user) -> bool:
    """True when ``user`` may see the match's seed.

    The seed, with the public engines, rebuilds every hidden value of the game: it is private
    until the match is done (queued, running and failed matches — a failed match may be run
    again — hide it) and no game sharing its chance is still to play. Staff see it, and so does
    the requester of a lone challenge (who may have named it: knowing it tells them nothing
    they could not have chosen, and no other game shares it).
    """
    if match_public(match):
        return True
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or (match.kind == Match.Kind.CHALLENGE and match.requested_by_id == user.pk
                                  and getattr(match, "group_id", None) is None))


def match_replay_visible(*, match: Match, user=None) -> bool:
    """A replay is shown for done matches only (it holds the seed and every hidden value): to
    everyone once no game sharing its chance is still to be played, to staff at once (they
    investigate faults while a rotation group or a tournament round is still being played)."""
    if match.status != Match.Status.DONE:
        return False
    return bool(user is not None and getattr(user, "is_staff", False)) or match_public(match)


def match_full_replay(match: Match, *, user=None) -> dict | None:
    """The finished match's replay in full form (``workers.replay.expand``), as viewers read it.

    None when the match has no replay (not finished yet). Raises ``workers.replay.ReplayError``
    with a message for stored data that is not a replay this arena reads. The full form shows
    every hidden value at every step, which the rules allow once the match is over: only a done
    match's replay is expanded.
    """
    data = match_full_replay_gzip(match, user=user)
    return None if data is None else json.loads(gzip.decompress(data))


def match_full_replay_gzip(match: Match, *, user=None) -> bytes | None:
    """:func:`match_full_replay` as gzip-compressed JSON, from the cache when it was asked for before.

    A compact replay is re-simulated once, not on every request: the expansion is cached under the
    stored bytes' digest and the installed engine versions (a converted or pruned replay, or
    another engine, is another key) for ``REPLAY_FULL_CACHE_SECONDS``.
    """
    def gzipped_expansion(stored: bytes) -> bytes:
        full = expand(_stored_replay(stored))
        return gzip.compress(json.dumps(full, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
                             compresslevel=5, mtime=0)

    return _cached_from_replay(match, "replay-full", gzipped_expansion, user=user)


# What an expansion depends on besides the stored bytes.
_ENGINE_VERSIONS = ";".join(f"{game.id}={game.version}" for game in list_games())


def _cached_from_replay(match: Match, kind: str, compute, *, user=None):
    """``compute(stored bytes)`` of a done match's replay that ``user`` may see
    (:func:`match_replay_visible`), cached under ``kind``, the bytes' digest and the installed
    engine versions for ``REPLAY_FULL_CACHE_SECONDS``; None when the match has no replay ``user``
    may see. Errors of ``compute`` are not cached. The cache is keyed by content, not by viewer:
    only callers allowed to see the replay ever reach it."""
    if not match_replay_visible(match=match, user=user):
        return None
    stored = match.replay
    if stored is None or not bytes(stored):
        return None
    stored = bytes(stored)
    key = f"{kind}:" + hashlib.sha256(stored + _ENGINE_VERSIONS.encode()).hexdigest()
    cached = cache.get(key)
    if cached is not None:
        return cached
    value = compute(stored)
    cache.set(key, value, settings.REPLAY_FULL_CACHE_SECONDS)
    return value


def _stored_replay(stored: bytes) -> dict:
    try:
        return unpack(stored)
    except StoredReplayError as exc:
        raise ReplayError(str(exc)) from None


def match_luck_steps(match: Match, *, user=None) -> dict | None:
    """Every seat's score, luck and play of a public done match, with the luck of the setup and of
    every step (``workers.luck.luck_report``; recomputed when asked, then cached like the full
    replay). None when the match has no public replay; ``ReplayError`` when it cannot be measured."""
    def luck_steps(stored: bytes) -> dict:
        replay = _stored_replay(stored)
        try:
            return luck_report(replay["game"], replay["num_players"], replay["seed"], replay.get("options"),
                               joint_actions(replay))
        except (KeyError, TypeError) as exc:
            raise ReplayError(f"the replay cannot be measured: {type(exc).__name__}: {exc}") from None
        except ValueError as exc:  # ReplayError, IllegalAction, a game that is not over
            raise ReplayError(str(exc)) from None

    # Keyed by the luck model too: a new V must not be served the old V's steps.
    return _cached_from_replay(match, f"replay-luck-{LUCK_MODEL}", luck_steps, user=user)


def bot_luck_summary(*, bot: Bot) -> dict:
    """A bot's measured matches: how many, its mean score, mean luck (near 0 for any bot) and mean
    play (score - luck, the luck-adjusted mean); the means are None before its first measured match."""
    row = (MatchSeat.objects.filter(bot_version__bot=bot, luck__isnull=False, score__isnull=False)
           .exclude(match__kind=Match.Kind.SMOKE)
           .aggregate(count=Count("id"), mean_score=Avg("score"), mean_luck=Avg("luck"),
                      mean_play=Avg(F("score") - F("luck"))))
    return {"count": row["count"], "mean_score": row["mean_score"], "mean_luck": row["mean_luck"],
            "mean_play": row["mean_play"]}
