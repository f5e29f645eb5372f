"""Tournament services: create (validated), start, pause, resume, cancel, re-run, extend, advance.

Every write takes a row lock on the tournament first (``select_for_update``), so two admins, a
beat tick and a match-completion hook never pair a round twice; each illegal transition is a
ValidationError with a sentence saying why, and changes nothing.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Ladder, Rating
from arena.ladders.services import ladder_validate
from arena.matches.models import MAX_SEED, Match, MatchGroup
from arena.matches.services import match_create, match_group_create, match_groups_close, match_requeue
from arena.tournaments.models import Entrant, Round, Table, Tournament
from arena.tournaments.selectors import round_games, tournament_points, tournament_standings
from competition import formats
from competition.formats.standings import advancers, table_results
from competition.rotation import MAX_ALL_ORDERS_SEATS, seat_orders
from engines import get_game

FINISHED = (Match.Status.DONE, Match.Status.FAILED)

log = logging.getLogger(__name__)


def min_seats(*, game: str, seat_count: int) -> int:
    """The smallest table a round may seat: the game's minimum, never more than k."""
    return min(get_game(game).min_players, seat_count)


def tournament_validate(*, name: str, slug: str, game: str, seat_count: int, format: str,
                        bots: Sequence[Bot] = (), entry: str = Tournament.Entry.PICKED, ladder: Ladder | None = None,
                        options: dict | None = None, rounds: int | None = None, advance: int | None = None,
                        orders: str = Tournament.Orders.CYCLIC, points: Sequence[float] | None = None) -> None:
    """Raise ValidationError (with a code naming the field) for any setup that cannot be played: the
    first of :func:`tournament_problems`."""
    problems = tournament_problems(
        name=name, slug=slug, game=game, seat_count=seat_count, format=format, bots=bots, entry=entry, ladder=ladder,
        options=options, rounds=rounds, advance=advance, orders=orders, points=points)
    if problems:
        raise problems[0]


def tournament_problems(*, name: str, slug: str, game: str, seat_count: int, format: str, bots: Sequence[Bot] = (),
                        entry: str = Tournament.Entry.PICKED, ladder: Ladder | None = None, options: dict | None = None,
                        rounds: int | None = None, advance: int | None = None, orders: str = Tournament.Orders.CYCLIC,
                        points: Sequence[float] | None = None) -> list[ValidationError]:
    """Every independent problem of a setup (each a ValidationError whose code names its field), so
    that a form shows them all at once; checks that need a valid game and seat count are skipped
    while those are wrong."""
    setup = {"name": name, "slug": slug, "game": game, "seat_count": seat_count, "format": format, "bots": bots,
             "entry": entry, "ladder": ladder, "options": options, "rounds": rounds, "advance": advance,
             "orders": orders, "points": points}
    problems = []
    for check in _CHECKS:
        if check in _NEED_GAME and any(p.code in _GAME_CODES for p in problems):
            continue
        try:
            check(**setup)
        except ValidationError as exc:
            problems.append(exc)
    return problems


def _check_name(*, name, **_) -> None:
    if not name.strip():
        raise ValidationError("A tournament needs a name.", code="name")


def _check_slug(*, slug, **_) -> None:
    if not slug:
        raise ValidationError("A tournament needs a slug (letters, digits, '-').", code="slug")
    if Tournament.objects.filter(slug=slug).exists():
        raise ValidationError(f"A tournament with slug {slug!r} exists already.", code="slug")


def _check_game(*, game, seat_count, options, **_) -> None:
    ladder_validate(game=game, seat_count=seat_count, options=options)


def _check_format(*, seat_count, format, rounds, advance, **_) -> None:
    if format not in Tournament.Format.values:
        raise ValidationError(f"Unknown format {format!r}: one of {', '.join(Tournament.Format.values)}.",
                              code="format")
    if format == Tournament.Format.ELIMINATION:
        if advance is None or advance < 1 or advance >= seat_count:
            raise ValidationError(
                f"Elimination advances m of each table's {seat_count} seats: m must be between 1 and "
                f"{seat_count - 1} (m < k), not {advance}.", code="advance")
    elif rounds is None or rounds < 1:
        raise ValidationError(f"A {Tournament.Format(format).label} needs at least one round, not {rounds}.",
                              code="rounds")


