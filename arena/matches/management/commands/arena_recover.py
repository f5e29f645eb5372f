"""Recover what a stopped local run left behind: re-queue its running matches, re-send pending smoke tests.

    python manage.py arena_recover --worker-prefix arena-local@HOST

Only for workers that are certainly gone (scripts/run.sh calls it before starting its own).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from arena.bots.models import BotVersion
from arena.matches.services import match_requeue_abandoned


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--worker-prefix", required=True,
                            help="node@host of the stopped worker, as recorded on its matches")

    def handle(self, *args, worker_prefix: str, **options):
        from arena.bots.tasks import smoke_test_version

        requeued = match_requeue_abandoned(worker_prefix=worker_prefix)
        pending = list(BotVersion.objects.filter(status=BotVersion.Status.PENDING).values_list("pk", flat=True))
        for version_id in pending:
            smoke_test_version.delay(version_id)
        if requeued or pending:
            self.stdout.write(f"recovered {len(requeued)} match(es) left running by {worker_prefix}; "
                              f"re-sent {len(pending)} pending smoke test(s)")
