"""Recomputing a ladder's ratings from its stored match results, to check (and fix) the live ones.

Every bot starts at the ladder's initial rating; the rated matches are replayed in the order their
rating changes were applied (each change's per-bot ``sequence``; matches sharing no bot commute),
through the same pure functions the live path uses (``standings_after_match`` for a lone match;
``standings_after_group`` for a rotation group, whose changes hang on one of its games and whose
done, rated games are its unit). Any difference
between what is stored and what the replay gives is reported; :func:`ratings_fix` rewrites the
stored values with the recomputed ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection, transaction

from arena.ladders.models import Ladder, Rating, RatingChange
from arena.matches.models import Match, MatchSeat
from arena.matches.timing import TIMING_FIELDS
from competition.ratings.standing import (
    STANDING_FIELDS,
    Standing,
    application_order,
    seat_results,
    shown_rating,
    standings_after_group,
    standings_after_match,
)

TOLERANCE = 1e-6


@dataclass(frozen=True)
class Difference:
    """One stored value that the recomputation does not reproduce."""

    what: str  # "bot NAME" or "match N, bot NAME"
    field: str
    stored: object
    recomputed: object

    def __str__(self) -> str:
        def shown(value):
            return f"{value:.4f}" if isinstance(value, float) else str(value)

        return f"{self.what}: {self.field} stored {shown(self.stored)}, recomputed {shown(self.recomputed)}"


@dataclass
class Recomputation:
    """The replay of one ladder: the standings and rating changes it gives, and the differences."""

    ladder: Ladder
    matches: int = 0
    standings: dict[int, Standing] = field(default_factory=dict)  # bot id -> standing
    changes: dict[tuple[int, int], tuple[float | None, float]] = field(default_factory=dict)  # (match, bot)
    differences: list[Difference] = field(default_factory=list)


def _differs(stored, recomputed) -> bool:
    if stored is None or recomputed is None:
        return stored is not recomputed
    if isinstance(stored, float) or isinstance(recomputed, float):
        return abs(float(stored) - float(recomputed)) > TOLERANCE
    return stored != recomputed


def ratings_recompute(*, ladder: Ladder) -> Recomputation:
    """Replay ``ladder``'s rated matches from their stored seats and compare with what is stored."""
    result = Recomputation(ladder=ladder)
    solo = ladder.is_solo
    ratings = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder).select_related("bot")}
    stored_changes = {(c.match_id, c.bot_id): c for c in RatingChange.objects.filter(ladder=ladder)
                      .select_related("bot")}
    units: dict[int, dict[int, int]] = {}
    for (match_id, bot_id), change in stored_changes.items():
        units.setdefault(match_id, {})[bot_id] = change.sequence
    # A change on a game of a rotation group rates the whole group: its done, rated games.
    group_of = dict(Match.objects.filter(pk__in=list(units), group__isnull=False).values_list("pk", "group_id"))
    games_of: dict[int, list[int]] = {}
    for match_id, group_id in (Match.objects.filter(group_id__in=set(group_of.values()), status=Match.Status.DONE,
                                                    rated=True).order_by("group_index").values_list("pk", "group_id")):
        games_of.setdefault(group_id, []).append(match_id)
    wanted = set(units) | {m for games in games_of.values() for m in games}
    seats: dict[int, list] = {}
    for seat in (MatchSeat.objects.filter(match_id__in=list(wanted)).select_related("bot_version__bot")
                 .defer("log", "fault_message", *TIMING_FIELDS).order_by("match_id", "seat")):
        seats.setdefault(seat.match_id, []).append(seat)
    names = {bot_id: r.bot.name for bot_id, r in ratings.items()}
    names.update({seat.bot_version.bot_id: seat.bot_version.bot.name for rows in seats.values() for seat in rows})

    standings = {bot_id: Standing(elo=ladder.initial_rating) for bot_id in ratings}
    for match_id in application_order(units):
        games = games_of.get(group_of[match_id], []) if match_id in group_of else [match_id]
        rows = seats.get(games[0], []) if games else []
        bots = [s.bot_version.bot_id for s in rows]
        by_bot = [{s.bot_version.bot_id: s for s in seats.get(g, [])} for g in games]
        if (not games or set(bots) != set(units[match_id])
                or any(set(seated) != set(bots) or any(s.rank is None for s in seated.values()) for seated in by_bot)):
            result.differences.append(Difference(
                f"match {match_id}", "rated seats", sorted(names.get(b, b) for b in units[match_id]),
                sorted(names.get(b, b) for b in bots)))
            continue
        before = [standings.get(b, Standing(elo=ladder.initial_rating)) for b in bots]
        if match_id in group_of:
            after = standings_after_group(before, [seat_results([seated[b] for b in bots]) for seated in by_bot],
                                          solo=solo, k_factor=ladder.k_factor)
        else:
            after = standings_after_match(before, seat_results(rows), solo=solo, k_factor=ladder.k_factor)
        for bot_id, old, new in zip(bots, before, after):
            standings[bot_id] = new
            result.changes[(match_id, bot_id)] = (shown_rating(old, solo=solo), shown_rating(new, solo=solo))
        result.matches += len(games)
    result.standings = standings

    for (match_id, bot_id), (before, after) in sorted(result.changes.items()):
        change = stored_changes[(match_id, bot_id)]
        for name, stored, recomputed in (("before", change.before, before), ("after", change.after, after)):
            if _differs(stored, recomputed):
                result.differences.append(Difference(
                    f"match {match_id}, bot {names.get(bot_id, bot_id)}", name, stored, recomputed))
    for bot_id, standing in sorted(standings.items()):
        rating = ratings.get(bot_id)
        for name in STANDING_FIELDS:
            stored = getattr(rating, name) if rating else None
            if _differs(stored, getattr(standing, name)):
                result.differences.append(Difference(
                    f"bot {names.get(bot_id, bot_id)}", name, stored, getattr(standing, name)))
    unrated = (Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.DONE, group__isnull=True)
               .exclude(pk__in=list(units)).values_list("pk", flat=True))
    for match_id in unrated:
        result.differences.append(Difference(f"match {match_id}", "rating changes", "none", "one per seat"))
    # A rated group has its changes on one of its games; a group still playing has none yet.
    unrated_groups = (Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.DONE,
                                           group__rated_at__isnull=False)
                      .exclude(group_id__in=set(group_of.values())).values_list("group_id", flat=True).distinct())
    for group_id in unrated_groups:
        result.differences.append(Difference(f"group {group_id}", "rating changes", "none", "one per bot"))
    return result


