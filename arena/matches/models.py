"""Matches and their seats; the result is on the seats, the compressed replay on the match."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from arena.matches.timing import timing_from_columns

# Seeds are drawn from 53 bits: too many to search for the one that explains what a bot
# observes, and still exact as a JSON number in every client (JavaScript included).
MAX_SEED = 2**53 - 1


class MatchGroup(models.Model):
    """A rotation group: one seed played once per seat order of one table (duplicate seeds), so
    every bot of the table meets the same chance from every seat (``competition.rotation``)."""

    game = models.CharField(max_length=40)
    seed = models.BigIntegerField()
    size = models.PositiveSmallIntegerField(help_text="Games in the group, one per seat order.")
    rated_at = models.DateTimeField(
        null=True, blank=True, help_text="When the group's ratings were applied (ladder groups, once).")
    # Its games share one seed, so a done game's seed and replay would show the chance of a game
    # of the group still to play: they are public only once every game of it has been played, and
    # of every group sharing its chance (the same seed, or the same non-empty chance_set): the rule
    # is arena.matches.selectors.match_chance_open.
    finished_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When all of the group's games had been played (none queued, running or withdrawn).")
    chance_set = models.CharField(
        max_length=60, blank=True, default="",
        help_text="Groups with the same non-empty value share chance (e.g. 'abtest:7'): their games' "
                  "seeds, replays and logs stay private until every one of these groups has finished.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.CheckConstraint(condition=Q(size__gte=1), name="matchgroup_size_positive")]
        # The recovery sweep looks for groups still playing every few seconds: only those are indexed.
        # The chance-privacy rule asks "is an unfinished group on this seed or chance set?" per match
        # listed: two more partial indexes of the unfinished groups answer it.
        indexes = [models.Index(fields=["id"], condition=Q(finished_at__isnull=True), name="matchgroup_unfinished"),
                   models.Index(fields=["seed"], condition=Q(finished_at__isnull=True),
                                name="matchgroup_unfinished_seed"),
                   models.Index(fields=["chance_set"], condition=Q(finished_at__isnull=True) & ~Q(chance_set=""),
                                name="matchgroup_unfinished_set")]

    def __str__(self) -> str:
        return f"group {self.pk} ({self.game}, {self.size} games)"


class Match(models.Model):
    """One game between bot versions: queued, run by a worker, recorded exactly once."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    class Kind(models.TextChoices):
        LADDER = "ladder", "ladder"
        CHALLENGE = "challenge", "challenge"
        TOURNAMENT = "tournament", "tournament"
        ABTEST = "abtest", "A/B test"
        SMOKE = "smoke", "smoke test"

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LADDER)
    # Indexes below: (ladder, id) serves the foreign key too; so does (requested_by, id).
    ladder = models.ForeignKey(
        "ladders.Ladder", null=True, blank=True, on_delete=models.PROTECT, related_name="matches", db_index=False)
    game = models.CharField(max_length=40)  # indexed below (no LIKE index: nothing searches it by prefix)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    # The unique (group, group_index) index serves the foreign key: no index of its own.
    group = models.ForeignKey(
        MatchGroup, null=True, blank=True, on_delete=models.PROTECT, related_name="matches", db_index=False)
    group_index = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Which game of its rotation group (0, 1, ...).")
    rated = models.BooleanField(default=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="requested_matches", db_index=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # What the runner's outcome says is on the seats (scores, ranks, faults, timing) and on this row
    # (game, seed, options; the options as the engine completed them are in the replay): it is not
    # stored a second time.
    replay = models.BinaryField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    # The outbox (arena/jobs/outbox.py): when the task message of this queued match was last
    # handed to the broker (None: not yet, or the broker was down) and how many were sent.
    sent_at = models.DateTimeField(null=True, blank=True)
    sends = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    # While running: renewed by the worker's heartbeat; in the past, the worker is gone.
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the luck of its seats was measured (workers.luck, arena/runs/luck.py), or found not
    # measurable (the replay is missing or no longer re-simulates); None: not tried yet.
    luck_measured_at = models.DateTimeField(null=True, blank=True)
    # What measured it (workers.luck.LUCK_MODEL: the method and V's weights). A luck measured by
    # another model is measured again by the sweep once nothing new waits, so that a ladder reads
    # one V and a match page's steps add up to its stored luck.
    luck_model = models.CharField(max_length=16, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "done", "failed"]), name="match_status_valid"),
            models.CheckConstraint(
                condition=(Q(kind="challenge", rated=False) | Q(kind="ladder", ladder__isnull=False)
                           | Q(kind="tournament", rated=False) | Q(kind="abtest", rated=False)
                           | Q(kind="smoke", rated=False)),
                name="match_ladder_rated_challenge_unrated"),
            models.CheckConstraint(
                condition=Q(group__isnull=True, group_index__isnull=True)
                | Q(group__isnull=False, group_index__isnull=False),
                name="match_group_has_index"),
            models.UniqueConstraint(fields=["group", "group_index"], name="match_group_index_once"),
        ]
        # Every filter of the match lists walks one of these newest first (keyset pagination on id):
        # a deep page costs what the first one costs. Partial where the rows a filter asks for are few:
        # all but a few matches are done and ladder matches, whose lists walk the primary key instead;
        # the statuses index also serves the recovery sweeps (they look at running matches only); only
        # challenges have a requester.
        indexes = [
            models.Index(fields=["game"], name="match_game"),
            models.Index(fields=["status", "id"], name="match_status_id", condition=~Q(status="done")),
            models.Index(fields=["ladder", "id"], name="match_ladder_id"),
            models.Index(fields=["kind", "id"], name="match_kind_id", condition=~Q(kind="ladder")),
            models.Index(fields=["requested_by", "id"], name="match_requested_by_id",
                         condition=Q(requested_by__isnull=False)),
            # The luck sweep's work list: done matches whose luck has not been measured yet.
            models.Index(fields=["id"], name="match_luck_unmeasured",
                         condition=Q(status="done", luck_measured_at__isnull=True)),
            # ... and those measured by another model (read as luck_model < or > the current one).
            models.Index(fields=["luck_model", "id"], name="match_luck_model",
                         condition=Q(status="done", luck_measured_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.status})"

    @property
    def error_summary(self) -> str:
        """The last line of ``error`` (a worker's traceback ends with the exception): what anyone may
        see; the whole traceback (server paths and code) is for staff."""
        lines = [line for line in self.error.splitlines() if line.strip()]
        return lines[-1].strip()[:500] if lines else ""

    @property
    def is_finished(self) -> bool:
        """Done or failed: nothing more will happen to it."""
        return self.status in (self.Status.DONE, self.Status.FAILED)


# The kinds the match lists show and filter by: a smoke test's games are on no list (their version's
# owner reads them on the bot's page).
LISTED_KINDS = [kind for kind in Match.Kind.values if kind != Match.Kind.SMOKE]


# The runner appends a faulted bot's last log lines to its fault message after this line
# (workers/match/loop.py, ``Match.fault``).
FAULT_LOG_TAIL_MARKER = "\n--- last lines of the bot's log ---\n"


class MatchSeat(models.Model):
    """One seat of a match: who played it and how it went. ``log`` is for the owner and staff only."""

    # The unique (match, seat) index serves the foreign key: no index of its own.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    seat = models.PositiveSmallIntegerField()
    # Indexed with the match (the unique constraint below): a bot's matches newest first come from the index alone.
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="seats",
                                    db_index=False)
    score = models.FloatField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    # The seat's luck in score units (docs/luck.md): its score minus this is its play. None until
    # measured after the recording (per step only in the expanded replay, recomputed when asked).
    luck = models.FloatField(null=True, blank=True)
    fault_kind = models.CharField(max_length=20, blank=True)
    fault_step = models.IntegerField(null=True, blank=True)
    fault_message = models.TextField(blank=True)
    # The runner's timing of the seat (``timing``, below) as typed columns (arena/matches/timing.py);
    # a timing those cannot give back exactly is kept as it came in ``timing_document``.
    timing_document = models.JSONField(null=True, blank=True)
    log = models.TextField(blank=True)
    timing_decisions = models.PositiveIntegerField(null=True, blank=True)
    timing_mean_us = models.IntegerField(null=True, blank=True)
    timing_p50_us = models.IntegerField(null=True, blank=True)
    timing_p95_us = models.IntegerField(null=True, blank=True)
    timing_max_us = models.IntegerField(null=True, blank=True)
    timing_bank_used_us = models.IntegerField(null=True, blank=True)
    timing_start_us = models.IntegerField(null=True, blank=True)
    timing_cpu_mean_us = models.IntegerField(null=True, blank=True)
    timing_cpu_p95_us = models.IntegerField(null=True, blank=True)
    timing_cpu_max_us = models.IntegerField(null=True, blank=True)
    timing_cpu_total_us = models.IntegerField(null=True, blank=True)
    timing_sandbox_cpu_us = models.IntegerField(null=True, blank=True)
    timing_keys = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Which keys the runner reported, a bit each (None: no timing).")
    timing_cpu_clock = models.BooleanField(null=True, blank=True, help_text="The clock charged: CPU time or wall.")

    @property
    def play(self) -> float | None:
        """The seat's score minus its luck (docs/luck.md); None until its luck is measured."""
        return None if self.luck is None or self.score is None else self.score - self.luck

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="matchseat_unique_seat"),
            # A version plays a match once; its index, (version, match), also gives a version's seats in
            # match order (its bot's page walks them newest first, the automatic pause too).
            models.UniqueConstraint(fields=["bot_version", "match"], name="matchseat_version_once"),
            models.CheckConstraint(condition=Q(rank__isnull=True) | Q(rank__gte=1), name="matchseat_rank_positive"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}"

    @property
    def faulted(self) -> bool:
        """True when the bot faulted in this match."""
        return bool(self.fault_kind)

    @property
    def fault_summary(self) -> str:
        """The fault message without the copy of the log's last lines the runner appends to it: a
        page that prints the whole log beside it prints those lines once."""
        return self.fault_message.split(FAULT_LOG_TAIL_MARKER, 1)[0].rstrip()

    @property
    def timing(self) -> dict | None:
        """The seat's timing exactly as the runner reported it (None before the match is recorded)."""
        return timing_from_columns(self, seat=self.seat)
