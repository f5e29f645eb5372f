"""Pagination shared by every list endpoint of the API.

Small lists (games, ladders, leaderboards, bots, versions) go by page number with a count.
Lists that grow without bound (matches, challenges, rating histories) go by keyset
(``arena.keyset``): ``?before=ID`` / ``?after=ID`` from the ``next`` and ``previous`` links, and
no count, so that the last page costs what the first costs. Bad paging values are refused with
400, not ignored.
"""

from __future__ import annotations

from django.core.paginator import InvalidPage, Paginator
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import remove_query_param, replace_query_param

from arena.keyset import MAX_ID, Bounds, KeysetPage, keyset_page, parse_id

MAX_PAGE_SIZE = 200


def _page_size(request, default: int) -> int:
    raw = request.query_params.get("page_size")
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise ValidationError({"page_size": ["Use a whole number from 1 (at most 200 are sent)."]})
    return min(int(raw), MAX_PAGE_SIZE)


def _page_size_parameter() -> dict:
    return {"name": "page_size", "required": False, "in": "query",
            "description": f"Rows per page (default {api_settings.PAGE_SIZE}; above {MAX_PAGE_SIZE} "
                           f"counts as {MAX_PAGE_SIZE}).",
            "schema": {"type": "integer", "minimum": 1}}


class StandardPagination(PageNumberPagination):
    """``?page=N`` and ``?page_size=M`` (at most 200); the default size comes from ``PAGE_SIZE``."""

    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request):
        return _page_size(request, self.page_size)

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        raw = request.query_params.get(self.page_query_param, "1")
        if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
            raise ValidationError({"page": ["Use a page number from 1."]})
        paginator = Paginator(queryset, self.get_page_size(request))
        try:
            self.page = paginator.page(int(raw))
        except InvalidPage:
            raise NotFound(f"There is no page {raw}: the last page is {paginator.num_pages}.") from None
        return list(self.page)

    def get_schema_operation_parameters(self, view):
        return [{"name": "page", "required": False, "in": "query",
                 "description": "A page number (from 1); past the last page: 404.",
                 "schema": {"type": "integer", "minimum": 1}},
                _page_size_parameter()]


class KeysetPagination(BasePagination):
    """Newest first by id: ``next`` holds ``?before=<last id>``, ``previous`` ``?after=<first id>``.

    Views may read :meth:`bounds` first and hand them to a selector that can use them deeper
    than the outer query (``match_list`` bounds a bot's seats before joining its matches).
    """

    newest_first = True

    def bounds(self, request) -> Bounds:
        """The page's starting point from ``?before``/``?after``; 400 for a bad value."""
        if "page" in request.query_params:
            raise ValidationError({"page": ["This list has no page numbers: follow its next and previous "
                                            "links (?before=ID, ?after=ID)."]})
        values = {}
        for name in ("before", "after"):
            raw = request.query_params.get(name)
            try:
                if raw == "":
                    raise ValueError("Use a row id (a positive integer).")
                values[name] = parse_id(raw)
            except ValueError as exc:
                raise ValidationError({name: [str(exc)]}) from None
        return Bounds(**values)

    def limit(self, request) -> int:
        """The rows a page reads: its size and one more (that says whether another page follows)."""
        return _page_size(request, api_settings.PAGE_SIZE) + 1

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        bounds = self.bounds(request)
        self.page: KeysetPage = keyset_page(queryset, bounds=bounds, size=_page_size(request, api_settings.PAGE_SIZE),
                                            newest_first=self.newest_first,
                                            order_field=getattr(view, "keyset_order_field", "pk"))
        return self.page.rows

    def _link(self, bounds: Bounds | None) -> str | None:
        if bounds is None:
            return None
        url = remove_query_param(remove_query_param(self.request.build_absolute_uri(), "before"), "after")
        if bounds.before is not None:
            return replace_query_param(url, "before", bounds.before)
        if bounds.after is not None:
            return replace_query_param(url, "after", bounds.after)
        return url

    def get_paginated_response(self, data):
        return Response({"next": self._link(self.page.next_bounds),
                         "previous": self._link(self.page.previous_bounds),
                         "results": data})

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {
                "next": {"type": "string", "nullable": True, "format": "uri",
                         "description": "The following page (null on the last page)."},
                "previous": {"type": "string", "nullable": True, "format": "uri",
                             "description": "The page before (null on the first page)."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {"name": "before", "required": False, "in": "query",
             "description": "Only rows with an id below this one (older rows); from a next or "
                            "previous link.",
             "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID}},
            {"name": "after", "required": False, "in": "query",
             "description": "Only rows with an id above this one (newer rows); from a next or "
                            "previous link. With before too: the rows between.",
             "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID}},
            _page_size_parameter(),
        ]


class OldestFirstKeysetPagination(KeysetPagination):
    """Oldest first by id (histories): ``next`` holds ``?after=<last id>``, ``previous`` ``?before=``."""

    newest_first = False