def _check_orders(*, seat_count, orders, **_) -> None:
    if orders not in Tournament.Orders.values:
        raise ValidationError(f"Unknown games-per-table mode {orders!r}.", code="orders")
    if orders == Tournament.Orders.ALL and seat_count > MAX_ALL_ORDERS_SEATS:
        raise ValidationError(f"All seat orders are offered up to {MAX_ALL_ORDERS_SEATS} seats, not {seat_count} "
                              f"({seat_count}! games a table).", code="orders")


def _check_points(*, seat_count, points, **_) -> None:
    if points:
        if len(points) != seat_count or not all(isinstance(p, (int, float)) and not isinstance(p, bool)
                                                for p in points):
            raise ValidationError(f"Points by rank need {seat_count} numbers (one per place), not {list(points)}.",
                                  code="points")
        if any(a < b for a, b in zip(points, points[1:])):
            raise ValidationError("Points by rank must not grow from a place to the next (best place first).",
                                  code="points")


def _check_entry(*, game, seat_count, format, bots, entry, ladder, advance, **_) -> None:
    if entry == Tournament.Entry.LADDER:
        if ladder is None:
            raise ValidationError("Entry 'all ready bots of a ladder' needs the ladder.", code="ladder")
        if ladder.game != game:
            raise ValidationError(f"Ladder {ladder.slug} plays {ladder.game}, not {game}.", code="ladder")
        if bots:
            raise ValidationError("Pick bots or take a ladder's bots, not both.", code="bots")
        return
    if entry != Tournament.Entry.PICKED:
        raise ValidationError(f"Unknown entry {entry!r}.", code="entry")
    if ladder is not None and ladder.game != game:
        raise ValidationError(f"Ladder {ladder.slug} plays {ladder.game}, not {game}.", code="ladder")
    names = [b.name for b in bots]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValidationError(f"A bot enters once: {', '.join(twice)} is picked twice.", code="bots")
    other = [f"{b.name} ({b.game})" for b in bots if b.game != game]
    if other:
        raise ValidationError(f"These bots play another game than {game}: {', '.join(other)}.", code="bots")
    unready = [b.name for b in bots if b.active_version_id is None
               or b.active_version.status != BotVersion.Status.READY]
    if unready:
        raise ValidationError(f"These bots have no ready version: {', '.join(unready)}.", code="bots")
    if len(bots) < seat_count:
        raise ValidationError(f"{len(bots)} entrants cannot fill one table of {seat_count} seats.", code="bots")
    if format == Tournament.Format.ELIMINATION and advance is not None and 1 <= advance < seat_count:
        try:
            formats.elimination_plan(len(bots), seat_count, advance,
                                     min_seats=min_seats(game=game, seat_count=seat_count))
        except ValueError as exc:
            raise ValidationError(f"This bracket cannot be played: {exc}.", code="advance") from None


_CHECKS = (_check_name, _check_slug, _check_game, _check_format, _check_orders, _check_points, _check_entry)
_NEED_GAME = (_check_points, _check_entry, _check_format)
_GAME_CODES = ("unknown_game", "seat_count", "options", "rotation", "wrong_game")  # ladder_validate's


def tournament_create(*, name: str, game: str, seat_count: int, format: str, start_at=None, slug: str = "",
                      bots: Sequence[Bot] = (), entry: str = Tournament.Entry.PICKED, ladder: Ladder | None = None,
                      options: dict | None = None, rounds: int | None = None, advance: int | None = None,
                      orders: str = Tournament.Orders.CYCLIC, points: Sequence[float] | None = None,
                      freeze_versions: bool = True, created_by: AbstractBaseUser | None = None) -> Tournament:
    """Validate and store a scheduled tournament with its picked entrants; nothing is stored on error."""
    slug = slug or slugify(name)[:60]
    bots = list(bots)
    tournament_validate(name=name, slug=slug, game=game, seat_count=seat_count, format=format, bots=bots,
                        entry=entry, ladder=ladder, options=options, rounds=rounds, advance=advance, orders=orders,
                        points=points)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name.strip(), slug=slug, game=game, seat_count=seat_count, options=options or {}, format=format,
            rounds=None if format == Tournament.Format.ELIMINATION else rounds,
            advance=advance if format == Tournament.Format.ELIMINATION else None, orders=orders,
            points=[float(p) for p in points] if points else [], entry=entry, ladder=ladder,
            freeze_versions=freeze_versions, start_at=start_at or timezone.now(), created_by=created_by)
        Entrant.objects.bulk_create([Entrant(tournament=tournament, bot=b, name=b.name) for b in bots])
    return tournament


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise ValidationError("No such tournament.", code="missing")
    return tournament


