from django.apps import AppConfig


class LaddersConfig(AppConfig):
    name = "arena.ladders"
    label = "ladders"
    verbose_name = "Ladders and ratings"
