"""Ladders (a game at a seat count with options), ratings per bot and the rating history."""

from __future__ import annotations

import math

from django.db import models
from django.db.models import Q

from engines import get_game


# Elo K of new ladders (a two-seat match; divided by seats - 1). Lower than chess's 32: in dice
# games a single result says little (bench/rating_quality.py, docs/benchmarks.md "Recommended
# setting": K=32 is the worst or near it on every ladder measured). See docs/ladders.md.
DEFAULT_K_FACTOR = 16.0


def recommended_settings(*, game: str, seat_count: int) -> dict:
    """K, rotation, matchmaking and batch model for a new ladder, from the rating-quality
    benchmark (docs/benchmarks.md, "Recommended setting"): K as the game says (engines:
    ``GameFacts.k_factor``; 8 on Deep Sea Adventure, 16 elsewhere); rotation groups on two seats only (on four seats they were level and delay what
    matchmaking learns; three and five seats were not measured); the rating window (random tables
    told less); the batch rating on score margins (better than ranks or level on every ladder)."""
    return {
        "k_factor": get_game(game).facts.k_factor,
        "rotation": Ladder.Rotation.CYCLIC if seat_count == 2 else Ladder.Rotation.OFF,
        "matchmaking": Ladder.Matchmaking.WINDOW,
        "batch_model": Ladder.BatchModel.SCORES,
    }


