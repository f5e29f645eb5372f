"""The REST API (Django REST framework): serializers, views, routes and the OpenAPI schema."""
