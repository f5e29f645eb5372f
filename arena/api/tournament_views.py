"""The tournaments API: list, detail, standings, rounds and matches; staff create and run them."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from arena.api import serializers as s

# Which input field a service's ValidationError code belongs to (the rest: "file" or non-field).
from arena.api.errors import api_error
from arena.api.pagination import KeysetPagination
from arena.bots.models import Bot
from arena.ladders.models import Ladder
from arena.tournaments.models import Entrant, Tournament
from arena.tournaments.selectors import tournament_matches, tournament_progress, tournament_rounds, tournament_standings
from arena.tournaments.services import (
    tournament_cancel,
    tournament_create,
    tournament_extend,
    tournament_pause,
    tournament_rerun_failed,
    tournament_resume,
    tournament_start,
)
from arena.web.selectors import matches_for_listing

_TOURNAMENT_FIELDS = {"name": "name", "slug": "slug", "unknown_game": "game", "seat_count": "seat_count",
                      "options": "options", "format": "format", "rounds": "rounds", "advance": "advance",
                      "orders": "orders", "points": "points", "ladder": "ladder", "bots": "bots", "entry": "entry"}


class IsStaffOrReadOnly(permissions.BasePermission):
    """Reads for everyone; writes for staff only (tournaments are scheduled by admins)."""

    message = "Only staff can create or change a tournament."

    def has_permission(self, request, view) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


@extend_schema_view(
    list=extend_schema(summary="Tournaments, newest start first", parameters=[
        OpenApiParameter("status", str, description="Only tournaments in this status.",
                         enum=["scheduled", "running", "paused", "finished", "cancelled"]),
        OpenApiParameter("game", str, description="Only tournaments of this game id.")]),
    retrieve=extend_schema(summary="One tournament"),
    create=extend_schema(summary="Schedule a tournament (staff only)", request=s.TournamentCreateSerializer,
                         responses={201: s.TournamentSerializer}),
)
class TournamentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                        viewsets.GenericViewSet):
    """Tournaments scheduled by admins. Anyone reads; only staff create them and act on them."""

    serializer_class = s.TournamentSerializer
    # IsAuthenticatedOrReadOnly first: the schema then says reads need no token.
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsStaffOrReadOnly]
    lookup_field = "slug"

    def get_queryset(self):
        entrants = Entrant.objects.select_related("version").defer("version__archive").order_by("seed", "name")
        qs = (Tournament.objects.select_related("ladder").prefetch_related(Prefetch("entrants", queryset=entrants))
              .order_by("-start_at", "-id"))
        params = self.request.query_params
        if "status" in params:   # an empty ?status= too: no status is called that
            if params["status"] not in Tournament.Status.values:
                raise ValidationError({"status": [f"Use one of: {', '.join(Tournament.Status.values)}."]})
            qs = qs.filter(status=params["status"])
        if params.get("game"):
            qs = qs.filter(game=params["game"])
        return qs

    def create(self, request):
        data = s.TournamentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        ladder = None
        if v.get("ladder"):
            ladder = Ladder.objects.filter(slug=v["ladder"]).first()
            if ladder is None:
                raise ValidationError({"ladder": [f"No ladder {v['ladder']!r}."]})
        ids = v.get("bots") or []
        bots = {b.pk: b for b in Bot.objects.filter(pk__in=ids).select_related("active_version")}
        missing = [i for i in ids if i not in bots]
        if missing:
            raise ValidationError({"bots": [f"No bot with id {', '.join(map(str, missing))}."]})
        try:
            tournament = tournament_create(
                name=v["name"], slug=v.get("slug") or "", game=v["game"], seat_count=v["seat_count"],
                format=v["format"], rounds=v.get("rounds"), advance=v.get("advance"), orders=v["orders"],
                points=v.get("points") or None, options=v.get("options"), entry=v["entry"], ladder=ladder,
                bots=[bots[i] for i in ids], freeze_versions=v["freeze_versions"], start_at=v.get("start_at"),
                created_by=request.user)
        except DjangoValidationError as exc:
            raise api_error(exc, _TOURNAMENT_FIELDS, "non_field_errors") from None
        return Response(s.TournamentSerializer(tournament, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(summary="The standings (final once finished) and progress",
                   responses=s.TournamentStandingsSerializer)
    @action(detail=True, methods=["get"])
    def standings(self, request, slug=None):
        """Standings best first with tie-break values, and games done of games paired."""
        tournament = self.get_object()
        rows = tournament_standings(tournament)
        return Response(s.TournamentStandingsSerializer({
            "final": tournament.final_standings is not None, "progress": tournament_progress(tournament),
            "results": rows}).data)

    @extend_schema(summary="The rounds with their tables and games", responses=s.TournamentRoundSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request, slug=None):
        """Every round paired so far, oldest first."""
        rounds = tournament_rounds(self.get_object(), viewer=request.user)
        return Response(s.TournamentRoundSerializer(rounds, many=True).data)

    @extend_schema(summary="The tournament's games, newest first", responses=s.MatchSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=KeysetPagination, serializer_class=s.MatchSerializer)
    def matches(self, request, slug=None):
        """Every game of the tournament (keyset pages: ?before=ID)."""
        qs = matches_for_listing(tournament_matches(self.get_object()).select_related("requested_by"))
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(s.MatchSerializer(page, many=True, context={"request": request}).data)

    def _act(self, request, service, **kwargs):
        tournament = self.get_object()
        try:
            service(tournament_id=tournament.pk, **kwargs)
        except DjangoValidationError as exc:
            raise ValidationError({"detail": " ".join(exc.messages)}) from None  # a sentence, as the schema says
        tournament.refresh_from_db()
        return Response(s.TournamentSerializer(tournament, context={"request": request}).data)

    @extend_schema(summary="Start now (staff only)", request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def start(self, request, slug=None):
        return self._act(request, tournament_start)

    @extend_schema(summary="Pause: running games finish, nothing new is sent (staff only)", request=None,
                   responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request, slug=None):
        return self._act(request, tournament_pause)

    @extend_schema(summary="Resume a paused tournament (staff only)", request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def resume(self, request, slug=None):
        return self._act(request, tournament_resume)

    @extend_schema(summary="Cancel (staff only)", request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, slug=None):
        return self._act(request, tournament_cancel)

    @extend_schema(summary="Extend a Swiss by a round (staff only)", request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def extend(self, request, slug=None):
        return self._act(request, tournament_extend)

    @extend_schema(summary="Re-run a round's failed games: same seed, same seats, unrated (staff only)",
                   request=s.TournamentRerunSerializer, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def rerun(self, request, slug=None):
        data = s.TournamentRerunSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._act(request, tournament_rerun_failed, round_number=data.validated_data["round"])
