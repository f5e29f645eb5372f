"""/api/notifications/: the signed-in user's own feed, its unread count, marking read, and the
kinds they want in the site and by e-mail. Nobody reads or marks another user's notifications."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.pagination import KeysetPagination
from arena.api.serializers import StrictInputSerializer
from arena.notifications.models import Kind, Notification
from arena.notifications.selectors import notifications_of, notifications_unread_count
from arena.notifications.services import notifications_mark_read, preferences_of, preferences_set


class NotificationSerializer(serializers.ModelSerializer):
    """One notification: what it is about (``kind``), its words, the page to follow, when it was read."""

    read = serializers.BooleanField(source="is_read", read_only=True)

    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "url", "created_at", "read", "read_at"]
        read_only_fields = fields


class MarkReadSerializer(StrictInputSerializer):
    """Input of ``POST /api/notifications/read/``: the ids to mark read, or none for all."""

    ids = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False,
                                max_length=1000, help_text="Your notifications' ids; leave out to mark all read.")


class NotificationChoiceSerializer(serializers.Serializer):
    """One kind's choice: where it is told."""

    site = serializers.BooleanField(help_text="Shown in the site's feed (the bell).")
    email = serializers.BooleanField(help_text="Sent by e-mail to the account's address.")


class NotificationChoiceChangeSerializer(StrictInputSerializer):
    """A change of one kind's choice: site and/or email."""

    site = serializers.BooleanField(required=False, help_text="Shown in the site's feed (the bell).")
    email = serializers.BooleanField(required=False, help_text="Sent by e-mail to the account's address.")


# Every kind's choice (answers), and a PATCH naming the kinds it changes: strict input, so the
# schema says additionalProperties: false, as the view refuses a kind or channel it does not know.
_SETTINGS = type("NotificationSettingsSerializer", (serializers.Serializer,),
                 {kind.value: NotificationChoiceSerializer() for kind in Kind})
_SETTINGS_CHANGE = type("NotificationSettingsChangeSerializer", (StrictInputSerializer,),
                        {kind.value: NotificationChoiceChangeSerializer(required=False) for kind in Kind})


class NotificationListView(APIView):
    """Your notifications, newest first (keyset pages)."""

    permission_classes = [permissions.IsAuthenticated]
    pagination_class = KeysetPagination

    @extend_schema(summary="Your notifications, newest first", responses=NotificationSerializer(many=True),
                   parameters=[OpenApiParameter("unread", bool, description="Only those not read yet.")])
    def get(self, request):
        unread = request.query_params.get("unread", "").lower()
        if unread not in ("", "true", "false", "1", "0"):
            raise ValidationError({"unread": ["true or false."]})
        paginator = self.pagination_class()
        rows = notifications_of(user=request.user, unread_only=unread in ("true", "1"))
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(NotificationSerializer(page, many=True).data)


class NotificationUnreadView(APIView):
    """The bell's number: how many of your notifications are unread."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="How many of your notifications are unread",
                   responses=inline_serializer("NotificationUnread", fields={"unread": serializers.IntegerField()}))
    def get(self, request):
        return Response({"unread": notifications_unread_count(user=request.user)})


class NotificationReadView(APIView):
    """Mark some (``ids``) or all of your notifications read; others' ids change nothing."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Mark your notifications read", request=MarkReadSerializer,
                   responses=inline_serializer("NotificationsMarked", fields={"marked": serializers.IntegerField(),
                                                                              "unread": serializers.IntegerField()}))
    def post(self, request):
        data = MarkReadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        marked = notifications_mark_read(user=request.user, ids=data.validated_data.get("ids"))
        return Response({"marked": marked, "unread": notifications_unread_count(user=request.user)})


class NotificationSettingsView(APIView):
    """Which kinds you are told of, in the site and by e-mail. PATCH changes the kinds it names."""

    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [JSONParser]   # nested choices: a form's flat fields cannot say them

    @extend_schema(summary="Your notification settings", responses=_SETTINGS)
    def get(self, request):
        return Response(preferences_of(user=request.user))

    @extend_schema(summary="Change your notification settings (the kinds named)", request=_SETTINGS_CHANGE, responses=_SETTINGS)
    def patch(self, request):
        # A PATCH names what it changes: {} (or a kind with {}) changes nothing, as the schema's
        # partial body allows; anything else that is not a JSON object is refused.
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["A JSON object: {kind: {\"site\": bool, \"email\": bool}}."]})
        try:
            return Response(preferences_set(user=request.user, choices=dict(request.data)))
        except ValueError as exc:
            raise ValidationError({"non_field_errors": [str(exc)]}) from None
