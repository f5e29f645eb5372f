from django.apps import AppConfig


class RunsConfig(AppConfig):
    """The orchestration above the apps: Celery tasks, recording with ratings, smoke tests, recovery."""

    name = "arena.runs"
    label = "runs"
