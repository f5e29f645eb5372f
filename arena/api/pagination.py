"""Pagination shared by every list endpoint of the API."""

from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """``?page=N`` and ``?page_size=M`` (at most 200); the default size comes from ``PAGE_SIZE``."""

    page_size_query_param = "page_size"
    max_page_size = 200
