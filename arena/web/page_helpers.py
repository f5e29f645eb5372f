"""What the page views share: paging, the forms' throttles and errors, the rows bots are listed with."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator

from arena.api.throttles import UploadThrottle
from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match
from arena.web.selectors import matches_for_listing
from workers.viewer import VIEWER_SCRIPTS, VIEWER_STYLES, game_legend

PAGE_SIZE = 50
RECENT_MATCHES = 20
ACTIVE = (Match.Status.QUEUED, Match.Status.RUNNING)

# Which form field a service's ValidationError code belongs to (the rest concern the file).
BOT_FIELDS = {"invalid": "name", "name_taken": "name", "unknown_game": "game"}


def paginate(request, items, size: int | None = None):
    return Paginator(items, size or PAGE_SIZE).get_page(request.GET.get("page"))


def page_number(paginator: Paginator, asked) -> int:
    """The page ``Paginator.get_page(asked)`` would show (the first for a bad number, the last past
    the end), without reading it."""
    try:
        return paginator.validate_number(asked)
    except PageNotAnInteger:
        return 1
    except EmptyPage:
        return paginator.num_pages


def throttled_message(request, throttle, what: str) -> str | None:
    """The API's throttle, applied to the forms too: a message when over the rate."""
    if throttle.allow_request(request, None):
        return None
    wait = throttle.wait()
    return f"Too many {what}: try again in {int(wait) + 1} seconds." if wait else f"Too many {what}."


def upload_throttled(request) -> str | None:
    return throttled_message(request, UploadThrottle(), "uploads")


def form_error(form, exc: ValidationError, fields: dict[str, str], default: str) -> None:
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return
    form.add_error(fields.get(getattr(exc, "code", None), default), exc.messages)


def bot_rows():
    """Bots as the pages list them: no archives, no owners' password hashes."""
    return (Bot.objects.select_related("owner", "active_version")
            .only("id", "name", "game", "description", "builtin", "is_active", "created_at", "owner_id",
                  "owner__id", "owner__username", "active_version__id", "active_version__number",
                  "active_version__status", "active_version__paused_at", "active_version__pause_reason"))


def latest_versions(bot_ids) -> dict[int, BotVersion]:
    """The newest version of each bot (one query)."""
    latest = {}
    for version in (BotVersion.objects.filter(bot_id__in=list(bot_ids))
                    .only("id", "bot_id", "number", "status", "created_at", "paused_at")
                    .order_by("bot_id", "-number")):
        latest.setdefault(version.bot_id, version)
    return latest


def matches_by_ids(ids, *, with_logs: bool = False) -> list[Match]:
    """These matches, newest first, ready to list."""
    return list(matches_for_listing(Match.objects.filter(pk__in=list(ids)).select_related("ladder")
                                    .order_by("-created_at", "-id"), with_logs=with_logs, with_timing=False))


def viewer_context(game: str) -> dict:
    """What the replay viewer needs on a page: its scripts, styles and the game's legend."""
    try:
        legend = game_legend(game)
    except KeyError:
        legend = {}  # the viewer says which game it does not know
    return {"legend": legend, "scripts": VIEWER_SCRIPTS, "styles": VIEWER_STYLES}