def _illegal(tournament: Tournament, verb: str) -> ValidationError:
    return ValidationError(f"{tournament.name} is {tournament.status}: it cannot {verb}.", code="status")


# --- starting ------------------------------------------------------------------------------------

def tournament_start(*, tournament_id: int, now=None) -> Tournament:
    """Start a scheduled tournament now: enter, freeze versions, seed, pair the first round.

    Raises ValidationError for a tournament that is not scheduled, or that has too few entrants
    able to play at this moment (it then stays scheduled)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.SCHEDULED:
            raise _illegal(tournament, "start")
        _begin(tournament, now)
    return tournament


def tournaments_claim_due(*, now=None) -> list[int]:
    """Start every scheduled tournament whose time has come. The claim is a conditional update
    (scheduled and due -> running), so a late or doubled beat starts each one once. One that cannot
    start (too few entrants able to play) is cancelled with the reason in its note."""
    now = now or timezone.now()
    started = []
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, start_at__lte=now).values_list("pk", flat=True)
    for pk in list(due):
        try:
            with transaction.atomic():
                if Tournament.objects.filter(pk=pk, status=Tournament.Status.SCHEDULED, start_at__lte=now).update(
                        status=Tournament.Status.RUNNING, started_at=now) != 1:
                    continue
                _begin(_locked(pk), now)
            started.append(pk)
        except ValidationError as exc:
            Tournament.objects.filter(pk=pk, status=Tournament.Status.SCHEDULED).update(
                status=Tournament.Status.CANCELLED, finished_at=now, note=f"could not start: {' '.join(exc.messages)}")
    return started


def _rating_ladder(tournament: Tournament) -> Ladder | None:
    if tournament.ladder_id:
        return tournament.ladder
    return Ladder.objects.filter(game=tournament.game, seat_count=tournament.seat_count).order_by("-active", "id").first()


def _begin(tournament: Tournament, now) -> None:
    """Enter (ladder entry), freeze versions, seed by rating, plan; then pair round 1."""
    if tournament.entry == Tournament.Entry.LADDER:
        bots = Bot.objects.filter(ratings__ladder_id=tournament.ladder_id, is_active=True, game=tournament.game,
                                  active_version__status=BotVersion.Status.READY).order_by("name")
        Entrant.objects.bulk_create([Entrant(tournament=tournament, bot=b, name=b.name) for b in bots],
                                    ignore_conflicts=True)
    entrants = list(tournament.entrants.select_related("bot__active_version"))
    ladder = _rating_ladder(tournament)
    ratings = dict(Rating.objects.filter(ladder=ladder, bot__in=[e.bot_id for e in entrants if e.bot_id])
                   .values_list("bot_id", "elo")) if ladder else {}
    for entrant in entrants:
        active = entrant.bot.active_version if entrant.bot else None
        entrant.version = active if active and active.status == BotVersion.Status.READY else None
        entrant.rating = ratings.get(entrant.bot_id)
    entrants.sort(key=lambda e: (e.rating is None, -(e.rating or 0.0), e.name.lower(), e.pk))
    for seed, entrant in enumerate(entrants, start=1):
        entrant.seed = seed
    Entrant.objects.bulk_update(entrants, ["version", "rating", "seed"])
    playable = [e for e in entrants if e.version_id]
    k = tournament.seat_count
    if len(playable) < k:
        raise ValidationError(f"{len(playable)} entrants with a ready version cannot fill one table of {k} seats.",
                              code="bots")

    fewest = min_seats(game=tournament.game, seat_count=k)
    ids = [e.pk for e in entrants]
    try:
        if tournament.format == Tournament.Format.ROUND_ROBIN:
            tournament.plan = [[list(t) for t in r] for r in
                               formats.round_robin(ids, k, tournament.rounds, min_seats=fewest)]
        elif tournament.format == Tournament.Format.ELIMINATION:
            tournament.rounds = len(formats.elimination_plan(len(playable), k, tournament.advance,
                                                             min_seats=fewest))
    except ValueError as exc:
        raise ValidationError(f"These entrants cannot be paired: {exc}.", code="bots") from None
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = tournament.started_at or now
    tournament.save(update_fields=["plan", "rounds", "status", "started_at"])
    _advance(tournament, now)


# --- advancing -----------------------------------------------------------------------------------

def _round_matches(round_: Round):
    return Match.objects.filter(group__tournament_table__round=round_)


def round_is_finished(round_: Round) -> bool:
    """Every game of every table of the round is done or failed for good (none waiting, none deleted
    by a pause and not yet re-created)."""
    expected = sum(t.group.size for t in round_.tables.select_related("group"))
    finished = _round_matches(round_).filter(status__in=FINISHED).count()
    return finished >= expected


def tournament_advance(*, tournament_id: int, now=None) -> str:
    """Pair the next round when the current one has finished, or finish the tournament after its
    last round. Idempotent (under the row lock): run twice, it pairs once. Returns what it did."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return "idle"
        return _advance(tournament, now)


