from django.contrib import admin

from arena.notifications.models import Notification, Preference


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "kind", "title", "created_at", "read_at", "emailed"]
    list_filter = ["kind"]
    raw_id_fields = ["user"]
    search_fields = ["title", "user__username"]


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "site", "email"]
    raw_id_fields = ["user"]
