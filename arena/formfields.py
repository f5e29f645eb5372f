"""Form fields shared by the admin's forms."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput


class JSONField(forms.JSONField):
    """Django's JSON form field, with JSON nested deeper than Python's parser recurses (``[[[[...``,
    a few thousand levels) an error beside the field instead of a RecursionError (500)."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except RecursionError:
            raise ValidationError("This JSON is nested too deeply.", code="invalid") from None

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except RecursionError:  # the form is shown again with what was typed
            return InvalidJSONInput(data)
