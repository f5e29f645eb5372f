"""A/B tests of two bot versions: the test and its pairs (each pair a two-game match group)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


# The versions' stored bytes (upload and build): lists and pages of tests never need them, and a
# select_related of A and B would read them for every row (tests/web/test_archive_loading.py).
VERSION_BLOBS = ("a__archive", "a__artifact", "b__archive", "b__artifact")


class ABTest(models.Model):
    """Is version ``b`` stronger than version ``a``? Paired unrated games until an SPRT decides.

    ``tally`` is :class:`workers.sprt.Tally` as a dict (pairs per class, score sums, the test's
    martingales); ``history`` one ``[games, llr, elo, elo_lo, elo_hi]`` per counted pair, which the
    page draws. ``opponents`` are the version ids filling the seats beyond A's and B's
    (``num_players - 2`` of them), the same in both games of a pair, rotated over pairs.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        STOPPED = "stopped", "stopped"
        FAILED = "failed", "failed"

    OPEN = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="abtests")
    game = models.CharField(max_length=40)
    num_players = models.PositiveSmallIntegerField(default=2)
    a = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="abtests_as_a")
    b = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="abtests_as_b")
    opponents = models.JSONField(default=list, blank=True, help_text="Version ids of the other seats, in order.")
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=10.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=10, default="undecided")
    reason = models.TextField(blank=True, help_text="Why it stopped or failed, in words.")
    tally = models.JSONField(default=dict, blank=True)
    history = models.JSONField(default=list, blank=True)
    games_failed = models.PositiveIntegerField(default=0, help_text="Games the workers could not play (their pairs are not counted).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["queued", "running", "finished", "stopped", "failed"]),
                                   name="abtest_status_valid"),
            models.CheckConstraint(condition=Q(elo1__gt=models.F("elo0")), name="abtest_elo1_above_elo0"),
            models.CheckConstraint(condition=~Q(a=models.F("b")), name="abtest_two_versions"),
        ]
        indexes = [models.Index(fields=["status"], name="abtest_open", condition=Q(status__in=["queued", "running"]))]

    def __str__(self) -> str:
        return f"A/B test {self.pk} ({self.game}, {self.status})"

    @property
    def is_open(self) -> bool:
        """Queued or running: games may still be added."""
        return self.status in self.OPEN


class ABTestPair(models.Model):
    """Pair ``number`` of a test: a match group of two games on one seed, A and B swapped
    (game 0: A in seat 0; game 1: B in seat 0). ``counted`` once its result is in the tally."""

    test = models.ForeignKey(ABTest, on_delete=models.CASCADE, related_name="pairs")
    number = models.PositiveIntegerField()
    group = models.OneToOneField("matches.MatchGroup", on_delete=models.PROTECT, related_name="abtest_pair")
    counted = models.BooleanField(default=False)

    class Meta:
        ordering = ["test", "number"]
        constraints = [models.UniqueConstraint(fields=["test", "number"], name="abtestpair_number_once")]

    def __str__(self) -> str:
        return f"pair {self.number} of A/B test {self.test_id}"