def _advance(tournament: Tournament, now) -> str:
    current = tournament.round_set.order_by("-number").first()
    if current is not None:
        # A re-run game of an earlier round counts as well: its result may change the pairing, and
        # a finished tournament stores its standings only once it has been played.
        if not round_is_finished(current) or Match.objects.filter(
                group__tournament_table__round__tournament=tournament).exclude(status__in=FINISHED).exists():
            return "waiting"
        if current.finished_at is None:
            current.finished_at = now
            current.save(update_fields=["finished_at"])
            if tournament.format == Tournament.Format.ELIMINATION:
                _eliminate(tournament, current)
    number = current.number + 1 if current else 1
    if number > (tournament.rounds or 0) or _elimination_over(tournament, current):
        _finish(tournament, now)
        return "finished"
    try:
        _pair(tournament, number)
    except ValueError as exc:
        # Forfeits left too few entrants to seat a table: what was played stands.
        tournament.note = f"ended after round {number - 1}: {exc}"
        tournament.save(update_fields=["note"])
        _finish(tournament, now)
        return "finished"
    return f"paired round {number}"


def _elimination_over(tournament: Tournament, current: Round | None) -> bool:
    if tournament.format != Tournament.Format.ELIMINATION or current is None:
        return False
    alive = tournament.entrants.filter(eliminated_in__isnull=True, version__isnull=False).count()
    return current.tables.count() <= 1 and not current.byes or alive <= 1


def _eliminate(tournament: Tournament, round_: Round) -> None:
    """Mark the entrants of the round's tables that did not advance (the top m of each table do)."""
    games = round_games(round_)
    results = table_results(games, tournament_points(tournament))
    scores: dict[int, dict[int, float]] = {}
    for game in games:
        for seat, entrant in enumerate(game.entrants):
            scores.setdefault(game.table, {}).setdefault(entrant, 0.0)
            scores[game.table][entrant] += game.scores[seat]
    seeds = dict(tournament.entrants.values_list("pk", "seed"))
    final = round_.tables.count() <= 1 and not round_.byes
    out = list(round_.forfeits)
    for table in round_.tables.all():
        members = list(table.entrant_ids)
        keep = set(members if final else advancers(members, results.get(table.pk, {}), scores.get(table.pk, {}),
                                                   seeds, tournament.advance))
        out += [e for e in members if e not in keep]
    tournament.entrants.filter(pk__in=out, eliminated_in__isnull=True).update(eliminated_in=round_.number)


def _playing_version(entrant: Entrant, tournament: Tournament) -> BotVersion | None:
    """The version that plays the entrant's next games: the frozen one; without freezing, the bot's
    active version while it is ready. None when there is none (deleted bot and version): a forfeit."""
    if not tournament.freeze_versions and entrant.bot is not None:
        active = entrant.bot.active_version
        if active is not None and active.status == BotVersion.Status.READY:
            return active
    version = entrant.version
    return version if version is not None and version.status == BotVersion.Status.READY else None


