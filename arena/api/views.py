"""API views: parse input, call one service or selector, serialise the output."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Prefetch
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, Throttled, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from arena.api import serializers as s
from arena.api.access import IsOwnerOrStaffOrReadOnly
from arena.api.errors import api_error
from arena.api.filters import BOT_PARAMETER_PATTERN, match_filters
from arena.api.pagination import KeysetPagination, OldestFirstKeysetPagination
from arena.api.parsers import JSONParser
from arena.api.replays import full_replay_response, replay_response
from arena.api.throttles import ChallengeThrottle, UploadThrottle
from arena.bots.models import Bot, BotVersion
from arena.bots.selectors import bot_id_named
from arena.bots.services import bot_create, bot_update, bot_version_create
from arena.keyset import MAX_ID, Bounds
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import (
    head_to_head,
    ladder_leaderboard,
    ladder_ranking,
    ladder_rankings,
    probability_a_stronger,
    rating_history_of_bot,
    with_entry_counts,
)
from arena.matches.models import LISTED_KINDS, Match
from arena.matches.selectors import log_refusal, match_list, match_replay_visible, match_seat_log_visible, match_seats
from arena.matches.services import ChallengeRateLimited, challenge_create
from arena.web.selectors import game_get, game_list, matches_for_listing
from engines import list_games
from workers.toolchains import TITLES as LANGUAGE_TITLES

# Which input field a service's ValidationError code belongs to (the rest: "file" or non-field).
_BOT_FIELDS = {"invalid": "name", "name_taken": "name", "unknown_game": "game"}
_CHALLENGE_FIELDS = {"options": "options", "seat_count": "opponents", "same_bot": "opponents",
                     "wrong_game": "opponents", "not_ready": "opponents"}


def _id_or_404(value) -> int:
    """A path's numeric id; anything else (not digits, beyond a bigint) is a 404 like any missing id,
    never a database error."""
    value = str(value)
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_ID:
        raise Http404("No such id.")
    return int(value)


class IdLookupMixin:
    """Objects looked up by a numeric id (see ``_id_or_404``)."""

    def get_object(self):
        _id_or_404(self.kwargs.get(self.lookup_url_kwarg or self.lookup_field, ""))
        return super().get_object()


# --- games -------------------------------------------------------------------------------------

@extend_schema_view(
    list=extend_schema(summary="Every registered game"),
    retrieve=extend_schema(summary="One game", parameters=[
        OpenApiParameter("id", str, OpenApiParameter.PATH, description="A game id, e.g. deep_sea_adventure.")]),
)
class GameViewSet(viewsets.GenericViewSet):
    """The games the arena runs (the registered engines)."""

    serializer_class = s.GameSerializer
    lookup_field = "id"

    def get_queryset(self):
        return game_list()

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request, id=None):
        game = game_get(game_id=id)
        if game is None:
            raise Http404(f"No game {id!r}.")
        return Response(self.get_serializer(game).data)


# --- ladders -----------------------------------------------------------------------------------

@extend_schema_view(
    list=extend_schema(summary="Ladders", parameters=[
        OpenApiParameter("game", str, description="Only ladders of this game id."),
        OpenApiParameter("active", bool, description="true: active ladders only; false: inactive only."),
    ]),
    retrieve=extend_schema(summary="One ladder"),
)
class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """Ladders: a game at a fixed seat count, with ratings. Read-only (admins manage them)."""

    serializer_class = s.LadderSerializer
    lookup_field = "slug"

    def get_queryset(self):
        qs = with_entry_counts(Ladder.objects.all()).order_by("game", "seat_count", "slug")
        game = self.request.query_params.get("game")
        if game:
            qs = qs.filter(game=game)
        active = self.request.query_params.get("active")
        if active is not None:
            if active.lower() not in ("true", "false", "1", "0"):
                raise ValidationError({"active": ["Use true or false."]})
            qs = qs.filter(active=active.lower() in ("true", "1"))
        return qs

    @extend_schema(summary="A ladder's leaderboard, best first",
                   parameters=[OpenApiParameter("by", str, enum=["batch", "elo", "mean_score"],
                                                description="The ranking (the ladder's default: batch on "
                                                            "multi-seat ladders, mean_score on solo ones)."),
                               OpenApiParameter("language", str, enum=list(LANGUAGE_TITLES),
                                                description="Only bots whose active version is in this language "
                                                            "(positions among them).")],
                   responses=s.LeaderboardEntrySerializer(many=True))
    @action(detail=True, methods=["get"], serializer_class=s.LeaderboardEntrySerializer)
    def leaderboard(self, request, slug=None):
        """Entered bots best first: by the batch rating (or Elo with ``?by=elo``), or by mean score
        with a 95% interval on solo ladders."""
        ladder = self.get_object()
        by = request.query_params.get("by")
        offered = [r.key for r in ladder_rankings(ladder=ladder)]
        if by is not None and by not in offered:
            raise ValidationError({"by": [f"This ladder ranks by: {', '.join(offered)}."]})
        ranking = ladder_ranking(ladder=ladder, key=by)
        language = request.query_params.get("language")
        if language is not None and language not in LANGUAGE_TITLES:
            raise ValidationError({"language": [f"One of: {', '.join(LANGUAGE_TITLES)}."]})
        page = self.paginate_queryset(ladder_leaderboard(ladder=ladder, ranking=ranking, language=language))
        return self.get_paginated_response(
            s.LeaderboardEntrySerializer(page, many=True, context={**self.get_serializer_context(),
                                                                   "ranking": ranking}).data)

    @extend_schema(summary="Two bots of a ladder compared",
                   parameters=[OpenApiParameter("a", str, required=True,
                                                description="Bot A: its name or id (as /api/matches/?bot= takes it)."),
                               OpenApiParameter("b", str, required=True, description="Bot B: its name or id.")],
                   responses={200: s.ComparisonSerializer,
                              400: OpenApiResponse(description="a or b missing, a name no bot has, or the same bot."),
                              404: OpenApiResponse(description="No such ladder, or a bot not entered in it.")})
    @action(detail=True, methods=["get"], pagination_class=None, serializer_class=s.ComparisonSerializer)
    def compare(self, request, slug=None):
        """P(A stronger than B) from the stored batch ratings and their head-to-head record."""
        ladder = self.get_object()
        ids = {}
        for name in ("a", "b"):
            raw = request.query_params.get(name, "").strip()
            if (bot_id := bot_id_named(raw)) is None:
                raise ValidationError({name: [f"No bot is called {raw[:40]!r}: give a bot's name or id."]})
            ids[name] = bot_id
        if ids["a"] == ids["b"]:
            raise ValidationError({"b": ["Pick two different bots."]})
        picked = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder, bot_id__in=ids.values())
                  .select_related("bot").only("id", "bot_id", "elo", "games", "batch_rating", "batch_low",
                                              "batch_high", "batch_games", "batch_provisional", "bot__id",
                                              "bot__name")}
        missing = [str(i) for i in ids.values() if i not in picked]
        if missing:
            raise Http404(f"No bot {' or '.join(missing)} is entered in ladder {ladder.slug}.")
        a, b = picked[ids["a"]], picked[ids["b"]]
        record = head_to_head(ladder=ladder, a=a.bot_id, b=b.bot_id)

        def side(rating, ahead, mean_rank):
            return {"bot": rating.bot_id, "bot_name": rating.bot.name, "elo": rating.elo, "games": rating.games,
                    "batch_rating": rating.batch_rating, "batch_low": rating.batch_low,
                    "batch_high": rating.batch_high, "batch_provisional": rating.batch_provisional,
                    "head_to_head_ahead": ahead, "head_to_head_mean_rank": mean_rank}

        return Response(s.ComparisonSerializer({
            "ladder": ladder.slug, "a": side(a, record.a_ahead, record.a_mean_rank),
            "b": side(b, record.b_ahead, record.b_mean_rank),
            "probability_a_stronger": probability_a_stronger(a, b), "games": record.games,
            "groups": record.groups, "level": record.level}).data)


# --- bots --------------------------------------------------------------------------------------

@extend_schema_view(
    list=extend_schema(summary="Bots", parameters=[
        OpenApiParameter("game", str, description="Only bots of this game id."),
        OpenApiParameter("owner", str, description="Only bots of this username."),
    ]),
    retrieve=extend_schema(summary="One bot"),
    create=extend_schema(summary="Create a bot with its first version (multipart upload)",
                         request={"multipart/form-data": s.BotCreateSerializer},
                         responses={201: s.BotCreatedSerializer}),
    partial_update=extend_schema(summary="Change a bot (owner only)", request=s.BotUpdateSerializer,
                                 responses=s.BotSerializer),
    update=extend_schema(summary="Change a bot (owner only)", request=s.BotUpdateSerializer,
                         responses=s.BotSerializer),
)
class BotViewSet(IdLookupMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Bots. Anyone reads; signed-in users create; only the owner (or staff) changes a bot."""

    serializer_class = s.BotSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrStaffOrReadOnly]
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def get_queryset(self):
        # Prefetched, not joined: a deep page's OFFSET then walks the name index of bots alone, and
        # only the page's owners (their usernames, never password hashes) and versions are read.
        qs = Bot.objects.prefetch_related(
            Prefetch("owner", queryset=get_user_model().objects.only("id", "username")),
            Prefetch("active_version", queryset=BotVersion.objects.defer("archive", "artifact")),
            Prefetch("ratings", queryset=Rating.objects.select_related("ladder")))
        params = self.request.query_params
        if params.get("game"):
            qs = qs.filter(game=params["game"])
        if params.get("owner"):
            qs = qs.filter(owner__username=params["owner"])
        return qs.order_by("name")

    def get_throttles(self):
        if self.request.method == "POST":
            return [UploadThrottle()]
        return super().get_throttles()

    def create(self, request):
        data = s.BotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            bot = bot_create(owner=request.user, name=data.validated_data["name"],
                             game=data.validated_data["game"], upload=data.validated_data["file"],
                             description=data.validated_data["description"])
        except DjangoValidationError as exc:
            raise api_error(exc, _BOT_FIELDS, "file") from None
        bot = self.get_queryset().get(pk=bot.pk)
        return Response(s.BotCreatedSerializer(bot, context=self.get_serializer_context()).data,
                        status=status.HTTP_201_CREATED)

    def update(self, request, pk=None, partial=False):
        bot = self.get_object()  # owner or staff only (IsOwnerOrStaffOrReadOnly)
        data = s.BotUpdateSerializer(data=request.data, partial=partial)
        data.is_valid(raise_exception=True)
        try:
            bot_update(bot=bot, by=request.user, **data.validated_data)
        except DjangoValidationError as exc:
            raise api_error(exc, {}, "non_field_errors") from None
        return Response(self.get_serializer(self.get_queryset().get(pk=bot.pk)).data)

    def partial_update(self, request, pk=None):
        return self.update(request, pk=pk, partial=True)

    @extend_schema(methods=["GET"], summary="A bot's versions, newest first",
                   responses=s.BotVersionSerializer(many=True))
    @extend_schema(methods=["POST"], summary="Upload a new version (owner only; multipart)",
                   request={"multipart/form-data": s.BotVersionCreateSerializer},
                   responses={201: s.BotVersionLinkedSerializer})
    @action(detail=True, methods=["get", "post"], serializer_class=s.BotVersionSerializer)
    def versions(self, request, pk=None):
        """GET: the versions (logs for the owner and staff only). POST: upload a new version."""
        bot = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(bot.versions.defer("archive", "artifact").order_by("-number"))
            return self.get_paginated_response(
                s.BotVersionSerializer(page, many=True, context={**self.get_serializer_context(), "bot": bot}).data)
        data = s.BotVersionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            version = bot_version_create(bot=bot, upload=data.validated_data["file"], by=request.user)
        except DjangoValidationError as exc:
            raise api_error(exc, {}, "file") from None
        return Response(s.BotVersionLinkedSerializer(version, context={**self.get_serializer_context(), "bot": bot}).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(summary="One version of a bot (poll it to follow a pending version's smoke test)",
                   parameters=[OpenApiParameter("number", int, OpenApiParameter.PATH, description="The version's number.")],
                   responses=s.BotVersionLinkedSerializer)
    @action(detail=True, methods=["get"], url_path=r"versions/(?P<number>[0-9]{1,9})", url_name="version-detail",
            serializer_class=s.BotVersionLinkedSerializer)
    def version_detail(self, request, pk=None, number=None):
        """One version: its status (pending, active, failed...) and, for the owner and staff, its log."""
        bot = self.get_object()
        version = bot.versions.defer("archive", "artifact").filter(number=int(number)).first()
        if version is None:
            raise Http404(f"Bot {bot.pk} has no version {number}.")
        version.bot = bot
        return Response(s.BotVersionLinkedSerializer(version, context={**self.get_serializer_context(), "bot": bot}).data)


    @extend_schema(summary="A bot's rating history, oldest first (for charts)",
                   parameters=[OpenApiParameter("ladder", str, description="Only this ladder's slug.")],
                   responses=s.RatingChangeSerializer(many=True))
    @action(detail=True, methods=["get"], serializer_class=s.RatingChangeSerializer,
            pagination_class=OldestFirstKeysetPagination)
    def history(self, request, pk=None):
        """Every rating change of the bot, oldest first, a keyset page at a time; ``?ladder=slug``
        keeps one ladder. Read in order from the (bot, id) index, or on one ladder from the (ladder,
        bot, sequence) one (whose order is the ids' there: see ``rating_history_of_bot``)."""
        bot = self.get_object()
        ladder = request.query_params.get("ladder") or None
        self.keyset_order_field = "sequence" if ladder else "pk"
        changes = rating_history_of_bot(bot=bot, ladder_slug=ladder, bounds=self.paginator.bounds(request))
        page = self.paginate_queryset(changes)
        return self.get_paginated_response(s.RatingChangeSerializer(page, many=True).data)


# --- matches -----------------------------------------------------------------------------------

@extend_schema_view(
    list=extend_schema(summary="Matches, newest first", parameters=[
        OpenApiParameter("bot", {"type": "string", "pattern": f"^(?:{BOT_PARAMETER_PATTERN})$"},
                         description="Only matches this bot played: its name or its id (a name or id no bot "
                                     "has: no matches)."),
        OpenApiParameter("game", str, enum=[g.id for g in list_games()], description="Only matches of this game id."),
        OpenApiParameter("ladder", str, description="Only matches of this ladder slug."),
        OpenApiParameter("status", str, enum=Match.Status.values, description="Only matches in this status."),
        OpenApiParameter("kind", str, enum=LISTED_KINDS, description="Only matches of this kind."),
        OpenApiParameter("group", {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                         description="Only the games of this rotation group."),
    ]),
    retrieve=extend_schema(summary="One match with its seats"),
)
class MatchViewSet(IdLookupMixin, viewsets.ReadOnlyModelViewSet):
    """Matches: public results; replays for everyone; seat logs for the bot's owner and staff."""

    serializer_class = s.MatchSerializer
    pagination_class = KeysetPagination

    def get_queryset(self):
        if self.action != "list":
            return matches_for_listing(match_list().select_related("requested_by"))
        qs = match_list(**match_filters(self.request.query_params), bounds=self.paginator.bounds(self.request),
                        limit=self.paginator.limit(self.request))
        return matches_for_listing(qs.select_related("requested_by"))

    @extend_schema(summary="The match's replay (JSON, see docs/replay-format.md)",
                   responses={(200, "application/json"): OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="No replay (yet).")})
    @action(detail=True, methods=["get"])
    def replay(self, request, pk=None):
        """The replay as a JSON file download."""
        match = Match.objects.filter(pk=_id_or_404(pk)).select_related("group").only(
            "id", "status", "replay", "group_id", "group__id", "group__finished_at").first()
        if match is None:
            raise Http404("No such match.")
        if not match_replay_visible(match=match, user=request.user):
            raise Http404("This match has no replay yet.")
        response = replay_response(request, match_id=match.pk, stored=match.replay)
        if response is None:
            raise Http404("This match has no replay yet.")
        return response

    @extend_schema(summary="The finished match's replay in full form: every view at every step (docs/replay-format.md)",
                   responses={(200, "application/json"): OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="No replay (yet)."),
                              422: OpenApiResponse(description="The stored replay cannot be read: {\"detail\": why}.")})
    @action(detail=True, methods=["get"], url_path="replay/full", url_name="replay-full")
    def replay_full(self, request, pk=None):
        """The replay expanded for viewers: spectator view, observations and full view of every step."""
        match = Match.objects.filter(pk=_id_or_404(pk)).select_related("group").only(
            "id", "status", "replay", "group_id", "group__id", "group__finished_at").first()
        if match is None:
            raise Http404("No such match.")
        return full_replay_response(request, match=match)

    @extend_schema(summary="A seat's log (the bot's owner and staff only)",
                   parameters=[OpenApiParameter("seat", int, OpenApiParameter.PATH)],
                   responses={200: s.LogSerializer,
                              403: OpenApiResponse(description="Signed in, but not the bot's owner or staff.")})
    @action(detail=True, methods=["get"], url_path=r"logs/(?P<seat>[^/.]+)", serializer_class=s.LogSerializer,
            pagination_class=None)
    def logs(self, request, pk=None, seat=None):
        """The stderr log of one seat's bot in this match."""
        match = self.get_object()
        number = int(seat) if seat.isascii() and seat.isdigit() and len(seat) < 6 else None
        row = match_seats(match=match).filter(seat=number).first() if number is not None else None
        if row is None:
            raise Http404(f"Match {match.pk} has no seat {seat}.")
        if not request.user.is_authenticated:
            raise NotAuthenticated("Log in to read your bot's logs.")
        if not match_seat_log_visible(seat=row, user=request.user, match=match):
            raise PermissionDenied(log_refusal(seat=row, user=request.user))
        bot = row.bot_version.bot
        return Response(s.LogSerializer({"match": match.pk, "seat": row.seat, "bot": bot.pk,
                                         "bot_name": bot.name, "log": row.log}).data)


