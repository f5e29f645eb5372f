"""Recompute every ladder's ratings from the stored match results and report any difference.

    python manage.py ratings_check [--ladder SLUG] [--fix]

Matches are replayed in the order their rating changes were applied, with the project's own Elo
(competition/ratings/standing.py). Exit status 1 when a stored rating or rating change differs from the
recomputation; with --fix the recomputed values are written instead (exit 0 once fixed).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from arena.ladders.management.commands import ladders_named
from arena.ladders.recompute import ratings_check, ratings_fix


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--ladder", action="append", metavar="SLUG",
                            help="check only this ladder (may be given more than once)")
        parser.add_argument("--fix", action="store_true", help="rewrite what differs with the recomputed values")

    def handle(self, *args, ladder=None, fix=False, **options):
        ladders = ladders_named(ladder)
        differing = 0
        for one in ladders:
            result = ratings_fix(ladder=one) if fix else ratings_check(ladder=one)
            bots = len(result.standings)
            if not result.differences:
                self.stdout.write(f"{one.slug}: {result.matches} rated match(es), {bots} bot(s): ok")
                continue
            differing += 1
            verb = "fixed" if fix else "differ"
            self.stdout.write(f"{one.slug}: {result.matches} rated match(es), {bots} bot(s): "
                              f"{len(result.differences)} value(s) {verb}")
            for difference in result.differences:
                self.stdout.write(f"  {difference}")
        if differing and not fix:
            raise CommandError(f"{differing} ladder(s) differ from the recomputation "
                               f"(run with --fix to rewrite them)", returncode=1)
