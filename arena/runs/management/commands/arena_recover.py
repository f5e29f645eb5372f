"""Recover what a stopped local run left behind: re-queue its running matches (smoke tests are matches), send what waits.

    python manage.py arena_recover --worker-prefix arena-local@HOST

Only for workers that are certainly gone (scripts/run.sh calls it before starting its own).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from arena.matches.services import match_requeue_abandoned
from arena.runs.recovery import recovery_sweep


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--worker-prefix", required=True,
                            help="node@host of the stopped worker, as recorded on its matches")

    def handle(self, *args, worker_prefix: str, **options):
        requeued = match_requeue_abandoned(worker_prefix=worker_prefix)
        report = recovery_sweep(ask_broker=False)
        if requeued or report.sent:
            self.stdout.write(f"recovered {len(requeued)} match(es) left running by {worker_prefix}; "
                              f"sent {len(report.sent)} message(s) for waiting work")
