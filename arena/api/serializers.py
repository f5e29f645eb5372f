"""Serializers: parse API input and shape API output. No business rules here (see services)."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth import get_user_model
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from arena.api.access import can_see_private
from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion
from arena.keyset import MAX_ID
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.selectors import ladder_ranking
from arena.matches.models import MAX_SEED, Match, MatchSeat
from arena.matches.selectors import match_replay_visible, match_seat_log_visible, match_seed_visible
from arena.tournaments.selectors import tournament_points


def _viewer(serializer) -> object | None:
    request = serializer.context.get("request")
    return getattr(request, "user", None)


class StrictInputSerializer(serializers.Serializer):
    """Input that refuses a field it does not know (400) instead of ignoring it: a PATCH naming
    ``name`` would otherwise answer 200 without renaming, a misspelt ``seeed`` queue a random seed."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                takes = f"Unknown field: this request takes {', '.join(self.fields)}."
                raise serializers.ValidationError({name: [takes] for name in unknown})
        return super().to_internal_value(data)


# --- games -----------------------------------------------------------------------------------

class GameSerializer(serializers.Serializer):
    """A registered game (see engines.list_games)."""

    id = serializers.CharField()
    title = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    simultaneous = serializers.BooleanField()
    chance = serializers.BooleanField()
    default_options = serializers.DictField()
    builtin_bots = serializers.ListField(child=serializers.CharField())
    summary = serializers.CharField()


# --- ladders ---------------------------------------------------------------------------------

class LadderSerializer(serializers.ModelSerializer):
    """A ladder: one game at a fixed seat count; solo ladders (one seat) rank by mean score."""

    is_solo = serializers.BooleanField(read_only=True)
    entries = serializers.IntegerField(read_only=True, source="entry_count")

    class Meta:
        model = Ladder
        fields = ["slug", "name", "game", "seat_count", "options", "k_factor", "initial_rating",
                  "queue_size", "rotation", "matchmaking", "batch_model", "batch_fitted_at", "batch_play_games",
                  "batch_raw_games", "batch_transform", "batch_seat_effects", "active", "is_solo", "entries",
                  "created_at"]
        read_only_fields = fields


class LeaderboardEntrySerializer(serializers.ModelSerializer):
    """One row of a leaderboard; ``mean_score``/``interval95`` are set on solo ladders."""

    position = serializers.IntegerField(read_only=True)
    bot = serializers.IntegerField(source="bot.id", read_only=True)
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    owner = serializers.CharField(source="bot.owner.username", read_only=True)
    version = serializers.IntegerField(source="bot.active_version.number", read_only=True, allow_null=True)
    language = serializers.CharField(source="bot.active_version.language", read_only=True, allow_null=True)
    mean_score = serializers.FloatField(read_only=True, allow_null=True)
    interval95 = serializers.FloatField(read_only=True, allow_null=True)
    win_rate = serializers.FloatField(read_only=True, allow_null=True,
                                      help_text="Share of games ranked first (ties for first included).")
    mean_rank = serializers.FloatField(read_only=True, allow_null=True, help_text="Mean finishing position, 1 best.")
    provisional = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields = ["position", "bot", "bot_name", "owner", "version", "language", "elo", "batch_rating", "batch_low",
                  "batch_high", "batch_games", "games", "wins", "draws", "losses", "faults", "mean_score",
                  "interval95", "win_rate", "mean_rank", "provisional", "last_played_at"]
        read_only_fields = fields

    def get_provisional(self, rating: Rating) -> bool:
        """Whether its place by the ranking asked for is still settling: for the batch rating, while
        its interval is wide (or it has no fit yet); otherwise under ``LEADERBOARD_PROVISIONAL_GAMES`` games."""
        ranking = self.context.get("ranking") or ladder_ranking(ladder=rating.ladder)
        return ranking.is_provisional(rating)


# --- bots ------------------------------------------------------------------------------------

