"""The OpenAPI schema: drf-spectacular's, plus the error answers each operation can give.

drf-spectacular documents the successful answers only. Clients (and schemathesis in the test
suite) also need the refusals: 400 for bad input, 401 for a bad or missing token, 403 for
someone else's bot, 404 for a missing object or page, 415 for a body of another media type,
429 when throttled, and the 414 gunicorn answers itself to a request line too long. All of them have a JSON body saying why. And the input bodies that refuse
fields they do not know say so (``additionalProperties: false``).
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

ERROR_BODY = {
    "type": "object",
    "description": "Why the request was refused: `detail` (a sentence), or one list of messages per input field.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
WRITES = {"POST", "PUT", "PATCH", "DELETE"}
# gunicorn's default limit_request_line (gunicorn.conf.py keeps it): a longer request line is a 414.
GUNICORN_REQUEST_LINE = 4094


def _error(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": ERROR_BODY}}}


class ArenaAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema with each operation's error responses added."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        parameters = operation.get("parameters", [])
        query = {p["name"] for p in parameters if p.get("in") == "query"}
        writes = method.upper() in WRITES

        def add(code: int, description: str) -> None:
            responses.setdefault(str(code), _error(description))

        if query or writes:
            add(400, "Bad input: a parameter or field that is missing, of the wrong type or out of range.")
        add(401, "The token sent is not valid, or this operation needs a signed-in user and there is none.")
        if writes:
            add(403, "Signed in, but not allowed: not the bot's owner (or staff), or a session without its "
                     "CSRF token.")
        if "{" in path or "page" in query:
            add(404, "No such object, or a page past the last one.")
        if "requestBody" in operation:
            add(415, "The body is not of a media type this operation reads.")
        # Every request may meet the per-client cap of requests at once (arena.web.middleware), and
        # anonymous reads a throttle (arena.api.throttles); the views' own throttles add to those.
        add(429, "Too many requests: too many at once from your address, or past a throttle's rate; try "
                 "again after the Retry-After header's seconds.")
        # Answered by the web server (gunicorn's limit_request_line), before the application: in HTML.
        responses.setdefault("414", {
            "description": "The request line (method, path and query) is longer than the server reads "
                           f"({GUNICORN_REQUEST_LINE} bytes): refused by gunicorn, with an HTML body.",
            "content": {"text/html": {"schema": {"type": "string"}}}})
        return operation

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        from arena.api.serializers import StrictInputSerializer

        if direction == "request" and isinstance(serializer, StrictInputSerializer):
            schema["additionalProperties"] = False  # such input refuses a field it does not know
        return schema
