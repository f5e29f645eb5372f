"""Reads shared by the tournament pages, the API and the services: games, standings, progress."""

from __future__ import annotations

from django.db.models import Count, Q

from arena.matches.models import Match, MatchSeat
from arena.tournaments.models import Entrant, Round, Table, Tournament
from competition.formats.standings import GameResult, Row, default_points, standings, table_results


def tournament_points(tournament: Tournament) -> list[float]:
    """Its points by rank, best first (the default k-1, ..., 0 when none were given)."""
    return [float(p) for p in tournament.points] if tournament.points else default_points(tournament.seat_count)


def _games(matches, tables: dict[int, Table]) -> list[GameResult]:
    """The played games as plain results, each seat named by its entrant (through its table)."""
    results = []
    seats_by_match: dict[int, list[MatchSeat]] = {}
    for seat in MatchSeat.objects.filter(match__in=matches).order_by("match_id", "seat"):
        seats_by_match.setdefault(seat.match_id, []).append(seat)
    for match_id, group_id in matches.values_list("pk", "group_id"):
        table = tables.get(group_id)
        seats = seats_by_match.get(match_id, [])
        if table is None or not seats or any(s.rank is None for s in seats):
            continue
        entrant_of = dict(zip(table.version_ids, table.entrant_ids))
        results.append(GameResult(
            table=table.pk, entrants=tuple(entrant_of[s.bot_version_id] for s in seats),
            ranks=tuple(s.rank for s in seats), scores=tuple(s.score or 0.0 for s in seats),
            faulted=tuple(s.faulted for s in seats)))
    return results


def round_games(round_: Round) -> list[GameResult]:
    """The played games of one round."""
    tables = {t.group_id: t for t in round_.tables.all()}
    matches = Match.objects.filter(group_id__in=tables, status=Match.Status.DONE)
    return _games(matches, tables)


def tournament_games(tournament: Tournament) -> tuple[dict[int, Table], list[GameResult]]:
    """Every table of the tournament (by group id) and every played game."""
    tables = {t.group_id: t for t in Table.objects.filter(round__tournament=tournament)}
    matches = Match.objects.filter(group_id__in=tables, status=Match.Status.DONE)
    return tables, _games(matches, tables)


def tournament_standings(tournament: Tournament, *, live: bool = False, rows_only: bool = False) -> list[Row]:
    """The standings, best first. A finished tournament shows the standings stored at its finish
    (``live`` recomputes them). Rows carry ``name``, ``bot_id``, ``seed``, ``rating`` and
    ``eliminated_in`` besides the figures of ``standings.Row``."""

    entrants = {e.pk: e for e in tournament.entrants.all()}
    if tournament.final_standings is not None and not live and not rows_only:
        rows = []
        for stored in tournament.final_standings:
            row = Row(entrant=stored["entrant"], position=stored["position"], points=stored["points"],
                      games=stored["games"], rank_sum=stored["rank_sum"], faults=stored["faults"], buchholz=stored["buchholz"],
                      score=stored["score"], head_to_head=stored["head_to_head"], tables=stored["tables"])
            row.last_table = stored.get("last_table")   # elimination: the result its order reads
            rows.append(_named(row, entrants.get(row.entrant), stored.get("name", "")))
        return rows
    tables, games = tournament_games(tournament)
    rows = standings(list(entrants), {t.pk: t.entrant_ids for t in tables.values()}, games,
                     tournament_points(tournament), solo=tournament.is_solo)
    if tournament.format == Tournament.Format.ELIMINATION:
        rows = _elimination_order(tournament, rows, entrants, tables)
    return [_named(r, entrants.get(r.entrant), "") for r in rows]


def _elimination_order(tournament, rows: list[Row], entrants: dict[int, Entrant], tables) -> list[Row]:
    """Elimination ranks by the round reached, then by the result at the last table played, then seed."""
    last_round = {}
    for table in sorted(tables.values(), key=lambda t: (t.round_id, t.index)):
        for e in table.entrant_ids:
            last_round[e] = table.pk
    beyond = (tournament.rounds or 0) + 1

    def key(row: Row):
        entrant = entrants[row.entrant]
        reached = entrant.eliminated_in if entrant.eliminated_in is not None else beyond
        return (-reached, -row.table_points.get(last_round.get(row.entrant), 0.0), entrant.seed or 10**9)

    ordered = sorted(rows, key=key)
    for i, row in enumerate(ordered):
        row.position = i + 1
        # Shown beside "out in" (the page orders by the two columns it shows).
        row.last_table = row.table_points.get(last_round.get(row.entrant)) if row.entrant in last_round else None
    return ordered