def ratings_check(*, ladder: Ladder) -> Recomputation:
    """:func:`ratings_recompute` on one snapshot of the database, for a platform that keeps playing.

    A match's result and its rating changes commit together, but the recomputation reads in several
    queries: under read committed, a match recorded between two of them showed half (done, without
    its rating changes; a rating ahead of the changes read before it) and was reported as a difference.
    """
    snapshot = connection.vendor == "postgresql" and not connection.in_atomic_block  # else the caller's transaction
    with transaction.atomic():
        if snapshot:  # SQLite's transaction reads one snapshot already
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return ratings_recompute(ladder=ladder)


def ratings_fix(*, ladder: Ladder) -> Recomputation:
    """Recompute ``ladder`` with its ratings locked and write the recomputed values over the stored
    ones (ratings and rating changes). Returns the recomputation (its differences: what was fixed;
    a done match that was never rated is reported, not rated after the fact)."""
    with transaction.atomic():
        list(Rating.objects.select_for_update().filter(ladder=ladder).order_by("id"))  # hold off new results
        result = ratings_recompute(ladder=ladder)
        for bot_id, standing in result.standings.items():
            Rating.objects.update_or_create(
                ladder=ladder, bot_id=bot_id, defaults={name: getattr(standing, name) for name in STANDING_FIELDS})
        for (match_id, bot_id), (before, after) in result.changes.items():
            RatingChange.objects.filter(ladder=ladder, match_id=match_id, bot_id=bot_id).update(
                before=before, after=after)
    return result
