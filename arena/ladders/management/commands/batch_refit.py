"""manage.py batch_refit: refit the batch ratings now (the beat task does it every BATCH_REFIT_INTERVAL)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from arena.ladders.batch import batch_refit
from arena.ladders.management.commands import ladders_named


class Command(BaseCommand):
    help = "Refit the batch ratings (with their intervals) of every multi-seat ladder, or of the ones named."

    def add_arguments(self, parser):
        parser.add_argument("--ladder", action="append", metavar="SLUG",
                            help="refit only this ladder (may be given more than once)")
        parser.add_argument("--if-new", action="store_true",
                            help="skip ladders without rated results since their last fit (what the beat task does)")

    def handle(self, *args, ladder=None, if_new=False, **options):
        ladders = ladders_named(ladder)
        for one in ladders:
            if one.is_solo:
                self.stdout.write(f"{one.slug}: solo, ranked by mean score (no batch rating)")
                continue
            refitted = batch_refit(ladder=one, force=not if_new)
            fitted = one.ratings.filter(batch_rating__isnull=False).count()
            self.stdout.write(f"{one.slug}: {'refitted' if refitted else 'unchanged'}, {fitted} bot(s) rated "
                              f"on {one.batch_model}")
