from django.apps import AppConfig


class RunsConfig(AppConfig):
    """The orchestration above the apps: it follows their signals and owns no rows."""

    name = "arena.runs"
    label = "runs"
    verbose_name = "Runs"

    def ready(self):
        from arena.bots.signals import version_judged
        from arena.matches.signals import match_finished
        from arena.runs import notify

        match_finished.connect(notify.after_match, dispatch_uid="runs-notify-after-match")
        version_judged.connect(notify.after_version_judged, dispatch_uid="runs-notify-after-version")
