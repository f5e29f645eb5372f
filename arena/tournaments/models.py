"""Tournaments scheduled by admins: entrants, rounds and tables (each table a rotation group).

Pairing and standings are pure functions (``competition/formats/``); the services
(``services.py``) turn their output into these rows under a row lock on the tournament.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Tournament(models.Model):
    """A competition of entrants at k-seat tables over rounds, in one of three formats."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss"
        ELIMINATION = "elimination", "single elimination"

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "scheduled"
        RUNNING = "running", "running"
        PAUSED = "paused", "paused"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    class Orders(models.TextChoices):
        CYCLIC = "cyclic", "cyclic (one game per seat)"
        ALL = "all", "all seat orders (k! games, k <= 4)"

    class Entry(models.TextChoices):
        PICKED = "picked", "picked bots"
        LADDER = "ladder", "all ready bots of the ladder, at the start"

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=60, unique=True)
    game = models.CharField(max_length=40, db_index=True)
    seat_count = models.PositiveSmallIntegerField(help_text="Seats per table (k).")
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=12, choices=Format.choices)
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Rounds to play (round robin, Swiss); elimination plans its own.")
    advance = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Elimination: how many of each table advance (m < k).")
    orders = models.CharField(max_length=8, choices=Orders.choices, default=Orders.CYCLIC)
    points = models.JSONField(default=list, blank=True,
                              help_text="Points by rank, best first (k values; default k-1, ..., 0).")
    entry = models.CharField(max_length=8, choices=Entry.choices, default=Entry.PICKED)
    ladder = models.ForeignKey(
        "ladders.Ladder", null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments",
        help_text="Seeds entrants by their rating on it; with entry 'ladder', its ready bots enter at the start.")
    freeze_versions = models.BooleanField(
        default=True, help_text="The version active at the start plays every game, whatever is uploaded later.")
    start_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED, db_index=True)
    note = models.TextField(blank=True, help_text="Why it stopped, when it did not finish.")
    # Round robin plans every round at the start: [[[entrant id, ...] per table] per round].
    plan = models.JSONField(null=True, blank=True, editable=False)
    # Stored when the tournament finishes (or is cancelled): the standings rows, best first.
    final_standings = models.JSONField(null=True, blank=True, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-start_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(seat_count__gte=1), name="tournament_seat_count_positive"),
            models.CheckConstraint(condition=Q(rounds__isnull=True) | Q(rounds__gte=1),
                                   name="tournament_rounds_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["scheduled", "running", "paused", "finished", "cancelled"]),
                name="tournament_status_valid"),
        ]
        indexes = [models.Index(fields=["status", "start_at"], name="tournament_status_start")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_solo(self) -> bool:
        """One seat per table: every entrant plays the round's seed alone, ranked by score."""
        return self.seat_count == 1

    @property
    def is_over(self) -> bool:
        """Finished or cancelled: nothing more will be played."""
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Entrant(models.Model):
    """A bot in a tournament, with the version it plays (frozen at the start) and its seed."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    # A deleted bot leaves its entrant (and its name) behind: its games are forfeited.
    bot = models.ForeignKey("bots.Bot", null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="tournament_entries")
    name = models.CharField(max_length=40)
    version = models.ForeignKey("bots.BotVersion", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", help_text="Frozen at the start.")
    seed = models.PositiveIntegerField(null=True, blank=True, help_text="1 is the best seed (set at the start).")
    rating = models.FloatField(null=True, blank=True, help_text="Ladder rating at the start.")
    eliminated_in = models.PositiveSmallIntegerField(null=True, blank=True,
                                                     help_text="Elimination: the round it lost.")

    class Meta:
        ordering = ["tournament", "seed", "name"]
        constraints = [models.UniqueConstraint(fields=["tournament", "bot"], name="entrant_bot_once")]

    def __str__(self) -> str:
        return f"{self.name} in {self.tournament}"


class Round(models.Model):
    """One round: its tables play on one seed; the next round is paired only once it has finished."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    # Entrant ids sitting out: a bye (no table for them) or a forfeit (no version left to play).
    byes = models.JSONField(default=list, blank=True)
    forfeits = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_number_once"),
                       models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive")]

    def __str__(self) -> str:
        return f"round {self.number} of {self.tournament}"


class Table(models.Model):
    """One table of a round: its entrants (in table order) play one rotation group."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    index = models.PositiveSmallIntegerField()
    entrant_ids = models.JSONField(help_text="Entrant ids in table order (the rotation's order).")
    # The versions that play, in table order, fixed when the table is paired (paused matches are re-created
    # from these).
    version_ids = models.JSONField()
    group = models.OneToOneField("matches.MatchGroup", on_delete=models.PROTECT, related_name="tournament_table")

    class Meta:
        ordering = ["round", "index"]
        constraints = [models.UniqueConstraint(fields=["round", "index"], name="table_index_once")]

    def __str__(self) -> str:
        return f"table {self.index + 1} of {self.round}"
