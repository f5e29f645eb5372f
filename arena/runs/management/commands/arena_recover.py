"""Recover what a stopped local run left behind: re-queue its running matches and smoke tests, send what waits.

    python manage.py arena_recover --worker-prefix arena-local@HOST

Only for workers that are certainly gone (scripts/run.sh calls it before starting its own).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from arena.bots.models import BotVersion
from arena.bots.services import SMOKE_TEST_OUTBOX
from arena.jobs.outbox import outbox_mark_unsent
from arena.matches.services import match_requeue_abandoned
from arena.runs.recovery import recovery_sweep


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--worker-prefix", required=True,
                            help="node@host of the stopped worker, as recorded on its matches")

    def handle(self, *args, worker_prefix: str, **options):
        requeued = match_requeue_abandoned(worker_prefix=worker_prefix)
        # The local worker ran every smoke test of this installation: none of their leases is alive.
        pending = BotVersion.objects.filter(status=BotVersion.Status.PENDING)
        pending.filter(smoke_lease_expires_at__isnull=False).update(smoke_lease_expires_at=None)
        outbox_mark_unsent(SMOKE_TEST_OUTBOX, pending)
        report = recovery_sweep(ask_broker=False)
        if requeued or report.sent:
            self.stdout.write(f"recovered {len(requeued)} match(es) left running by {worker_prefix}; "
                              f"sent {len(report.sent)} message(s) for waiting work")
