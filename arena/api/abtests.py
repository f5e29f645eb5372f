"""/api/abtests/: A/B tests of two bot versions (DESIGN.md, "A/B tests"; docs/abtests.md)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.response import Response

from arena.abtests.models import VERSION_BLOBS, ABTest
from arena.abtests.services import ABTestLimitReached, abtest_create, abtest_report, abtest_stop
from arena.api.serializers import StrictInputSerializer
from arena.bots.models import BotVersion
from arena.keyset import MAX_ID

LIST_LIMIT = 100


class ABTestCreateSerializer(StrictInputSerializer):
    """Input of ``POST /api/abtests/``."""

    game = serializers.CharField(max_length=40)
    num_players = serializers.IntegerField(min_value=2, max_value=6, default=2)
    a = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Version id of the reference: "
                                 "one of yours, or another bot's active version.")
    b = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Version id of the candidate: yours.")
    elo0 = serializers.FloatField(default=0.0, min_value=-1000, max_value=1000)
    elo1 = serializers.FloatField(default=10.0, min_value=-1000, max_value=1000)
    max_games = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    opponents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), required=False, max_length=6, default=list,
        help_text="Version ids for the seats beyond A's and B's (num_players - 2 of them, each one you may "
                  "challenge): the same in both games of a pair, their seats rotated over pairs.")


class ABTestSerializer(serializers.ModelSerializer):
    """An A/B test: the contract's fields (``games``, ``pairs``, ``a_mean_score``, ``b_mean_score``,
    ``elo``, ``elo_ci``, ``llr``, ``bounds``, ``verdict``) and its ``status``; ``history`` holds one
    ``[games, llr, elo, elo_lo, elo_hi]`` per counted pair."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    a_label = serializers.CharField(source="a.label", read_only=True)
    b_label = serializers.CharField(source="b.label", read_only=True)
    games = serializers.SerializerMethodField()
    pairs = serializers.SerializerMethodField()
    a_mean_score = serializers.SerializerMethodField()
    b_mean_score = serializers.SerializerMethodField()
    elo = serializers.SerializerMethodField()
    elo_ci = serializers.SerializerMethodField()
    llr = serializers.SerializerMethodField()
    bounds = serializers.SerializerMethodField()
    pair_counts = serializers.SerializerMethodField()

    class Meta:
        model = ABTest
        fields = ["id", "owner", "game", "num_players", "a", "a_label", "b", "b_label", "opponents", "elo0", "elo1", "alpha",
                  "beta", "max_games", "status", "verdict", "reason", "games", "pairs", "a_mean_score",
                  "b_mean_score", "elo", "elo_ci", "llr", "bounds", "pair_counts", "games_failed", "history",
                  "created_at", "started_at", "finished_at"]

    def _report(self, test) -> dict:
        cache = self.context.setdefault("reports", {})
        if test.pk not in cache:
            cache[test.pk] = abtest_report(test)
        return cache[test.pk]

    def get_games(self, test) -> int:
        return self._report(test)["games"]

    def get_pairs(self, test) -> int:
        return self._report(test)["pairs"]

    def get_a_mean_score(self, test) -> float | None:
        return self._report(test)["a_mean_score"]

    def get_b_mean_score(self, test) -> float | None:
        return self._report(test)["b_mean_score"]

    def get_elo(self, test) -> float:
        return self._report(test)["elo"]

    def get_elo_ci(self, test) -> list[float]:
        return self._report(test)["elo_ci"]

    def get_llr(self, test) -> float:
        return self._report(test)["llr"]

    def get_bounds(self, test) -> list[float]:
        return self._report(test)["bounds"]

    def get_pair_counts(self, test) -> list[int]:
        return self._report(test)["pair_counts"]


_FIELDS = {"game": "game", "num_players": "num_players", "a": "a", "b": "b", "elo1": "elo1", "opponents": "opponents",
           "max_games": "max_games", "limit": "non_field_errors", "status": "non_field_errors"}


def _error(exc: DjangoValidationError) -> ValidationError:
    return ValidationError({_FIELDS.get(getattr(exc, "code", None), "non_field_errors"): exc.messages})


@extend_schema_view(
    list=extend_schema(summary="Your A/B tests, newest first"),
    retrieve=extend_schema(summary="One of your A/B tests"),
    create=extend_schema(summary="Start an A/B test of two versions", request=ABTestCreateSerializer,
                         responses={201: ABTestSerializer}),
    stop=extend_schema(summary="Stop one of your open A/B tests", request=None, responses={200: ABTestSerializer}),
)
class ABTestViewSet(viewsets.GenericViewSet):
    """A/B tests: their owner (and staff) see and stop them; nobody else sees they exist (404)."""

    serializer_class = ABTestSerializer
    permission_classes = [permissions.IsAuthenticated]
    queryset = ABTest.objects.none()   # the schema reads the id's type here; get_queryset serves requests

    def get_queryset(self):
        tests = ABTest.objects.select_related("owner", "a__bot", "b__bot").defer(*VERSION_BLOBS).order_by("-id")
        return tests if self.request.user.is_staff else tests.filter(owner=self.request.user)

    def _get(self, pk) -> ABTest:
        value = str(pk)
        if not (value.isascii() and value.isdigit()) or int(value) > MAX_ID:
            raise Http404("No such A/B test.")
        test = self.get_queryset().filter(pk=int(value)).first()
        if test is None:
            raise Http404("No such A/B test.")
        return test

    def list(self, request):
        return Response(self.get_serializer(self.get_queryset()[:LIST_LIMIT], many=True).data)

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self._get(pk)).data)

    def create(self, request):
        data = ABTestCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        found = BotVersion.objects.select_related("bot").defer("archive", "artifact").in_bulk(
            [values["a"], values["b"], *values["opponents"]])
        for name in ("a", "b"):
            if values[name] not in found:
                raise ValidationError({name: [f"No bot version with id {values[name]}."]})
        unknown = [pk for pk in values["opponents"] if pk not in found]
        if unknown:
            raise ValidationError({"opponents": [f"No bot version with id {pk}." for pk in unknown]})
        try:
            test = abtest_create(by=request.user, game=values["game"], num_players=values["num_players"],
                                 a=found[values["a"]], b=found[values["b"]], elo0=values["elo0"],
                                 elo1=values["elo1"], max_games=values.get("max_games"),
                                 opponents=[found[pk] for pk in values["opponents"]])
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from None
        except ABTestLimitReached as exc:
            raise Throttled(detail=" ".join(exc.messages)) from None
        except DjangoValidationError as exc:
            raise _error(exc) from None
        return Response(self.get_serializer(self._get(test.pk)).data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        test = self._get(pk)
        try:
            test = abtest_stop(by=request.user, test=test)
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from None
        except DjangoValidationError as exc:
            raise _error(exc) from None
        return Response(self.get_serializer(self._get(test.pk)).data)
