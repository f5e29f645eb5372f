"""Luck on the pages (docs/luck.md): ``{% bot_luck bot as luck %}`` gives a bot's measured matches,
mean score, mean luck and mean play (``arena.matches.selectors.bot_luck_summary``)."""

from __future__ import annotations

from django import template

from arena.matches.selectors import bot_luck_summary

register = template.Library()


@register.simple_tag
def bot_luck(bot) -> dict:
    """The bot's luck summary (one aggregate query)."""
    return bot_luck_summary(bot=bot)
