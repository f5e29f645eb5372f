from django.apps import AppConfig


class RunsConfig(AppConfig):
    """The orchestration above the apps: Celery tasks, recording with ratings, smoke tests, recovery."""

    name = "arena.runs"
    label = "runs"

    def ready(self):
        from arena.matches.signals import match_finished
        from arena.runs import notify

        match_finished.connect(notify.after_match, dispatch_uid="runs-notify-after-match")
