from django.apps import AppConfig


class ABTestsConfig(AppConfig):
    name = "arena.abtests"
    label = "abtests"
    verbose_name = "A/B tests"
