from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from arena.formfields import JSONField
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.services import ladder_enter_ready_bots, ladder_validate, ladder_validate_rotation
from engines import list_games


class LadderAdminForm(forms.ModelForm):
    """The rules of ``ladder_create`` for ladders made or changed in the admin: a registered
    game, a seat count it takes, options it accepts (each error beside its field)."""

    game = forms.ChoiceField(choices=())

    class Meta:
        model = Ladder
        fields = "__all__"
        field_classes = {"options": JSONField}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g.id, f"{g.title} ({g.id})") for g in list_games()]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            ladder_validate(game=data["game"], seat_count=data["seat_count"], options=data.get("options"))
            ladder_validate_rotation(rotation=data.get("rotation", ""), seat_count=data["seat_count"])
        except ValidationError as exc:
            field = {"unknown_game": "game", "seat_count": "seat_count", "options": "options",
                     "rotation": "rotation"}.get(exc.code)
            self.add_error(field, exc)
        return data


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    form = LadderAdminForm
    list_display = ("slug", "name", "game", "seat_count", "k_factor", "queue_size", "rotation", "matchmaking",
                    "batch_model", "active")
    list_filter = ("game", "active")
    prepopulated_fields = {"slug": ("name",)}

    def save_model(self, request, obj, form, change):
        """Save, then enter every ready bot of the game when the ladder is active (as ladder_create does):
        without entries matchmaking would never fill it."""
        super().save_model(request, obj, form, change)
        ladder_enter_ready_bots(ladder=obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never edited: ratings change only by recording matches (once each), and
    ``manage.py ratings_check --fix`` is how a wrong one is put right."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("bot", "ladder", "elo", "games", "wins", "draws", "losses", "faults", "last_played_at")
    list_filter = ("ladder",)
    search_fields = ("bot__name",)
    raw_id_fields = ("bot",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("bot", "ladder", "match", "sequence", "before", "after", "created_at")
    list_filter = ("ladder",)
    search_fields = ("bot__name",)
    raw_id_fields = ("bot", "match")
