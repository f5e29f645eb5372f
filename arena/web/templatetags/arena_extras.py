"""Small formatting filters of the pages."""

from __future__ import annotations

import json

from django import template

register = template.Library()


@register.filter
def percent(value) -> str:
    """0.256 -> "26%"; "–" for None."""
    if value is None or value == "":
        return "–"
    return f"{float(value) * 100:.0f}%"


@register.filter
def share(part, whole) -> str:
    """part/whole as a percentage; "–" when whole is 0."""
    try:
        return percent(float(part) / float(whole)) if whole else "–"
    except (TypeError, ValueError):
        return "–"


@register.filter
def signed(value, decimals=0) -> str:
    """+12 / −3 / ±0 with ``decimals`` digits."""
    if value is None or value == "":
        return "–"
    decimals = int(decimals or 0)
    number = round(float(value), decimals)
    if number == 0:
        return "±0"
    return f"{number:+.{decimals}f}".replace("-", "−")


@register.filter
def as_json(value) -> str:
    """Game options and the like as the JSON that ``--options``, the API and a bot's start message
    use (``{"special_tiles": true}``), not as Python's repr (``{'special_tiles': True}``)."""
    return json.dumps(value)