def _pair(tournament: Tournament, number: int) -> Round:
    """Create round ``number``: its tables from the format's pairing, one rotation group each."""
    k = tournament.seat_count
    fewest = min_seats(game=tournament.game, seat_count=k)
    entrants = list(tournament.entrants.select_related("bot__active_version", "version__bot"))
    in_play = [e for e in entrants if e.eliminated_in is None]
    versions = {e.pk: _playing_version(e, tournament) for e in in_play}
    playing = [e for e in in_play if versions[e.pk] is not None]
    playing_ids = {e.pk for e in playing}
    forfeits = sorted(e.pk for e in in_play if versions[e.pk] is None)
    if len(playing) < fewest:
        raise ValueError(f"{len(playing)} entrant(s) left with a version to play, fewer than a table's {fewest}")
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        planned = tournament.plan[number - 1]
        tables = []
        for table in planned:
            kept = tuple(e for e in table if e in playing_ids)
            if len(kept) >= fewest:
                tables.append(kept)
    elif tournament.format == Tournament.Format.SWISS:
        rows = {r.entrant: r for r in tournament_standings(tournament, rows_only=True)}
        by_id = {e.pk: e for e in playing}
        ranked = sorted(playing_ids, key=lambda pk: (-rows[pk].points if pk in rows else 0.0,
                                                     -(by_id[pk].rating or 0.0), by_id[pk].seed or 0, pk))
        meetings: Counter = Counter()
        byes_had: set[int] = set()
        for past in tournament.round_set.prefetch_related("tables"):
            byes_had.update(past.byes)
            for table in past.tables.all():
                members = list(table.entrant_ids)
                for i, a in enumerate(members):
                    for b in members[i + 1:]:
                        meetings[frozenset((a, b))] += 1
        tables = formats.swiss_round(ranked, dict(meetings), k, min_seats=fewest, byes_had=byes_had)
    else:
        seeded = sorted(playing, key=lambda e: (e.seed or 0, e.pk))
        tables = formats.elimination_round([e.pk for e in seeded], k, min_seats=fewest, m=tournament.advance)
    seated = {e for t in tables for e in t}
    byes = sorted(playing_ids - seated)
    seed = secrets.randbelow(MAX_SEED + 1)
    round_ = Round.objects.create(tournament=tournament, number=number, seed=seed, byes=byes, forfeits=forfeits)
    for index, table in enumerate(tables):
        table_versions = [versions[e] for e in table]
        # Every table plays the round's seed (a solo round ranks everyone on one deal; a round of
        # tables is a duplicate across tables): the tables share chance, so no game of the round is
        # public before all are played (arena.matches.selectors.match_chance_open).
        matches = match_group_create(game=tournament.game, versions=table_versions, seed=seed,
                                     options=tournament.options or None, kind=Match.Kind.TOURNAMENT,
                                     all_orders=tournament.orders == Tournament.Orders.ALL,
                                     chance_set=f"tournament-round:{round_.pk}")
        Table.objects.create(round=round_, index=index, entrant_ids=list(table),
                             version_ids=[v.pk for v in table_versions], group_id=matches[0].group_id)
    return round_


def _finish(tournament: Tournament, now, status: str = Tournament.Status.FINISHED) -> None:

    tournament.status = status
    tournament.finished_at = now
    tournament.final_standings = [r.as_dict() | {"name": r.name, "last_table": getattr(r, "last_table", None)}
                                  for r in tournament_standings(tournament, live=True)]
    tournament.save(update_fields=["status", "finished_at", "final_standings"])


# --- admin actions -------------------------------------------------------------------------------

def _drop_unclaimed_matches(tournament: Tournament) -> int:
    """Delete the tournament's games no worker has claimed yet; the table keeps what re-creates them.

    The rows are locked first: a worker's claim (a conditional update of a queued row) waits for
    this transaction and then finds nothing, and a game claimed just before is no longer queued
    when the lock is taken, so it is left to finish."""
    queued = Match.objects.select_for_update().filter(
        group__tournament_table__round__tournament=tournament, status=Match.Status.QUEUED)
    ids = list(queued.values_list("pk", flat=True))
    Match.objects.filter(pk__in=ids).delete()
    return len(ids)


def _recreate_missing_matches(tournament: Tournament) -> int:
    """Re-create the games a pause deleted: same group, seed, seat order and versions."""
    current = tournament.round_set.order_by("-number").first()
    if current is None:
        return 0
    created = 0
    for table in current.tables.select_related("group"):
        group: MatchGroup = table.group
        present = set(Match.objects.filter(group=group).values_list("group_index", flat=True))
        versions = {v.pk: v for v in BotVersion.objects.filter(pk__in=table.version_ids).select_related("bot")}
        table_versions = [versions[pk] for pk in table.version_ids]
        orders = seat_orders(len(table_versions), all_orders=tournament.orders == Tournament.Orders.ALL)
        for index, order in enumerate(orders):
            if index not in present:
                match_create(game=tournament.game, versions=[table_versions[i] for i in order], seed=group.seed,
                             options=tournament.options or None, kind=Match.Kind.TOURNAMENT, group=group,
                             group_index=index)
                created += 1
    return created


