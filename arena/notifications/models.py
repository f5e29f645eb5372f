"""A user's notifications and which kinds they want, in the site and by e-mail."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Kind(models.TextChoices):
    """What a notification is about. The label is what the settings page shows."""

    VERSION_FAILED = "version_failed", "A version of my bot failed its smoke test"
    BOT_PAUSED = "bot_paused", "My bot was paused from the ladders after repeated faults"
    CHALLENGE_ENDED = "challenge_ended", "A challenge I asked for has ended"
    TOURNAMENT_FAULT = "tournament_fault", "My bot faulted in a tournament game"
    TOURNAMENT_SIGNAL = "tournament_signal", "A bot faulted in most of its games of a tournament (owners; staff for every bot)"


# By default every kind is shown in the site; by e-mail, those that need the author's action.
EMAIL_BY_DEFAULT = {Kind.VERSION_FAILED, Kind.BOT_PAUSED, Kind.TOURNAMENT_SIGNAL}


class Notification(models.Model):
    """One notification of one user. ``key`` makes sending it again (a redelivered task) a no-op."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications",
                             db_index=False)
    kind = models.CharField(max_length=30, choices=Kind.choices)
    key = models.CharField(max_length=100, help_text="What it is about, e.g. match:42: one notification per user, kind and key.")
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)
    url = models.CharField(max_length=300, blank=True, help_text="A path in the site to follow.")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["user", "kind", "key"], name="notification_once")]
        indexes = [
            # The feed, newest first, and the bell's unread count.
            models.Index(fields=["user", "-id"], name="notification_feed"),
            models.Index(fields=["user"], condition=Q(read_at__isnull=True), name="notification_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.title}"

    @property
    def is_read(self) -> bool:
        """True once its user marked it read."""
        return self.read_at is not None


class Preference(models.Model):
    """A user's choice for one kind; without a row the defaults hold (site on, e-mail per EMAIL_BY_DEFAULT)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences",
                             db_index=False)
    kind = models.CharField(max_length=30, choices=Kind.choices)
    site = models.BooleanField(default=True)
    email = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="notification_preference_once")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind}: site {self.site}, e-mail {self.email}"
