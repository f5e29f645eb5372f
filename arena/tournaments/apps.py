from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "arena.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from arena.matches.signals import match_finished

        match_finished.connect(_advance_after_match, dispatch_uid="tournaments-advance-after-match")


def _advance_after_match(sender, match_id: int, **kwargs) -> None:
    from arena.tournaments.tasks import advance_after_match

    advance_after_match(match_id)
