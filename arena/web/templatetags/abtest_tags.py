"""The bot page's A/B tests: the owner's tests of the bot's versions and a form to start one."""

from __future__ import annotations

from django import template
from django.db.models import F, Q

from arena.abtests.models import VERSION_BLOBS, ABTest
from arena.bots.models import BotVersion

register = template.Library()

SHOWN = 20


@register.inclusion_tag("web/_bot_abtests.html")
def bot_abtests(bot, user) -> dict:
    """The tests whose B is a version of ``bot`` (the owner's and staff's view), newest first, and
    the choices of the start form: B among the bot's ready versions, A among those and the other
    bots' active versions of the game."""
    tests = list(ABTest.objects.filter(Q(b__bot=bot) | Q(a__bot=bot)).select_related("a__bot", "b__bot")
                 .defer(*VERSION_BLOBS).order_by("-id")[:SHOWN])
    mine = list(BotVersion.objects.filter(bot=bot, status=BotVersion.Status.READY).select_related("bot")
                .defer("archive", "artifact").order_by("-number"))
    others = list(BotVersion.objects.filter(bot__game=bot.game, bot__active_version=F("pk"))
                  .exclude(bot=bot).select_related("bot").defer("archive", "artifact").order_by("bot__name")[:200])
    return {"bot": bot, "tests": tests, "b_choices": mine, "a_choices": mine[1:] + mine[:1] + others}

