"""One rating everywhere (issue 23, item 5): the rating a ladder's leaderboard ranks by (its default
ranking: the batch rating once fitted, else Elo; the mean score on a solo ladder), with its
interval, for any page that lists a bot's ratings.

    {% official_rating rating as official %}   no query: label, value, interval, decimals, provisional
    {% official_rank rating as place %}        one query: {"rank", "entries"} (rank None when unranked)
"""

from __future__ import annotations

from django import template
from django.db.models import Count, Q

from arena.ladders.models import Rating
from arena.ladders.selectors import ladder_ranking

register = template.Library()

_VALUE = {"batch": lambda r: r.batch_rating, "elo": lambda r: r.elo, "mean_score": lambda r: r.mean_score}


@register.simple_tag
def official_rating(rating) -> dict:
    """What the leaderboard of ``rating``'s ladder ranks it by."""
    ranking = ladder_ranking(ladder=rating.ladder)
    return {"key": ranking.key, "label": ranking.label, "value": _VALUE[ranking.key](rating),
            "interval": ranking.interval_of(rating) if ranking.interval_of else None,
            "decimals": ranking.decimals, "provisional": ranking.is_provisional(rating)}


@register.simple_tag
def official_rank(rating) -> dict:
    """Its place on the leaderboard (1 is best; tied values share the better place) and how many are
    entered; rank None while it has no value under the ladder's ranking."""
    ranking = ladder_ranking(ladder=rating.ladder)
    value = _VALUE[ranking.key](rating)
    counts = (Rating.objects.filter(ladder_id=rating.ladder_id).annotate(rating_value=ranking.value())
              .aggregate(entries=Count("id"), above=Count("id", filter=Q(rating_value__gt=value)) if value is not None
                         else Count("id", filter=Q(pk__in=[]))))
    return {"rank": None if value is None else counts["above"] + 1, "entries": counts["entries"]}