def _named(row: Row, entrant: Entrant | None, name: str) -> Row:
    row.name = entrant.name if entrant else name
    row.bot_id = entrant.bot_id if entrant else None
    row.seed = entrant.seed if entrant else None
    row.rating = entrant.rating if entrant else None
    row.eliminated_in = entrant.eliminated_in if entrant else None
    return row


def tournament_progress(tournament: Tournament) -> dict:
    """Games done (failed ones apart) out of the games paired so far, and rounds played of planned."""
    counts = Match.objects.filter(group__tournament_table__round__tournament=tournament).aggregate(
        total=Count("pk"), done=Count("pk", filter=Q(status=Match.Status.DONE)),
        failed=Count("pk", filter=Q(status=Match.Status.FAILED)),
        running=Count("pk", filter=Q(status=Match.Status.RUNNING)))
    expected = sum(t.group.size for t in Table.objects.filter(round__tournament=tournament).select_related("group"))
    rounds_done = tournament.round_set.filter(finished_at__isnull=False).count()
    return {"matches_total": expected, "matches_done": counts["done"], "matches_failed": counts["failed"],
            "matches_running": counts["running"], "rounds_done": rounds_done, "rounds_total": tournament.rounds,
            "rounds_paired": tournament.round_set.count()}


def tournament_rounds(tournament: Tournament, *, viewer=None) -> list[dict]:
    """Each round with its tables, and each table's games (match id, status, seats by entrant).

    A round's seed is every game's seed of the round: like a match's, it stays private (None) until
    every game of the round is done, except for staff."""
    entrants = {e.pk: e for e in tournament.entrants.all()}
    rounds = list(tournament.round_set.prefetch_related("tables"))
    group_ids = [t.group_id for r in rounds for t in r.tables.all()]
    matches: dict[int, list[Match]] = {}
    for match in Match.objects.filter(group_id__in=group_ids).defer("replay").order_by("group_index"):
        match.faults = []
        matches.setdefault(match.group_id, []).append(match)
    by_id = {m.pk: m for games in matches.values() for m in games}
    # Faults are public once a game is recorded (as on its match page); each links to its step.
    for fault in (MatchSeat.objects.filter(match_id__in=by_id, fault_kind__gt="")
                  .values("match_id", "seat", "fault_kind", "fault_step", "bot_version__bot__name")
                  .order_by("match_id", "seat")):
        by_id[fault["match_id"]].faults.append({
            "seat": fault["seat"], "kind": fault["fault_kind"], "step": fault["fault_step"],
            "bot": fault["bot_version__bot__name"]})

    out = []
    for round_ in rounds:
        results = table_results(round_games(round_), tournament_points(tournament))
        tables = []
        for table in round_.tables.all():
            tables.append({
                "index": table.index, "table": table,
                "entrants": [{"id": e, "name": entrants[e].name if e in entrants else "?",
                              "bot_id": entrants[e].bot_id if e in entrants else None,
                              "result": results.get(table.pk, {}).get(e)} for e in table.entrant_ids],
                "matches": matches.get(table.group_id, [])})
        games = [m for t in tables for m in t["matches"]]
        all_done = bool(games) and all(m.status == Match.Status.DONE for m in games)
        staff = bool(viewer is not None and getattr(viewer, "is_staff", False))
        out.append({"round": round_, "number": round_.number, "seed": round_.seed if all_done or staff else None, "finished": bool(round_.finished_at),
                    "byes": [entrants[e].name for e in round_.byes if e in entrants],
                    "forfeits": [entrants[e].name for e in round_.forfeits if e in entrants], "tables": tables})
    return out


def tournaments_of_bot(bot) -> list[Tournament]:
    """The tournaments a bot entered, newest first."""
    return list(Tournament.objects.filter(entrants__bot=bot).distinct().order_by("-start_at", "-id"))


def tournament_matches(tournament: Tournament):
    """The tournament's matches (a queryset, for keyset pagination on id)."""
    return Match.objects.filter(group__tournament_table__round__tournament=tournament)
