from django.contrib import admin

from arena.bots.models import Bot, BotVersion, SmokeTest


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "kind", "filename", "size", "sha256", "status", "validated_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "owner", "builtin", "active_version", "is_active", "created_at")
    list_filter = ("game", "is_active")
    search_fields = ("name", "owner__username")
    raw_id_fields = ("owner", "active_version")
    inlines = [BotVersionInline]


class SmokeTestInline(admin.TabularInline):
    model = SmokeTest
    extra = 0
    fields = ("index", "seat_count", "options", "seat", "seed", "status", "attempts", "fault_kind", "finished_at")
    readonly_fields = fields
    can_delete = False


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    """Staff may clear ``paused_at`` to let a paused version play again (its owner can too)."""

    list_display = ("__str__", "kind", "size", "status", "paused_at", "created_at", "validated_at")
    list_filter = ("status", "kind", "bot__game", ("paused_at", admin.EmptyFieldListFilter))
    search_fields = ("bot__name", "sha256")
    readonly_fields = ("sha256", "size", "created_at", "pause_reason", "resumed_at")
    raw_id_fields = ("bot",)
    inlines = [SmokeTestInline]
