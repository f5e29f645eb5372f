"""manage.py batch_refit: refit the batch ratings now (the beat task does it every BATCH_REFIT_INTERVAL)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from arena.ladders.batch import batch_refit
from arena.ladders.models import Ladder


class Command(BaseCommand):
    help = "Refit the batch ratings (with their intervals) of every multi-seat ladder, or of the ones named."

    def add_arguments(self, parser):
        parser.add_argument("--ladder", action="append", metavar="SLUG",
                            help="refit only this ladder (may be given more than once)")
        parser.add_argument("--if-new", action="store_true",
                            help="skip ladders without rated results since their last fit (what the beat task does)")

    def handle(self, *args, ladder=None, if_new=False, **options):
        ladders = Ladder.objects.order_by("slug")
        if ladder:
            ladders = ladders.filter(slug__in=ladder)
            missing = sorted(set(ladder) - set(ladders.values_list("slug", flat=True)))
            if missing:
                raise CommandError(f"no such ladder: {', '.join(missing)}")
        for one in ladders:
            if one.is_solo:
                self.stdout.write(f"{one.slug}: solo, ranked by mean score (no batch rating)")
                continue
            refitted = batch_refit(ladder=one, force=not if_new)
            fitted = one.ratings.filter(batch_rating__isnull=False).count()
            self.stdout.write(f"{one.slug}: {'refitted' if refitted else 'unchanged'}, {fitted} bot(s) rated")