class Ladder(models.Model):
    """A rated competition of one game at a fixed seat count; one seat means a solo ladder."""

    class Rotation(models.TextChoices):
        OFF = "off", "off: lone matches"
        CYCLIC = "cyclic", "cyclic: one game per seat rotation"
        ALL = "all", "all orders: one game per seat order (up to 4 seats)"

    class Matchmaking(models.TextChoices):
        RANDOM = "random", "random tables"
        WINDOW = "window", "rating window"

    class BatchModel(models.TextChoices):
        SCORES = "scores", "score margins: least squares on each seat's score minus its table's mean"
        RANKS = "ranks", "ranks: Bradley-Terry on the pairwise results"

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=40, db_index=True)
    seat_count = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    k_factor = models.FloatField(default=DEFAULT_K_FACTOR,
                                 help_text="Elo K for a two-seat match; divided by seats-1.")
    initial_rating = models.FloatField(default=1200.0)
    queue_size = models.PositiveSmallIntegerField(
        default=2, help_text="Matchmaking keeps this many tables open (a rotation group or a lone match; "
                             "a table is open while one of its games is queued or running).")
    rotation = models.CharField(
        max_length=10, choices=Rotation.choices, default=Rotation.CYCLIC,
        help_text="How a table plays: rotation groups (one seed in every seat rotation, rated as a unit) or lone "
                  "matches.")
    matchmaking = models.CharField(
        max_length=10, choices=Matchmaking.choices, default=Matchmaking.WINDOW,
        help_text="Who meets: random tables, or opponents near in Elo; either way a bot with the fewest recent "
                  "games is always seated.")
    batch_model = models.CharField(
        max_length=10, choices=BatchModel.choices, default=BatchModel.SCORES,
        help_text="What the batch rating (the leaderboard's order) is fitted on: score margins read how much a bot "
                  "won by, ranks only who finished ahead.")
    # The newest rating change and the model the stored batch ratings were fitted with (None / "":
    # never fitted); the periodic refit skips the ladder until either changes.
    batch_fitted_through = models.BigIntegerField(null=True, blank=True, editable=False)
    batch_fitted_model = models.CharField(max_length=10, blank=True, editable=False)
    batch_fitted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # How the last fit on score margins read the results (competition/ratings/official.py): games
    # read on play (score - luck), games read on raw scores (some seat's luck not measured yet),
    # the game's transform, and the seat effects taken out (one per seat; [] when none paid).
    batch_play_games = models.PositiveIntegerField(default=0, editable=False)
    batch_raw_games = models.PositiveIntegerField(default=0, editable=False)
    batch_transform = models.CharField(max_length=12, blank=True, editable=False)
    batch_seat_effects = models.JSONField(default=list, blank=True, editable=False)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seat_count", "slug"]
        constraints = [
            models.CheckConstraint(condition=Q(seat_count__gte=1), name="ladder_seat_count_positive"),
            models.CheckConstraint(condition=Q(k_factor__gt=0), name="ladder_k_factor_positive"),
            models.CheckConstraint(condition=Q(rotation__in=["off", "cyclic", "all"]), name="ladder_rotation_valid"),
            models.CheckConstraint(condition=Q(matchmaking__in=["random", "window"]),
                                   name="ladder_matchmaking_valid"),
            models.CheckConstraint(condition=Q(batch_model__in=["scores", "ranks"]), name="ladder_batch_model_valid"),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def is_solo(self) -> bool:
        """Solo ladders rank by mean score (with a 95% interval) instead of Elo."""
        return self.seat_count == 1


class Rating(models.Model):
    """A bot's standing on a ladder; the row existing means the bot is entered."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="ratings")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="ratings")
    elo = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    faults = models.PositiveIntegerField(default=0)
    # Finishing positions (fault-adjusted ranks, 1 best) summed, and how often it was ranked first:
    # the mean rank and the win rate of the leaderboard (W/D/L says little in a 4-seat game).
    rank_sum = models.PositiveIntegerField(default=0)
    first_places = models.PositiveIntegerField(default=0)
    # Running sums of the (fault-adjusted) score: the mean and its interval (the ranking of solo ladders).
    score_sum = models.FloatField(default=0.0)
    score_sq_sum = models.FloatField(default=0.0)
    last_played_at = models.DateTimeField(null=True, blank=True)
    # The batch rating (competition/ratings/batch.py, refitted by ``batch_refit``): an
    # order-independent fit of every rated result of the ladder, with its interval; None until the
    # bot is in a fit. Provisional while the interval is wide.
    batch_rating = models.FloatField(null=True, blank=True)
    batch_low = models.FloatField(null=True, blank=True)
    batch_high = models.FloatField(null=True, blank=True)
    batch_games = models.PositiveIntegerField(default=0)
    batch_provisional = models.BooleanField(default=True)
    batch_fitted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder", "-elo"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "bot"], name="rating_unique_bot_per_ladder"),
            models.CheckConstraint(
                condition=Q(wins__lte=models.F("games")), name="rating_wins_at_most_games"),
        ]
        indexes = [models.Index(fields=["ladder", "-elo"], name="rating_ladder_elo")]

    def __str__(self) -> str:
        return f"{self.bot} on {self.ladder}: {self.elo:.0f}"

    @property
    def mean_score(self) -> float | None:
        """Mean score per game (what solo ladders rank by); None before the first game."""
        return self.score_sum / self.games if self.games else None

    @property
    def mean_rank(self) -> float | None:
        """Mean finishing position (1 is best); None before the first game."""
        return self.rank_sum / self.games if self.games else None

    @property
    def win_rate(self) -> float | None:
        """Share of games it finished first (ties for first included); None before the first game."""
        return self.first_places / self.games if self.games else None

    @property
    def batch_half_width(self) -> float | None:
        """Half the width of the batch rating's interval; None before the bot is in a fit."""
        if self.batch_low is None or self.batch_high is None:
            return None
        return (self.batch_high - self.batch_low) / 2

    @property
    def interval95(self) -> float | None:
        """Half-width of the normal 95% interval of the mean score; None under two games."""
        if self.games < 2:
            return None
        mean = self.score_sum / self.games
        variance = max(0.0, (self.score_sq_sum - self.games * mean * mean) / (self.games - 1))
        return 1.96 * math.sqrt(variance / self.games)


class RatingSnapshot(models.Model):
    """A bot's batch rating after one refit of its ladder (``arena.ladders.batch``): the official
    rating's history, which the bot page charts. Written only when it moved (``SNAPSHOT_STEP``)."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="snapshots", db_index=False)
    fitted_at = models.DateTimeField()
    value = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField()

    class Meta:
        ordering = ["rating", "fitted_at"]
        indexes = [models.Index(fields=["rating", "fitted_at"], name="ratingsnapshot_rating_at")]

    def __str__(self) -> str:
        return f"{self.rating_id} at {self.fitted_at}: {self.value:.0f}"


class RatingChange(models.Model):
    """One match's effect on one bot's rating (Elo, or the mean score on a solo ladder)."""

    # Served by the indexes below: (match, bot) for the match; (ladder, bot, sequence) for a bot on a
    # ladder, in the order its changes were applied (a ladder's changes alone are only read when the
    # ladder is deleted).
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="rating_changes",
                              db_index=False)
    # Indexed with the id (below): a bot's history, all ladders or one, is read from the index in order.
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    before = models.FloatField(null=True)
    after = models.FloatField()
    # The bot's n-th change on this ladder (1, 2, ...): the order it was applied in, which is not the
    # order of match ids (matches finish out of order). ``manage.py ratings_check`` replays by it.
    sequence = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "bot"], name="ratingchange_once_per_match"),
            models.UniqueConstraint(fields=["ladder", "bot", "sequence"], name="ratingchange_sequence_once"),
        ]
        # A bot's history on every ladder in id order, which is the order of creation. On one ladder
        # (its chart, its trend, its history there) the sequence index above gives that order: ids
        # are drawn once the bot's rating is locked, so its changes on a ladder have ids in sequence order.
        indexes = [models.Index(fields=["bot", "id"], name="ratingchange_bot_id")]

    def __str__(self) -> str:
        return f"{self.bot} {self.before} -> {self.after} (match {self.match_id})"

    @property
    def delta(self) -> float:
        """After minus before (0 for the first solo game)."""
        return self.after - (self.before if self.before is not None else self.after)