class BotVersionSerializer(serializers.ModelSerializer):
    """A version of a bot. The validation and build logs are shown to the bot's owner and staff only."""

    validation_log = serializers.SerializerMethodField()
    build_log = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields = ["id", "number", "kind", "filename", "sha256", "size", "status", "created_at",
                  "validated_at", "validation_log", "language", "build_status", "toolchain", "build_log",
                  "artifact_sha256", "artifact_size", "built_at"]
        read_only_fields = fields

    def get_build_log(self, version: BotVersion) -> str | None:
        """The compiler's messages (compiled languages), or null for anyone but the owner and staff."""
        return version.build_log if self._private(version) else None

    def _private(self, version: BotVersion) -> bool:
        bot = self.context.get("bot")
        if bot is None or bot.pk != version.bot_id:
            bot = version.bot
        return can_see_private(_viewer(self), bot)

    def get_validation_log(self, version: BotVersion) -> str | None:
        """The smoke-test log, or null for anyone but the owner and staff."""
        bot = self.context.get("bot")  # the views pass it: one query less per version
        if bot is None or bot.pk != version.bot_id:
            bot = version.bot
        if can_see_private(_viewer(self), bot):
            return version.validation_log
        return None


class RatingSummarySerializer(serializers.ModelSerializer):
    """A bot's standing on one ladder."""

    ladder = serializers.CharField(source="ladder.slug", read_only=True)
    mean_score = serializers.FloatField(read_only=True, allow_null=True)
    interval95 = serializers.FloatField(read_only=True, allow_null=True)

    class Meta:
        model = Rating
        fields = ["ladder", "elo", "games", "wins", "draws", "losses", "faults", "mean_score",
                  "interval95", "last_played_at"]
        read_only_fields = fields


class RatingChangeSerializer(serializers.ModelSerializer):
    """One match's effect on a bot's rating (Elo, or the mean score on a solo ladder)."""

    ladder = serializers.CharField(source="ladder.slug", read_only=True)
    delta = serializers.FloatField(read_only=True)

    class Meta:
        model = RatingChange
        fields = ["ladder", "match", "before", "after", "delta", "created_at"]
        read_only_fields = fields


class BotSerializer(serializers.ModelSerializer):
    """A bot as anyone may see it."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    active_version = serializers.SerializerMethodField()
    ratings = RatingSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "description", "builtin", "is_active",
                  "active_version", "ratings", "created_at"]
        read_only_fields = fields

    @extend_schema_field(BotVersionSerializer(allow_null=True))
    def get_active_version(self, bot: Bot) -> dict | None:
        """The version that plays, or null before the first one passed its smoke test."""
        version = bot.active_version
        if version is None:
            return None
        # One version serializer for the whole list: building a serializer's fields per row was
        # half the CPU of a page of bots. The version learns its bot for the owner check.
        if getattr(self, "_version_serializer", None) is None:
            self._version_serializer = BotVersionSerializer(context=self.context)
        version.bot = bot
        return self._version_serializer.to_representation(version)


class BotVersionLinkedSerializer(BotVersionSerializer):
    """A version with its own address: an upload's answer, to follow its smoke test."""

    url = serializers.SerializerMethodField()

    class Meta(BotVersionSerializer.Meta):
        fields = [*BotVersionSerializer.Meta.fields, "url"]
        read_only_fields = fields

    def get_url(self, version: BotVersion) -> str:
        """``/api/bots/{id}/versions/{number}/``, absolute when the request is known."""
        path = reverse("bot-version-detail", kwargs={"pk": version.bot_id, "number": version.number})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class BotCreatedSerializer(BotSerializer):
    """The answer to ``POST /api/bots/``: the bot, and its first version, pending its smoke test."""

    pending_version = serializers.SerializerMethodField()

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "pending_version"]
        read_only_fields = fields

    @extend_schema_field(BotVersionLinkedSerializer(allow_null=True))
    def get_pending_version(self, bot: Bot) -> dict | None:
        """The newest version while it waits for its smoke test (null once it passed or failed)."""
        version = bot.versions.defer("archive", "artifact").order_by("-number").first()
        if version is None or version.status != BotVersion.Status.PENDING:
            return None
        version.bot = bot
        return BotVersionLinkedSerializer(version, context=self.context).data


class BotCreateSerializer(StrictInputSerializer):
    """Input of ``POST /api/bots/``: multipart with the first version's file."""

    name = serializers.CharField(max_length=40, help_text=BOT_NAME_VALIDATOR.message)
    game = serializers.CharField(max_length=40, help_text="A game id from /api/games/.")
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    file = serializers.FileField(
        allow_empty_file=True,  # the upload rules give the specific message for an empty file
        help_text="A .py file (at most 1 MiB) or a .zip (at most 5 MiB) with main.py at its root.")