def tournament_pause(*, tournament_id: int) -> Tournament:
    """Pause a running tournament: its running games finish, nothing new is sent (its queued games
    are withdrawn until it resumes) and no round is paired."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            raise _illegal(tournament, "be paused (only a running tournament can)")
        _drop_unclaimed_matches(tournament)
        tournament.status = Tournament.Status.PAUSED
        tournament.save(update_fields=["status"])
    return tournament


def tournament_resume(*, tournament_id: int, now=None) -> Tournament:
    """Resume a paused tournament: its withdrawn games are queued again, and it advances."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.PAUSED:
            raise _illegal(tournament, "be resumed (only a paused tournament can)")
        tournament.status = Tournament.Status.RUNNING
        tournament.save(update_fields=["status"])
        _recreate_missing_matches(tournament)
        _advance(tournament, now or timezone.now())
    return tournament


def tournament_cancel(*, tournament_id: int, now=None) -> Tournament:
    """Cancel a scheduled, running or paused tournament: its unclaimed games are withdrawn, running
    ones finish; the standings so far are stored."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.is_over:
            raise _illegal(tournament, "be cancelled")
        _drop_unclaimed_matches(tournament)
        # The withdrawn games will never be played: their groups close on the games they have.
        match_groups_close(group_ids=MatchGroup.objects.filter(
            tournament_table__round__tournament=tournament, finished_at__isnull=True).values_list("pk", flat=True))
        if tournament.status == Tournament.Status.SCHEDULED:
            tournament.status = Tournament.Status.CANCELLED
            tournament.finished_at = now
            tournament.save(update_fields=["status", "finished_at"])
        else:
            _finish(tournament, now, status=Tournament.Status.CANCELLED)
    return tournament


def tournament_rerun_failed(*, tournament_id: int, round_number: int) -> list[int]:
    """Queue the failed games of round ``round_number`` again (same seed, same seats, never rated).

    A finished tournament runs again until they are played, then finishes with its standings
    recomputed. Returns the ids re-queued; ValidationError when there is nothing to re-run."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status not in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
            raise _illegal(tournament, "re-run games (resume it first)" if tournament.status == "paused"
                           else "re-run games")
        round_ = tournament.round_set.filter(number=round_number).first()
        if round_ is None:
            raise ValidationError(f"{tournament.name} has no round {round_number}.", code="round")
        failed = list(_round_matches(round_).filter(status=Match.Status.FAILED).values_list("pk", flat=True))
        if not failed:
            raise ValidationError(f"Round {round_number} of {tournament.name} has no failed game.", code="round")
        requeued = [pk for pk in failed if match_requeue(match_id=pk)]
        if tournament.status == Tournament.Status.FINISHED:
            tournament.status = Tournament.Status.RUNNING
            tournament.finished_at = None
            tournament.final_standings = None
            tournament.save(update_fields=["status", "finished_at", "final_standings"])
    return requeued


def tournament_extend(*, tournament_id: int) -> Tournament:
    """Add a round to a Swiss (a finished one runs again to play it)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.format != Tournament.Format.SWISS:
            raise ValidationError(f"Only a Swiss can be extended by a round; {tournament.name} is a "
                                  f"{tournament.get_format_display()}.", code="format")
        if tournament.status not in (Tournament.Status.RUNNING, Tournament.Status.PAUSED,
                                     Tournament.Status.FINISHED):
            raise _illegal(tournament, "be extended")
        tournament.rounds = (tournament.rounds or 0) + 1
        fields = ["rounds"]
        if tournament.status == Tournament.Status.FINISHED:
            tournament.status = Tournament.Status.RUNNING
            tournament.finished_at = None
            tournament.final_standings = None
            fields += ["status", "finished_at", "final_standings"]
        tournament.save(update_fields=fields)
        if tournament.status == Tournament.Status.RUNNING:
            _advance(tournament, timezone.now())
    return tournament


def tournaments_tick(*, now=None) -> dict:
    """The beat: start due tournaments, then advance every running one whose round has finished."""
    now = now or timezone.now()
    started = tournaments_claim_due(now=now)
    advanced = {}
    for pk in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True):
        try:
            result = tournament_advance(tournament_id=pk, now=now)
        except Exception:  # one broken tournament must not stop the others' rounds
            log.exception("tournament %s could not advance", pk)
            continue
        if result not in ("waiting", "idle"):
            advanced[pk] = result
    return {"started": started, "advanced": advanced}


def tournament_of_match(*, match_id: int) -> int | None:
    """The tournament a match belongs to (None for ladder and challenge matches)."""
    return (Table.objects.filter(group__matches__pk=match_id).values_list("round__tournament_id", flat=True)
            .first())

