from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from arena.bots.models import BotVersion
from arena.formfields import JSONField
from arena.ladders.models import Ladder
from arena.matches.models import MAX_SEED, Match, MatchSeat
from arena.matches.services import match_create, match_requeue, match_validate
from engines import list_games

MAX_SEATS = max((g.max_players for g in list_games()), default=6)


class MatchAddForm(forms.ModelForm):
    """One chosen match, created through ``match_create`` so it is queued and really runs: ready
    versions seat by seat, a seed (drawn when blank), options; rated needs its ladder."""

    game = forms.ChoiceField(choices=())
    seed = forms.IntegerField(required=False, min_value=0, max_value=MAX_SEED, help_text="Blank: drawn at random.")
    rated = forms.BooleanField(required=False, help_text="Rated on the ladder below; unrated otherwise.")
    ladder = forms.ModelChoiceField(queryset=Ladder.objects.all(), required=False)
    options = JSONField(required=False, initial=dict)

    class Meta:
        model = Match
        fields = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g.id, f"{g.title} ({g.id})") for g in list_games()]
        ready = BotVersion.objects.filter(status=BotVersion.Status.READY).select_related("bot").order_by(
            "bot__game", "bot__name", "-number")
        for seat in range(MAX_SEATS):
            self.fields[f"seat_{seat}"] = forms.ModelChoiceField(
                queryset=ready, required=seat == 0, label=f"Seat {seat}",
                help_text="A ready version; leave the last seats blank for fewer players." if seat == 0 else "")
            self.fields[f"seat_{seat}"].label_from_instance = lambda v: f"{v.label} ({v.bot.game})"

    def _post_clean(self):
        """No model validation of an unsaved instance: ``match_create`` builds and checks the match."""

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        versions = [data[f"seat_{s}"] for s in range(MAX_SEATS) if data.get(f"seat_{s}")]
        data["versions"] = versions
        if data.get("rated"):
            ladder = data.get("ladder")
            if ladder is None:
                self.add_error("ladder", "A rated match needs the ladder it is rated on.")
                return data
            if ladder.game != data["game"] or ladder.seat_count != len(versions):
                self.add_error("ladder", f"{ladder.slug} rates {ladder.game} at {ladder.seat_count} seats, not "
                                         f"{data['game']} at {len(versions)}.")
                return data
        try:
            match_validate(game=data["game"], versions=versions, options=data.get("options") or None)
        except ValidationError as exc:
            self.add_error("options" if exc.code == "options" else None, exc)
        return data


class MatchSeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    fields = ("seat", "bot_version", "score", "rank", "fault_kind", "fault_step", "fault_message")
    raw_id_fields = ("bot_version",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "game", "ladder", "status", "attempts", "worker", "created_at", "finished_at")
    list_filter = ("status", "kind", "game", "ladder")
    search_fields = ("id", "seats__bot_version__bot__name")
    raw_id_fields = ("requested_by",)
    readonly_fields = ("created_at",)
    inlines = [MatchSeatInline]
    actions = ["requeue"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = MatchAddForm
            kwargs["fields"] = None
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            seats = [f"seat_{s}" for s in range(MAX_SEATS)]
            return [(None, {"fields": ["game", *seats, "seed", "options", "rated", "ladder"]})]
        return super().get_fieldsets(request, obj)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def save_model(self, request, obj, form, change):
        """A new match goes through ``match_create``: queued, its task sent on commit."""
        if change:
            return super().save_model(request, obj, form, change)
        data = form.cleaned_data
        rated = bool(data.get("rated"))
        created = match_create(
            game=data["game"], versions=data["versions"], seed=data.get("seed"), options=data.get("options") or None,
            ladder=data.get("ladder") if rated else None,
            kind=Match.Kind.LADDER if rated else Match.Kind.CHALLENGE, requested_by=request.user)
        obj.pk = created.pk
        obj.__dict__.update({k: v for k, v in created.__dict__.items() if not k.startswith("_")})
        obj._state.adding = False

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)

    @admin.action(description="Re-queue the selected failed or stuck matches")
    def requeue(self, request, queryset):
        """Call match_requeue for each selected match and say how many went back to the queue."""
        sent = sum(match_requeue(match_id=pk) for pk in queryset.values_list("pk", flat=True))
        self.message_user(request, f"{sent} match(es) re-queued.")


@admin.register(MatchSeat)
class MatchSeatAdmin(admin.ModelAdmin):
    list_display = ("match", "seat", "bot_version", "score", "rank", "fault_kind")
    list_filter = ("fault_kind",)
    search_fields = ("bot_version__bot__name",)
    raw_id_fields = ("match", "bot_version")
