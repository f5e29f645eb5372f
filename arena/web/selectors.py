"""Reads that the pages and the API share and that no service of another app provides.

Pure reads: nothing here writes to the database.
"""

from __future__ import annotations

from django.conf import settings

from engines import list_games

# One line per game: what it feels like to play (DESIGN.md's table).
GAME_SUMMARIES = {
    "deep_sea_adventure": "Shared air, push-your-luck, hidden chip values: dive for treasure "
                          "and make it back to the submarine before the air runs out.",
    "divee": "Dice combinations with re-rolls: claim the best combination card each round; "
             "a solo mode awards titles.",
    "dive_diver_die": "Hidden oxygen and duration cards, event cards and the Jewel of Zakarra.",
    "deep_dive": "Colour dice, a shark die and closed shells: dive deeper for better pearls "
                 "while the shark circles.",
    "dive": "Simultaneous secret placement; perception through stacked transparent cards.",
}


def _game_record(game) -> dict:
    return {
        "id": game.id,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "simultaneous": game.info.simultaneous,
        "chance": game.info.chance,
        "default_options": game.default_options,
        "builtin_bots": sorted(game.bots),
        "summary": GAME_SUMMARIES.get(game.id, ""),
    }


def game_list() -> list[dict]:
    """Every registered game as a plain record, sorted by id."""
    return [_game_record(game) for game in list_games()]


def game_get(*, game_id: str) -> dict | None:
    """One registered game as a plain record, or None when no such game is registered."""
    for game in list_games():
        if game.id == game_id:
            return _game_record(game)
    return None


def game_rules_text(*, game_id: str) -> str:
    """The game's rules file (``docs/rules/<id>.md``) as text; empty when it is missing."""
    if not game_id.replace("_", "").isalnum():
        return ""
    path = settings.BASE_DIR / "docs" / "rules" / f"{game_id}.md"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def matches_for_listing(queryset, *, with_logs: bool = False):
    """Matches ready to list: without their replay bytes, bot archives or (unless asked) seat
    logs, but knowing whether each has one (``replay_present``, ``log_present`` on each seat)."""
    from django.db.models import BooleanField, ExpressionWrapper, Prefetch, Q

    from arena.matches.models import MatchSeat

    deferred = ["bot_version__archive"] + ([] if with_logs else ["log"])
    seats = (MatchSeat.objects.select_related("bot_version__bot").defer(*deferred)
             .annotate(log_present=ExpressionWrapper(~Q(log=""), output_field=BooleanField()))
             .order_by("seat"))
    return (queryset.defer("replay").prefetch_related(None)
            .prefetch_related(Prefetch("seats", queryset=seats))
            .annotate(replay_present=ExpressionWrapper(Q(replay__isnull=False), output_field=BooleanField())))
