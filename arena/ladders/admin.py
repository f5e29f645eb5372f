from django.contrib import admin

from arena.ladders.models import Ladder, Rating, RatingChange


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "game", "seat_count", "k_factor", "queue_size", "active")
    list_filter = ("game", "active")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot", "ladder", "elo", "games", "wins", "draws", "losses", "faults", "last_played_at")
    list_filter = ("ladder",)
    search_fields = ("bot__name",)
    raw_id_fields = ("bot",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("bot", "ladder", "match", "before", "after", "created_at")
    list_filter = ("ladder",)
    search_fields = ("bot__name",)
    raw_id_fields = ("bot", "match")
