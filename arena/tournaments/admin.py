"""Tournament admin (staff only): a create form validated by the services, and the actions
start now, pause, resume, cancel, re-run failed games and extend a Swiss, each a service call
whose error is shown as an admin message."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.text import slugify

from arena.bots.models import Bot
from arena.formfields import JSONField
from arena.matches.models import Match
from arena.tournaments.models import Entrant, Round, Table, Tournament
from arena.tournaments.services import (
    tournament_cancel,
    tournament_create,
    tournament_extend,
    tournament_pause,
    tournament_rerun_failed,
    tournament_resume,
    tournament_start,
    tournament_validate,
)
from engines import list_games

# Which form field a service's ValidationError code belongs to.
_FIELDS = {"name": "name", "slug": "slug", "unknown_game": "game", "seat_count": "seat_count",
           "options": "options", "format": "format", "rounds": "rounds", "advance": "advance",
           "orders": "orders", "points": "points", "ladder": "ladder", "bots": "bots", "entry": "entry"}


class TournamentAdminForm(forms.ModelForm):
    """Every rule of ``tournament_create``, each error beside its field."""

    game = forms.ChoiceField(choices=())
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.order_by("game", "name"), required=False,
        help_text="Picked entrants (entry 'picked bots'); each needs a ready version.")

    class Meta:
        model = Tournament
        fields = ["name", "slug", "game", "seat_count", "options", "format", "rounds", "advance", "orders",
                  "points", "entry", "ladder", "bots", "freeze_versions", "start_at"]
        field_classes = {"options": JSONField, "points": JSONField}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g.id, f"{g.title} ({g.id})") for g in list_games()]
        self.fields["slug"].required = False
        self.fields["slug"].help_text = "Left blank: made from the name."

    def clean(self):
        data = super().clean()
        if self.errors:
            return data

        data["slug"] = data.get("slug") or slugify(data["name"])[:60]
        try:
            tournament_validate(
                name=data["name"], slug=data["slug"], game=data["game"], seat_count=data["seat_count"],
                format=data["format"], bots=list(data.get("bots") or []), entry=data["entry"],
                ladder=data.get("ladder"), options=data.get("options"), rounds=data.get("rounds"),
                advance=data.get("advance"), orders=data["orders"], points=data.get("points") or None)
        except ValidationError as exc:
            self.add_error(_FIELDS.get(exc.code), exc)
        return data


class ReadOnlyInline(admin.TabularInline):
    """Rows the services write (entrants at the start, rounds as they are paired): shown, never edited."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None):
        return False


class EntrantInline(ReadOnlyInline):
    model = Entrant
    fields = ("name", "bot", "version", "seed", "rating", "eliminated_in")


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ("number", "seed", "byes", "forfeits", "created_at", "finished_at")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = ("name", "slug", "game", "seat_count", "format", "rounds", "status", "start_at", "finished_at")
    list_filter = ("status", "format", "game")
    search_fields = ("name", "slug")
    actions = ["start_now", "pause", "resume", "cancel", "rerun_failed", "extend_swiss"]
    # Once stored, a tournament changes through its actions only (a new setup would void its rounds).
    change_readonly = ("slug", "game", "seat_count", "options", "format", "rounds", "advance", "orders", "points",
                       "entry", "ladder", "freeze_versions", "start_at", "status", "note", "started_at",
                       "finished_at")

    def get_readonly_fields(self, request, obj=None):
        return self.change_readonly if obj is not None else ()

    def get_fields(self, request, obj=None):
        if obj is None:
            return TournamentAdminForm.Meta.fields
        return ("name", *self.change_readonly)

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            kwargs["form"] = forms.ModelForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_inlines(self, request, obj):
        return [EntrantInline, RoundInline] if obj is not None else []

    def save_model(self, request, obj, form, change):
        """A new tournament goes through ``tournament_create`` (validated, entrants stored with it)."""
        if change:
            obj.save(update_fields=["name"])
            return
        data = form.cleaned_data
        created = tournament_create(
            name=data["name"], slug=data["slug"], game=data["game"], seat_count=data["seat_count"],
            format=data["format"], bots=list(data.get("bots") or []), entry=data["entry"], ladder=data.get("ladder"),
            options=data.get("options") or None, rounds=data.get("rounds"), advance=data.get("advance"),
            orders=data["orders"], points=data.get("points") or None, freeze_versions=data["freeze_versions"],
            start_at=data["start_at"], created_by=request.user)
        obj.pk = created.pk
        obj.__dict__.update({k: v for k, v in created.__dict__.items() if not k.startswith("_")})
        obj._state.adding = False

    def save_related(self, request, form, formsets, change):
        """Entrants are stored by the service; inlines are read-only."""

    def _each(self, request, queryset, service, done: str):
        ok = 0
        for tournament in queryset:
            try:
                service(tournament)
                ok += 1
            except ValidationError as exc:
                self.message_user(request, f"{tournament.name}: {' '.join(exc.messages)}", level=messages.ERROR)
        if ok:
            self.message_user(request, f"{ok} tournament(s) {done}.", level=messages.SUCCESS)

    @admin.action(description="Start the selected tournaments now")
    def start_now(self, request, queryset):
        self._each(request, queryset, lambda t: tournament_start(tournament_id=t.pk), "started")

    @admin.action(description="Pause (running games finish, nothing new is sent)")
    def pause(self, request, queryset):
        self._each(request, queryset, lambda t: tournament_pause(tournament_id=t.pk), "paused")

    @admin.action(description="Resume the selected paused tournaments")
    def resume(self, request, queryset):
        self._each(request, queryset, lambda t: tournament_resume(tournament_id=t.pk), "resumed")

    @admin.action(description="Cancel the selected tournaments")
    def cancel(self, request, queryset):
        self._each(request, queryset, lambda t: tournament_cancel(tournament_id=t.pk), "cancelled")

    @admin.action(description="Re-run the failed games (same seed, same seats, unrated)")
    def rerun_failed(self, request, queryset):
        def rerun(tournament):
            rounds = sorted(set(Match.objects.filter(
                group__tournament_table__round__tournament=tournament, status=Match.Status.FAILED)
                .values_list("group__tournament_table__round__number", flat=True)))
            if not rounds:
                raise ValidationError(f"{tournament.name} has no failed game.")
            for number in rounds:
                tournament_rerun_failed(tournament_id=tournament.pk, round_number=number)

        self._each(request, queryset, rerun, "had their failed games re-queued")

    @admin.action(description="Extend the selected Swiss tournaments by a round")
    def extend_swiss(self, request, queryset):
        self._each(request, queryset, lambda t: tournament_extend(tournament_id=t.pk), "extended by a round")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "round", "index", "entrant_ids", "group")
    raw_id_fields = ("round", "group")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
