from django.contrib import admin

from django.urls import reverse
from django.utils.html import format_html_join

from arena.bots.models import Bot, BotVersion
from arena.matches.smoke import smoke_tests_of


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
    """Staff may clear ``paused_at`` to let a paused version play again (its owner can too)."""

    list_display = ("__str__", "kind", "size", "status", "paused_at", "created_at", "validated_at")
    list_filter = ("status", "kind", "bot__game", ("paused_at", admin.EmptyFieldListFilter))
    search_fields = ("bot__name", "sha256")
    readonly_fields = ("sha256", "size", "created_at", "pause_reason", "resumed_at", "smoke_test")
    raw_id_fields = ("bot",)

    @admin.display(description="Smoke test")
    def smoke_test(self, version: BotVersion) -> str:
        """The version's smoke matches (its seat, seed, status, attempts, fault), each linked."""
        tests = smoke_tests_of(version_ids=[version.pk], texts=False).get(version.pk, [])
        return format_html_join(
            "; ", '<a href="{}">{} seats, seat {}, seed {}: {} ({} attempts){}</a>',
            ((reverse("admin:matches_match_change", args=[t.match_id]), t.seat_count, t.seat, t.seed, t.status,
              t.attempts, f", {t.fault_kind}" if t.fault_kind else "") for t in tests)) or "none"