class BotUpdateSerializer(StrictInputSerializer):
    """Input of ``PATCH /api/bots/{id}/``: the fields an owner may change."""

    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    is_active = serializers.BooleanField(required=False, help_text="Inactive bots play no ladder matches.")


class BotVersionCreateSerializer(StrictInputSerializer):
    """Input of ``POST /api/bots/{id}/versions/``."""

    file = serializers.FileField(
        allow_empty_file=True,
        help_text="A .py file (at most 1 MiB) or a .zip (at most 5 MiB) with main.py at its root.")


# --- matches ---------------------------------------------------------------------------------

class MatchSeatSerializer(serializers.ModelSerializer):
    """One seat: who played, the result, the fault (its message only for the owner and staff)."""

    bot = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="bot_version.bot.name", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)
    fault = serializers.SerializerMethodField()
    # As the runner reported it (MatchSeat.timing gives it back from the seat's columns).
    timing = serializers.JSONField(read_only=True, allow_null=True)
    has_log = serializers.SerializerMethodField()

    class Meta:
        model = MatchSeat
        fields = ["seat", "bot", "bot_name", "version", "score", "rank", "fault", "timing", "has_log"]
        read_only_fields = fields

    def to_representation(self, seat: MatchSeat) -> dict:
        # The fields above, written out: a match list serializes ~70 seats a page, and DRF's
        # per-field machinery was most of that page's CPU. tests/api check the same shape.
        version = seat.bot_version
        score = seat.score
        return {"seat": seat.seat, "bot": version.bot_id, "bot_name": version.bot.name, "version": version.number,
                "score": None if score is None else float(score), "rank": seat.rank, "fault": self.get_fault(seat),
                "timing": seat.timing, "has_log": self.get_has_log(seat)}

    def get_fault(self, seat: MatchSeat) -> dict | None:
        """``{"kind", "step", "message"}`` or null; the message (stderr lines) is private like the log."""
        if not seat.fault_kind:
            return None
        private = match_seat_log_visible(seat=seat, user=_viewer(self))
        return {"kind": seat.fault_kind, "step": seat.fault_step,
                "message": seat.fault_message if private else None}

    def get_has_log(self, seat: MatchSeat) -> bool:
        """True when the viewer may read this seat's log (``match_seat_log_visible``) and there is one."""
        present = getattr(seat, "log_present", None)  # annotated by the list querysets
        if present is None:
            present = bool(seat.log)
        return bool(present) and match_seat_log_visible(seat=seat, user=_viewer(self))


class MatchSerializer(serializers.ModelSerializer):
    """A match with its seats; the replay and the logs have their own endpoints."""

    ladder = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                          help_text="The ladder's slug; null for a challenge or tournament game.")
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True)
    seats = MatchSeatSerializer(many=True, read_only=True)
    has_replay = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField()
    group = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ["id", "kind", "ladder", "game", "options", "seed", "rated", "requested_by", "status",
                  "attempts", "error", "created_at", "queued_at", "started_at", "finished_at",
                  "seats", "has_replay", "group"]
        read_only_fields = fields

    def to_representation(self, match: Match) -> dict:
        # The fields above, written out like MatchSeatSerializer's (the times still go through
        # their DRF fields, for the format): a page of 25 matches ran ~1,000 DRF fields.
        fields = self.fields
        ladder, requested = match.ladder, match.requested_by
        return {"id": match.id, "kind": str(match.kind), "ladder": ladder.slug if ladder is not None else None,
                "game": match.game, "options": match.options, "seed": self.get_seed(match), "rated": match.rated,
                "requested_by": requested.username if requested is not None else None,
                "status": str(match.status), "attempts": match.attempts, "error": self.get_error(match),
                **{name: fields[name].to_representation(value) if value is not None else None
                   for name, value in (("created_at", match.created_at), ("queued_at", match.queued_at),
                                       ("started_at", match.started_at), ("finished_at", match.finished_at))},
                "seats": fields["seats"].to_representation(match.seats.all()),
                "has_replay": self.get_has_replay(match), "group": self.get_group(match)}

    def get_error(self, match: Match) -> str:
        """Why the last run failed: the whole worker traceback for staff, its last line for others."""
        viewer = _viewer(self)
        return match.error if viewer is not None and viewer.is_staff else match.error_summary

    def get_has_replay(self, match: Match) -> bool:
        """True when the asker can download the replay (a finished match's: staff at once, everyone
        once no game sharing its chance is still to be played)."""
        present = getattr(match, "replay_present", None)  # annotated by the views' querysets
        if present is None:
            present = bool(match.replay)
        return bool(present) and match_replay_visible(match=match, user=getattr(self.context.get("request"), "user", None))

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_group(self, match: Match) -> dict | None:
        """Its rotation group: ``{"id", "index" (0-based), "size", "finished"}``; null for a lone match.
        ``GET /api/matches/?group=<id>`` lists the group's games."""
        if match.group_id is None:
            return None
        group = match.group
        return {"id": group.pk, "index": match.group_index, "size": group.size,
                "finished": group.finished_at is not None}

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, match: Match) -> int | None:
        """The seed once the match is done (it rebuilds every hidden card and die); before that,
        null for everyone but staff and the requester of a challenge."""
        return match.seed if match_seed_visible(match=match, user=_viewer(self)) else None


