"""The rows of the long lists (leaderboards, match lists) written in Python.

The template language costs a few microseconds per variable and tens per filter or ``{% url %}``;
a row of 10-20 of them, 50 rows a page, made the template most of a list page's CPU. Each
function here writes what its template loop wrote (same markup, same formats: Django's own
``floatformat`` and ``date``, or the equivalents below), escaping every value.
"""

from __future__ import annotations

import html
from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.conf import settings
from django.template.defaultfilters import floatformat
from django.utils import timezone
from django.utils.safestring import mark_safe

from arena.web.templatetags.arena_extras import percent, share, signed
from arena.web.templatetags.remembered_url import remembered_reverse

register = template.Library()


def escape(value) -> str:
    """What django.utils.html.escape writes, without its check for lazy strings on every call
    (a tenth of a leaderboard's CPU): the rows' values are never lazy."""
    return html.escape(str(value))


_PLACES = [Decimal(1).scaleb(-places) for places in range(4)]


def fixed(value, places: int) -> str:
    """``value|floatformat:places`` (-3 to 3 places; negative: no decimals for a whole number)
    without its per-call localization lookups: the same half-up rounding of the decimal text,
    no "-0"; what it does not expect goes to floatformat. It relies on the site formatting
    numbers without thousands separators (USE_THOUSAND_SEPARATOR off)."""
    if settings.USE_THOUSAND_SEPARATOR or not -len(_PLACES) < places < len(_PLACES):
        return floatformat(value, places)
    try:
        number = Decimal(str(value))
    except (ArithmeticError, ValueError, TypeError):
        return floatformat(value, places)
    if not number.is_finite():
        return floatformat(value, places)
    if places <= 0 and number == number.to_integral_value():
        return f"{int(number)}"
    rounded = number.quantize(_PLACES[abs(places)], ROUND_HALF_UP)
    return f"{rounded if rounded else rounded.copy_abs():f}"


def minute(value) -> str:
    """``value|date:"Y-m-d H:i"`` (in the current time zone); "" for None."""
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M") if value else ""


def seat_results(match) -> str:
    """A listed match's seats: "<bot link> (score, #rank) fault, ..." in seat order."""
    parts = []
    for seat in match.seats.all():
        bot = seat.bot_version.bot
        part = f'<a href="{escape(remembered_reverse("web:bot_detail", bot.id))}">{escape(bot.name)}</a>'
        if seat.rank:
            part += f" ({escape(fixed(seat.score, -2))}, #{escape(seat.rank)})"
        if seat.fault_kind:
            part += f' <span class="status-failed">{escape(seat.fault_kind)}</span>'
        parts.append(part)
    return ", ".join(parts)


@register.simple_tag
def match_rows(matches) -> str:
    """The ``<tr>`` of each listed match (from ``matches_for_listing``): id and kind, ladder or
    game, status, seats, when it finished and a link to its replay."""
    out = []
    for match in matches:
        url = escape(remembered_reverse("web:match_detail", match.id))
        kind = f' <span class="muted">{escape(match.kind)}</span>' if match.kind != "ladder" else ""
        if match.ladder:
            where = (f'<a href="{escape(remembered_reverse("web:ladder_detail", match.ladder.slug))}">'
                     f"{escape(match.ladder.name)}</a>")
        else:
            where = f'<a href="{escape(remembered_reverse("web:game_detail", match.game))}">{escape(match.game)}</a>'
        finished = ""
        if match.finished_at:
            finished = escape(minute(match.finished_at))
            if match.replay_present and not getattr(match, "chance_open", False):   # see match_chance_open
                finished += f' · <a href="{url}#replay">replay</a>'
        status = escape(match.status)
        out.append(f'<tr>\n    <td><a href="{url}">#{escape(match.id)}</a>{kind}</td>\n    <td>{where}</td>\n'
                   f'    <td class="status-{status}">{status}</td>\n    <td>{seat_results(match)}</td>\n'
                   f"    <td>{finished}</td>\n  </tr>")
    return mark_safe("\n  ".join(out))


@register.simple_tag
def leaderboard_rows(rows, ranking, *, solo: bool, provisional_note: str, show_elo: bool = False) -> str:
    """The ``<tr>`` of each leaderboard entry (see ``ladder_detail``: ``row.trend``,
    ``row.rating_interval``, ``row.provisional``, ``row.paused`` are set there); ``show_elo`` adds
    the Elo after the ranking's value (when it ranks by another rating)."""
    out = []
    for row in rows:
        bot = row.bot
        cells = [f'<td class="num">{escape(row.position)}</td>']
        name = (f'<a href="{escape(remembered_reverse("web:bot_detail", bot.id))}">{escape(bot.name)}</a>'
                + (f' <span class="muted">v{escape(bot.active_version.number)}</span>'
                   f' <span class="language" data-language="{escape(bot.active_version.language)}">'
                   f'{escape(bot.active_version.get_language_display())}</span>' if bot.active_version else ""))
        badges = ""
        if row.provisional:
            badges += f'<span class="badge provisional" title="{escape(provisional_note)}">provisional</span>'
        if row.paused:
            badges += '<span class="badge paused" title="Paused from the ladders after repeated faults">paused</span>'
        elif not bot.is_active:
            badges += '<span class="badge" title="Its owner took it off the ladders">inactive</span>'
        cells.append(f"<td>{name}\n      {badges}</td>" if badges else f"<td>{name}</td>")
        owner = bot.owner.username
        cells.append(f'<td><a href="{escape(remembered_reverse("web:profile", owner))}">{escape(owner)}</a></td>')
        if row.rating_value is None:
            value = "–"
        else:
            value = escape(fixed(row.rating_value, ranking.decimals))
            if row.rating_interval is not None:
                value += f' <span class="muted">± {escape(fixed(row.rating_interval, ranking.decimals))}</span>'
        cells.append(f'<td class="num">{value}</td>')
        if show_elo:
            cells.append(f'<td class="num">{escape(fixed(row.elo, 0))}</td>')
        cells.append(f'<td class="num">{escape(row.games)}</td>')
        if not solo:
            cells.append(f'<td class="num">{escape(percent(row.win_rate_value))}</td>')
            cells.append(f'<td class="num">{escape(fixed(row.mean_rank_value, 2) or "–")}</td>')
            cells.append(f'<td class="num">{escape(fixed(row.mean_score_value, 1) or "–")}</td>')
        faults = escape(row.faults)
        if row.faults:
            faults += f' <span class="muted">({escape(share(row.faults, row.games))})</span>'
        cells.append(f'<td class="num">{faults}</td>')
        if row.trend is None:
            trend = "–"
        else:
            direction = "up" if row.trend > 0 else "down" if row.trend < 0 else ""
            trend = f'<span class="{direction}">{escape(signed(row.trend, ranking.decimals))}</span>'
        cells.append(f'<td class="num">{trend}</td>')
        cells.append(f'<td>{escape(minute(row.last_played_at) or "never")}</td>')
        out.append(f'<tr data-bot="{escape(bot.id)}">\n    ' + "\n    ".join(cells) + "\n  </tr>")
    return mark_safe("\n  ".join(out))
