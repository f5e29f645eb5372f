from django.contrib import admin

from arena.matches.models import Match, MatchSeat
from arena.matches.services import match_requeue


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
