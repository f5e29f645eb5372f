"""Management commands of the ladders app."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db.models import QuerySet

from arena.ladders.models import Ladder


def ladders_named(slugs: list[str] | None) -> QuerySet[Ladder]:
    """The ladders a command's ``--ladder`` options name (all of them when none), by slug; an
    unknown slug is a CommandError naming it, before anything runs."""
    ladders = Ladder.objects.order_by("slug")
    if slugs:
        ladders = ladders.filter(slug__in=slugs)
        missing = sorted(set(slugs) - set(ladders.values_list("slug", flat=True)))
        if missing:
            raise CommandError(f"no such ladder: {', '.join(missing)}")
    return ladders
