"""Bots and their uploaded versions. The archive lives in the database (no shared filesystem)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

BOT_NAME_VALIDATOR = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$",
    "2-40 characters: letters, digits, '.', '_' or '-', starting with a letter or digit.",
)


class Bot(models.Model):
    """A named bot for one game, owned by one user; it plays with its active version."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    name = models.CharField(max_length=40, unique=True, validators=[BOT_NAME_VALIDATOR])
    game = models.CharField(max_length=40, db_index=True)
    description = models.TextField(blank=True, max_length=2000)
    # Built-in bots (engines' own code, "builtin:NAME") have no archive; uploaded bots leave this blank.
    builtin = models.CharField(max_length=40, blank=True)
    active_version = models.ForeignKey(
        "bots.BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    is_active = models.BooleanField(default=True, help_text="Inactive bots play no ladder matches.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="bot_name_unique_ignoring_case"),
            models.CheckConstraint(
                condition=Q(builtin="") | Q(builtin__regex=r"^[A-Za-z0-9_]+$"), name="bot_builtin_name_valid"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_builtin(self) -> bool:
        """True for the engines' own built-in bots."""
        return bool(self.builtin)


class BotVersion(models.Model):
    """One upload of a bot: the archive bytes, their digest, and the smoke-test verdict."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    class Kind(models.TextChoices):
        PY = "py", "single .py file"
        ZIP = "zip", ".zip with main.py"
        BUILTIN = "builtin", "built-in bot"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    filename = models.CharField(max_length=255, blank=True)
    archive = models.BinaryField(blank=True, default=b"", editable=False)
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    validation_log = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    smoke_attempts = models.PositiveIntegerField(default=0)
    # The outbox (arena/matches/outbox.py): when the smoke test's task message was last handed to
    # the broker (None: not yet, or the broker was down) and how many were sent while it waited.
    smoke_sent_at = models.DateTimeField(null=True, blank=True)
    smoke_sends = models.PositiveIntegerField(default=0)
    # While a worker runs the smoke test: renewed by its heartbeat; in the past, the worker is gone.
    smoke_lease_expires_at = models.DateTimeField(null=True, blank=True)
    smoke_worker = models.CharField(max_length=200, blank=True, help_text="Who ran the last smoke test.")

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="botversion_number_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "ready", "failed"]), name="botversion_status_valid"),
            models.CheckConstraint(
                condition=Q(kind="builtin") | Q(size__gt=0), name="botversion_upload_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def label(self) -> str:
        """``name@vN``: how seats and replays name this version."""
        return f"{self.bot.name}@v{self.number}"
