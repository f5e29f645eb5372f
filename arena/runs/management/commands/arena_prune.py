"""Apply the retention policy (docs/retention.md); without --apply, only print what it would prune.

    python manage.py arena_prune [--days N] [--archives] [--apply]

Old finished challenges lose their replays and seat logs (fault messages keep their first line);
with --archives, bot versions that can never play again lose their archives. Ladder and tournament
matches, unfinished matches and anything newer than the cutoff are never touched.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from arena.runs.retention import retention_prune


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None,
                            help=f"keep this many days (default RETENTION_DAYS, {settings.RETENTION_DAYS})")
        parser.add_argument("--archives", action="store_true", default=None,
                            help="also empty the archives of versions that can never play again "
                                 "(default RETENTION_ARCHIVES)")
        parser.add_argument("--apply", action="store_true", help="prune; without it nothing changes")

    def handle(self, *args, days=None, archives=None, apply=False, **options):
        days = settings.RETENTION_DAYS if days is None else days
        archives = settings.RETENTION_ARCHIVES if archives is None else archives
        try:
            report = retention_prune(days=days, apply=apply, archives=archives)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        verb = "pruned" if apply else "would prune"
        self.stdout.write(f"challenges finished more than {days} days ago: {verb} {report.replays} replay(s)"
                          + ("" if apply else f" ({report.replay_bytes} bytes)")
                          + f", {report.logs} seat log(s)" + ("" if apply else f" ({report.log_chars} characters)")
                          + f", cut {report.fault_messages} fault message(s) to their first line")
        if archives:
            self.stdout.write(f"bot versions that can never play again: {verb} {report.archives} archive(s)"
                              + ("" if apply else f" ({report.archive_bytes} bytes)"))
        if not apply:
            self.stdout.write("dry run: nothing was changed (--apply prunes)")