# --- challenges --------------------------------------------------------------------------------

@extend_schema_view(
    list=extend_schema(summary="Your challenge matches, newest first", responses=s.MatchSerializer(many=True)),
    create=extend_schema(summary="Request an unrated challenge match", request=s.ChallengeCreateSerializer,
                         responses={201: s.MatchSerializer}),
)
class ChallengeViewSet(viewsets.GenericViewSet):
    """Unrated matches an owner asks for: their bot (seat 0) against chosen bots. Rate-limited."""

    serializer_class = s.MatchSerializer
    permission_classes = [permissions.IsAuthenticated]
    pagination_class = KeysetPagination

    def get_queryset(self):
        bounds = self.paginator.bounds(self.request) if self.action == "list" else Bounds()
        qs = match_list(kind=Match.Kind.CHALLENGE, bounds=bounds).filter(requested_by=self.request.user)
        return matches_for_listing(qs.select_related("requested_by"))

    def get_throttles(self):
        if self.request.method == "POST":
            return [ChallengeThrottle()]
        return super().get_throttles()

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def create(self, request):
        data = s.ChallengeCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wanted = [data.validated_data["bot"], *data.validated_data["opponents"]]
        found = Bot.objects.select_related("active_version").defer("active_version__archive").in_bulk(wanted)
        missing = [str(pk) for pk in wanted if pk not in found]
        if missing:
            field = "bot" if data.validated_data["bot"] not in found else "opponents"
            raise ValidationError({field: [f"No bot with id {', '.join(missing)}."]})
        try:
            match = challenge_create(
                by=request.user, bot=found[wanted[0]], opponents=[found[pk] for pk in wanted[1:]],
                seed=data.validated_data.get("seed"), options=data.validated_data.get("options"))
        except ChallengeRateLimited as exc:
            throttled = Throttled(detail=" ".join(exc.messages))  # the message already says when
            throttled.wait = exc.retry_after  # sent as Retry-After
            raise throttled from None
        except DjangoValidationError as exc:
            raise api_error(exc, _CHALLENGE_FIELDS, "non_field_errors") from None
        match = self.get_queryset().get(pk=match.pk)
        return Response(self.get_serializer(match).data, status=status.HTTP_201_CREATED)
