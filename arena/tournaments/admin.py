"""Tournament admin (staff only): a create form validated by the services, and the actions
start now, pause, resume, cancel, re-run failed games and extend a Swiss, each a service call
whose error is shown as an admin message.

The create form has a field per game option (a checkbox for a yes/no option, shown for the chosen
game only) and per format (rounds for round robin and Swiss, advance for elimination): no JSON to
type. tournament_admin.js hides what the chosen game and format do not use; the form refuses it."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import slugify

from arena.bots.models import Bot, BotVersion
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
    tournament_problems,
    tournament_start,
)
from arena.tournaments.selectors import tournament_progress
from engines import list_games

# Which form field a service's ValidationError code belongs to (None: above the form). Options come
# from typed fields, so an options error can only be one the fields cannot say (shown above).
_FIELDS = {"name": "name", "slug": "slug", "unknown_game": "game", "seat_count": "seat_count",
           "options": None, "format": "format", "rounds": "rounds", "advance": "advance",
           "orders": "orders", "points": "points", "ladder": "ladder", "bots": "bots", "entry": "entry"}


# The actions as buttons on a tournament's change page.
ACTION_LABELS = {"start_now": "Start now", "pause": "Pause", "resume": "Resume", "cancel": "Cancel",
                 "rerun_failed": "Re-run failed games", "extend_swiss": "Extend by a round (Swiss)"}


class BotPicker(forms.SelectMultiple):
    """Each bot's option says its game (``data-game``): tournament_admin.js shows the chosen game's only."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex=subindex, attrs=attrs)
        instance = getattr(value, "instance", None)
        if instance is not None:
            option["attrs"]["data-game"] = instance.game
        return option


