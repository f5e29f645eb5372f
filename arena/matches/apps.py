from pathlib import Path

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "arena.matches"
    label = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        """The embedded filesystem broker needs its folders before the first task is sent."""
        from django.conf import settings

        if settings.CELERY_BROKER_URL.startswith("filesystem"):
            options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
            for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
                if options.get(key):
                    Path(options[key]).mkdir(parents=True, exist_ok=True)
