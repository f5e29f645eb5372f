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
    """One upload of a bot: the archive bytes, their digest, and the smoke-test verdict.

    Its smoke test is a group of matches of kind ``smoke`` (``arena/runs/smoke.py``); this row keeps
    only the verdict (``status``, ``validation_log``, ``validated_at``)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    class Kind(models.TextChoices):
        PY = "py", "single .py file"
        ZIP = "zip", ".zip with one entry file"
        SOURCE = "source", "single source file (.js, .cpp, .rs, .go, .java)"
        BUILTIN = "builtin", "built-in bot"

    # The entry file gives the language (workers.toolchains.ENTRY_FILES).
    class Language(models.TextChoices):
        PYTHON = "python", "Python"
        JAVASCRIPT = "javascript", "JavaScript"
        CPP = "cpp", "C++"
        RUST = "rust", "Rust"
        GO = "go", "Go"
        JAVA = "java", "Java"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    filename = models.CharField(max_length=255, blank=True)
    archive = models.BinaryField(blank=True, default=b"", editable=False)
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    validation_log = models.TextField(blank=True)
    language = models.CharField(max_length=12, choices=Language.choices, default=Language.PYTHON, db_index=True)
    # A compiled language's build (workers.build), once per version, before its smoke test: the
    # compiler's version and messages (owner and staff only), and the artifact every match runs.
    build_status = models.CharField(max_length=20, blank=True, help_text="ok, failed, timeout, too_much_output")
    toolchain = models.CharField(max_length=200, blank=True)
    build_log = models.TextField(blank=True)
    artifact = models.BinaryField(blank=True, default=b"", editable=False)
    artifact_sha256 = models.CharField(max_length=64, blank=True)
    artifact_size = models.PositiveIntegerField(default=0)
    built_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # Set when the version was taken off the ladders after repeated faults (settings AUTOPAUSE_*);
    # a new version that passes its smoke test plays instead. ``pause_reason`` says why, in words.
    paused_at = models.DateTimeField(null=True, blank=True, db_index=True)
    pause_reason = models.TextField(blank=True)
    # When its owner resumed it after a pause: faults of matches before then no longer count.
    resumed_at = models.DateTimeField(null=True, blank=True)

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

    @property
    def is_paused(self) -> bool:
        """True when the version was paused from the ladders after repeated faults."""
        return self.paused_at is not None