class PointsField(forms.CharField):
    """Points by place as numbers separated by commas, best place first ("3, 1, 0"); blank: the default."""

    def to_python(self, value):
        text = (super().to_python(value) or "").strip()
        if text.startswith("["):   # JSON, as the field once took: its parser's errors (too deep...) hold
            parsed = JSONField(required=False).to_python(text)
            if parsed in (None, []):
                return None
            if not isinstance(parsed, list) or not all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in parsed):
                raise forms.ValidationError("Points are numbers separated by commas, best place first: 3, 1, 0.")
            return parsed
        if not text:
            return None
        try:
            points = [float(part) for part in text.replace(";", ",").split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError("Points are numbers separated by commas, best place first: 3, 1, 0.") from None
        return [int(p) if p.is_integer() else p for p in points]


def option_field_name(game: str, option: str) -> str:
    """The create form's field of one game's option."""
    return f"option__{game}__{option}"


def _option_field(game, option: str, default) -> forms.Field:
    attrs = {"data-game": game.id, "data-option": option}
    label = f"{game.title}: {option.replace('_', ' ')}"
    help_text = f"Option {option!r} of {game.id} (default {json.dumps(default)})."
    if isinstance(default, bool):
        return forms.BooleanField(required=False, initial=default, label=label, help_text=help_text,
                                  widget=forms.CheckboxInput(attrs=attrs))
    if isinstance(default, int):
        return forms.IntegerField(initial=default, label=label, help_text=help_text,
                                  widget=forms.NumberInput(attrs=attrs))
    return forms.CharField(initial=default, label=label, help_text=help_text, widget=forms.TextInput(attrs=attrs))


# One field per option of every game, declared on a base class so that the admin may name them.
OPTION_FIELDS = {option_field_name(game.id, option): (game.id, option, default)
                 for game in list_games() for option, default in game.default_options.items()}
GameOptionFields = type("GameOptionFields", (forms.Form,), {
    option_field_name(game.id, option): _option_field(game, option, default)
    for game in list_games() for option, default in game.default_options.items()})

# Fields that one format uses and the others refuse.
FORMAT_FIELDS = {"rounds": (Tournament.Format.ROUND_ROBIN, Tournament.Format.SWISS),
                 "advance": (Tournament.Format.ELIMINATION,)}


class TournamentAdminForm(GameOptionFields, forms.ModelForm):
    """Every rule of ``tournament_create``, every error beside its field at once."""

    game = forms.ChoiceField(choices=())
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.order_by("game", "name"), required=False, widget=BotPicker(attrs={"size": 12}),
        help_text="Picked entrants (entry 'picked bots'); each needs a ready version. Only the chosen game's bots are listed.")
    points = PointsField(required=False, help_text="Points by place, best first, separated by commas (e.g. 3, 1, 0); "
                                                   "blank: the number of seats beaten.")

    class Meta:
        model = Tournament
        fields = ["name", "slug", "game", "seat_count", "format", "rounds", "advance", "orders",
                  "points", "entry", "ladder", "bots", "freeze_versions", "start_at"]

    class Media:
        js = ("arena/tournament_admin.js",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g.id, f"{g.title} ({g.id})") for g in list_games()]
        self.fields["slug"].required = False
        self.fields["slug"].help_text = "Left blank: made from the name."
        self.fields["bots"].label_from_instance = lambda bot: f"{bot.name} ({bot.owner.username})"
        # Only bots that can enter (a ready active version): not the smoke tests' inactive opponents.
        self.fields["bots"].queryset = (Bot.objects.filter(active_version__status=BotVersion.Status.READY)
                                        .select_related("owner").order_by("game", "name"))

    def clean(self):
        data = super().clean()
        data["slug"] = data.get("slug") or slugify(data.get("name") or "")[:60]
        data["options"] = self._options(data)
        self._check_format_fields(data)
        # The service's rules on whatever parsed; a field that did not parse has its own error already.
        if any(name in self.errors for name in ("game", "seat_count", "format", "entry", "orders")):
            return data
        for problem in tournament_problems(
                name=data.get("name") or "", slug=data["slug"], game=data["game"], seat_count=data["seat_count"],
                format=data["format"], bots=list(data.get("bots") or []), entry=data["entry"],
                ladder=data.get("ladder"), options=data.get("options"), rounds=data.get("rounds"),
                advance=data.get("advance"), orders=data["orders"], points=data.get("points") or None):
            field = _FIELDS.get(problem.code)
            if field is not None and field in self.errors:
                continue   # that field's own error says enough
            self.add_error(field, problem)
        return data

    def _options(self, data) -> dict:
        """The chosen game's options that differ from their defaults (stored as the engine takes them)."""
        game = data.get("game")
        return {option: data[name] for name, (of, option, default) in OPTION_FIELDS.items()
                if of == game and name in data and data[name] is not None and data[name] != default}

    def _check_format_fields(self, data) -> None:
        """A value in a field the chosen format does not use is refused, not silently dropped."""
        chosen = data.get("format")
        if not chosen or "format" in self.errors:
            return
        for field, formats in FORMAT_FIELDS.items():
            if chosen not in formats and data.get(field) is not None and field not in self.errors:
                label = Tournament.Format(chosen).label
                uses = " and ".join(str(Tournament.Format(f).label) for f in formats)
                self.add_error(field, f"A {label} does not use {field} (only {uses} does): leave it blank.")


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

    change_form_template = "admin/tournaments/tournament/change_form.html"

    def view_on_site(self, obj):
        return reverse("web:tournament_detail", args=[obj.slug])

    def get_readonly_fields(self, request, obj=None):
        return ("public_page", "progress", *self.change_readonly) if obj is not None else ()

    def get_fields(self, request, obj=None):
        if obj is None:
            at = TournamentAdminForm.Meta.fields.index("format")
            return [*TournamentAdminForm.Meta.fields[:at], *OPTION_FIELDS, *TournamentAdminForm.Meta.fields[at:]]
        return ("name", "public_page", "progress", *self.change_readonly)

    @admin.display(description="Public page")
    def public_page(self, obj):
        url = reverse("web:tournament_detail", args=[obj.slug])
        return format_html('<a href="{}" data-role="public-page">{}</a>', url, url)

    @admin.display(description="Progress")
    def progress(self, obj):
        p = tournament_progress(obj)
        rounds = f"{p['rounds_done']} of {p['rounds_total']} rounds done" if p["rounds_total"] else f"{p['rounds_done']} round(s) done"
        return format_html('<span data-role="progress">{}: {} of {} games done, {} running, {} failed; {}, {} paired</span>',
                           obj.get_status_display(), p["matches_done"], p["matches_total"], p["matches_running"],
                           p["matches_failed"], rounds, p["rounds_paired"])

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The change page offers the actions (each a button posting the changelist's action for this one)."""
        extra_context = dict(extra_context or {})
        extra_context["tournament_actions"] = list(ACTION_LABELS.items())
        extra_context["changelist_url"] = reverse("admin:tournaments_tournament_changelist")
        return super().change_view(request, object_id, form_url, extra_context=extra_context)

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