class ChallengeCreateSerializer(StrictInputSerializer):
    """Input of ``POST /api/challenges/``: an unrated match of your bot against chosen bots."""

    bot = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Your bot's id; it plays seat 0.")
    opponents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=0, max_length=5, required=False,
        default=list, help_text="Bot ids of the same game, in seat order after yours.")
    seed = serializers.IntegerField(required=False, min_value=0, max_value=MAX_SEED,
                                    help_text="Random if omitted.")
    options = serializers.DictField(required=False, help_text="Game options; the game's defaults if omitted.")


class LogSerializer(serializers.Serializer):
    """A seat's stderr log."""

    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    log = serializers.CharField(allow_blank=True)


class UserSerializer(serializers.ModelSerializer):
    """The signed-in user."""

    class Meta:
        model = get_user_model()
        fields = ["id", "username", "is_staff"]
        read_only_fields = fields


class BatchSideSerializer(serializers.Serializer):
    """One bot of a comparison: its stored batch rating (null before its first fit) and Elo."""

    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    elo = serializers.FloatField()
    games = serializers.IntegerField()
    batch_rating = serializers.FloatField(allow_null=True)
    batch_low = serializers.FloatField(allow_null=True)
    batch_high = serializers.FloatField(allow_null=True)
    batch_provisional = serializers.BooleanField()
    head_to_head_ahead = serializers.IntegerField(help_text="Shared games it finished ahead of the other.")
    head_to_head_mean_rank = serializers.FloatField(allow_null=True, help_text="Its mean rank in the shared games.")


class ComparisonSerializer(serializers.Serializer):
    """Two bots of a ladder: P(A stronger than B) from the batch fit and their record at shared tables."""

    ladder = serializers.CharField()
    a = BatchSideSerializer()
    b = BatchSideSerializer()
    probability_a_stronger = serializers.FloatField(allow_null=True,
                                                    help_text="Null unless both have a batch rating.")
    games = serializers.IntegerField(help_text="Done games of the ladder that seated both.")
    groups = serializers.IntegerField(help_text="Rotation groups among those games.")
    level = serializers.IntegerField(help_text="Shared games they finished level.")
# --- tournaments -----------------------------------------------------------------------------------

class TournamentSerializer(serializers.ModelSerializer):
    """A tournament's setup and status (entrants, standings and rounds have their own endpoints)."""

    ladder = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                          help_text="The ladder entrants came from; null when they were picked.")
    entrants = serializers.SerializerMethodField()
    points = serializers.SerializerMethodField()

    class Meta:
        from arena.tournaments.models import Tournament

        model = Tournament
        fields = ["slug", "name", "game", "seat_count", "options", "format", "rounds", "advance", "orders",
                  "points", "entry", "ladder", "freeze_versions", "start_at", "status", "note", "entrants",
                  "created_at", "started_at", "finished_at"]
        read_only_fields = fields

    def get_entrants(self, tournament) -> list[dict]:
        """Each entrant: id, bot (null once deleted), name, frozen version number, seed, rating."""
        return [{"id": e.pk, "bot": e.bot_id, "name": e.name, "version": e.version.number if e.version else None,
                 "seed": e.seed, "rating": e.rating, "eliminated_in": e.eliminated_in}
                for e in tournament.entrants.all()]  # prefetched with their versions by the view

    def get_points(self, tournament) -> list[float]:
        """Points by rank, best first (the default k-1, ..., 0 spelled out)."""
        return tournament_points(tournament)


