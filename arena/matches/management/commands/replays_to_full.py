"""Convert stored compact replays to the full form before an engine changes (engine pinning).

    python manage.py replays_to_full [--game GAME] [--dry-run]

Run it on the release that is installed (the engine that recorded the replays), before deploying
a release that changes GAME's engine (docs/deploy.md). Exit 1 when compact replays are found that
the installed engine did not record (it cannot convert those: run the command of their release).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from arena.matches.replay_pinning import convert_compact_replays


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--game", help="only this game's replays (the engine about to change)")
        parser.add_argument("--dry-run", action="store_true", help="convert nothing; print what would be")

    def handle(self, *args, game=None, dry_run=False, **options):
        try:
            report = convert_compact_replays(game=game, dry_run=dry_run, write=self.stderr.write)
        except KeyError as exc:
            raise CommandError(exc.args[0] if exc.args else str(exc)) from None
        verb = "would convert" if dry_run else "converted"
        for kind, ids in report.converted.items():
            self.stdout.write(f"{verb} {len(ids)} compact {kind} replay(s) to the full form")
        if any(report.converted.values()):
            self.stdout.write(f"stored bytes {report.stored_bytes_before} -> {report.stored_bytes_after}")
        for kind, pk, game_id, version in report.stranded:
            self.stdout.write(f"{kind} {pk}: compact replay of {game_id} engine version {version!r}, not the "
                              "installed one: convert it with the release that recorded it")
        for kind, pk in report.unreadable:
            self.stdout.write(f"{kind} {pk}: the stored replay is not one this arena reads")
        if report.stranded:
            raise CommandError(f"{len(report.stranded)} compact replay(s) were recorded by another engine version")
