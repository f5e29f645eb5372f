from django.contrib import admin

from arena.bots.models import Bot, BotVersion


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


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "size", "status", "created_at", "validated_at")
    list_filter = ("status", "kind", "bot__game")
    search_fields = ("bot__name", "sha256")
    readonly_fields = ("sha256", "size", "created_at")
    raw_id_fields = ("bot",)