class TournamentCreateSerializer(StrictInputSerializer):
    """What staff send to create a tournament (validated by the service, like the admin's form)."""

    name = serializers.CharField(max_length=100)
    slug = serializers.SlugField(max_length=60, required=False, allow_blank=True)
    game = serializers.CharField(max_length=40)
    seat_count = serializers.IntegerField(min_value=1, max_value=32)
    format = serializers.CharField()
    rounds = serializers.IntegerField(required=False, allow_null=True, min_value=-1000, max_value=1000)
    advance = serializers.IntegerField(required=False, allow_null=True, min_value=-1000, max_value=1000)
    orders = serializers.CharField(required=False, default="cyclic")
    points = serializers.ListField(child=serializers.FloatField(), required=False, allow_empty=True)
    options = serializers.JSONField(required=False)
    entry = serializers.CharField(required=False, default="picked")
    ladder = serializers.SlugField(required=False, allow_null=True, help_text="A ladder's slug.")
    bots = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False,
                                 help_text="Bot ids of the picked entrants.")
    freeze_versions = serializers.BooleanField(required=False, default=True)
    start_at = serializers.DateTimeField(required=False, help_text="Default: now (the next tick starts it).")


class TournamentRerunSerializer(StrictInputSerializer):
    """Which round's failed games to re-run."""

    round = serializers.IntegerField(min_value=1, max_value=10000)


class StandingSerializer(serializers.Serializer):
    """One line of a tournament's standings, best first."""

    position = serializers.IntegerField()
    entrant = serializers.IntegerField()
    bot = serializers.IntegerField(source="bot_id", allow_null=True)
    name = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField()
    games = serializers.IntegerField()
    mean_rank = serializers.FloatField(allow_null=True)
    faults = serializers.IntegerField()
    buchholz = serializers.FloatField(help_text="Tie-break 1: the points of everyone who shared a table.")
    score = serializers.FloatField(help_text="Tie-break 2: total score.")
    head_to_head = serializers.FloatField(help_text="Tie-break 3: places above minus below the tied entrants.")
    eliminated_in = serializers.IntegerField(allow_null=True)


class TournamentRoundSerializer(serializers.Serializer):
    """A round: its seed, byes, forfeits and tables (entrants in table order, each one's table
    result, and the ids and statuses of the table's games)."""

    number = serializers.IntegerField()
    seed = serializers.IntegerField(allow_null=True, help_text="Every game's seed: null until all are done "
                                                               "(staff see it).")
    finished = serializers.BooleanField()
    byes = serializers.ListField(child=serializers.CharField())
    forfeits = serializers.ListField(child=serializers.CharField())
    tables = serializers.SerializerMethodField()

    def get_tables(self, round_) -> list[dict]:
        """Tables with entrants (id, name, bot, result) and games (id, status)."""
        return [{"index": t["index"],
                 "entrants": [{k: e[k] for k in ("id", "name", "bot_id", "result")} for e in t["entrants"]],
                 "matches": [{"id": m.pk, "status": m.status, "group_index": m.group_index} for m in t["matches"]]}
                for t in round_["tables"]]


class TournamentProgressSerializer(serializers.Serializer):
    """Games done out of the games paired, and rounds."""

    matches_total = serializers.IntegerField()
    matches_done = serializers.IntegerField()
    matches_failed = serializers.IntegerField()
    matches_running = serializers.IntegerField()
    rounds_done = serializers.IntegerField()
    rounds_total = serializers.IntegerField(allow_null=True)
    rounds_paired = serializers.IntegerField()


class TournamentStandingsSerializer(serializers.Serializer):
    """Standings (final once the tournament has finished) and progress."""

    final = serializers.BooleanField()
    progress = TournamentProgressSerializer()
    results = StandingSerializer(many=True)
