"""Apply the retention policy (docs/retention.md); without --apply, only print what it would prune.

    python manage.py arena_prune [--days N] [--archives] [--snapshot-days N] [--apply]

Old finished challenges lose their replays and seat logs (fault messages keep their first line);
with --archives, bot versions that can never play again lose their archives. Rating snapshots older
than --snapshot-days are thinned to the last of each day (each rating keeps its first). Ladder and
tournament matches, unfinished matches and anything newer than its cutoff are never touched.
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
        parser.add_argument("--snapshot-days", type=int, default=None,
                            help="keep every rating snapshot of this many days, older ones the last of each day "
                                 f"(default RETENTION_SNAPSHOT_DAYS, {settings.RETENTION_SNAPSHOT_DAYS})")
        parser.add_argument("--apply", action="store_true", help="prune; without it nothing changes")

    def handle(self, *args, days=None, archives=None, snapshot_days=None, apply=False, **options):
        days = settings.RETENTION_DAYS if days is None else days
        archives = settings.RETENTION_ARCHIVES if archives is None else archives
        snapshot_days = settings.RETENTION_SNAPSHOT_DAYS if snapshot_days is None else snapshot_days
        try:
            report = retention_prune(days=days, apply=apply, archives=archives, snapshot_days=snapshot_days)
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
        self.stdout.write(f"rating snapshots taken more than {snapshot_days} days ago: {verb} {report.snapshots} "
                          "snapshot(s) (each rating keeps its first and the last of each day)")
        if not apply:
            self.stdout.write("dry run: nothing was changed (--apply prunes)")
