"""Sending notifications, marking them read, and a user's choices of kinds."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.notifications.models import EMAIL_BY_DEFAULT, Kind, Notification, Preference

log = logging.getLogger(__name__)


def preferences_of(*, user) -> dict[str, dict[str, bool]]:
    """``{kind: {"site": bool, "email": bool}}`` for every kind, the defaults where the user chose nothing."""
    chosen = {p.kind: p for p in Preference.objects.filter(user=user)}
    out = {}
    for kind in Kind:
        row = chosen.get(kind.value)
        out[kind.value] = ({"site": row.site, "email": row.email} if row is not None
                           else {"site": True, "email": kind in EMAIL_BY_DEFAULT})
    return out


def preferences_set(*, user, choices: dict[str, dict[str, bool]]) -> dict[str, dict[str, bool]]:
    """Store ``choices`` (a subset of kinds, each with ``site`` and/or ``email``); ValueError names
    an unknown kind or channel and stores nothing. Returns every kind's choice."""
    known = set(Kind.values)
    for kind, channels in choices.items():
        if kind not in known:
            raise ValueError(f"Unknown notification kind {kind!r}: one of {', '.join(sorted(known))}.")
        if not isinstance(channels, dict) or set(channels) - {"site", "email"}:
            raise ValueError(f"{kind}: give site and/or email, each true or false.")
        if not all(isinstance(v, bool) for v in channels.values()):
            raise ValueError(f"{kind}: site and email are true or false.")
    current = preferences_of(user=user)
    with transaction.atomic():
        for kind, channels in choices.items():
            merged = {**current[kind], **channels}
            Preference.objects.update_or_create(user=user, kind=kind, defaults=merged)
    return preferences_of(user=user)


def notification_send(*, user, kind: str, key: str, title: str, body: str = "", url: str = "") -> Notification | None:
    """Notify ``user`` once per (kind, key): a row in the feed and/or an e-mail, as the user chose.

    Returns the new row, or None when there was one already (a redelivered task) or the user wants
    neither. An e-mail that cannot be sent is logged, never raised: the feed holds the news.
    """
    choice = preferences_of(user=user)[kind]
    if not choice["site"] and not choice["email"]:
        return None
    try:
        with transaction.atomic():
            row = Notification.objects.create(user=user, kind=kind, key=key[:100], title=title[:200], body=body,
                                              url=url[:300], read_at=None if choice["site"] else timezone.now())
    except IntegrityError:
        return None  # sent already
    if choice["email"] and user.email:
        site = settings.ARENA_SITE_URL.rstrip("/")
        text = "\n\n".join(part for part in (body, f"{site}{url}" if url else "") if part)
        try:
            send_mail(f"[Dive Arena] {title}", f"{text}\n\nChoose what you are told: {site}/notifications/settings/\n",
                      None, [user.email], fail_silently=False)
            Notification.objects.filter(pk=row.pk).update(emailed=True)
        except Exception as exc:  # a mail server that is down loses no news: the feed has it
            log.warning("could not e-mail notification %s to user %s: %s", row.pk, user.pk, exc)
    return row


def notifications_mark_read(*, user, ids: list[int] | None = None) -> int:
    """Mark ``ids`` (all when None) of ``user``'s unread notifications read; returns how many changed.
    Ids of other users' notifications change nothing."""
    rows = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.update(read_at=timezone.now())
