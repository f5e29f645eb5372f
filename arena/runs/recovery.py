"""The recovery sweep the scheduler runs every ``RECOVERY_INTERVAL`` seconds (``arena.requeue_stuck``).

1. Work whose worker is gone (expired lease) goes back to the queue: matches of every kind (smoke
   tests are matches), same seed, attempts counted; out of attempts it fails. A pending version
   whose smoke test was never planned (its upload's message was lost) gets it planned.
2. Rotation groups left with no open game (their last one failed in step 1) are rated and settled,
   each in a transaction of its own (a smoke group's version judged).
3. The outbox relay sends every waiting row with no message in flight (never sent, or lost).
4. Scratch folders that killed tasks left on this machine are removed.

Each step is harmless when two sweeps run at once (rows are locked or updated conditionally).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.utils import timezone

from arena.jobs.outbox import Outbox, broker_queue_depth, outbox_relay
from arena.jobs.scratch import scratch_remove_stale
from arena.matches.services import MATCH_OUTBOX, match_requeue_stuck
from arena.runs.recording import match_groups_settle
from arena.runs.smoke import smoke_tests_start_missing

log = logging.getLogger(__name__)


def work_outboxes() -> list[Outbox]:
    """Every kind of work a worker claims from a task message: matches (smoke tests are matches)."""
    return [MATCH_OUTBOX]


@dataclass
class SweepReport:
    """What one sweep did (ids per kind), for logs and tests."""

    requeued_matches: list[int] = field(default_factory=list)
    started_smoke_tests: list[int] = field(default_factory=list)
    settled_groups: list[int] = field(default_factory=list)
    sent: list[tuple[str, int]] = field(default_factory=list)
    removed_folders: int = 0

    def __str__(self) -> str:
        return (f"re-queued {len(self.requeued_matches)} match(es) of lost workers; planned "
                f"{len(self.started_smoke_tests)} smoke test(s) of pending versions; settled "
                f"{len(self.settled_groups)} rotation group(s); sent {len(self.sent)} message(s); "
                f"removed {self.removed_folders} stale folder(s)")


def recovery_sweep(*, now=None, queue_depth: int | None = None, ask_broker: bool = True) -> SweepReport:
    """Run the four steps; ``queue_depth`` is asked of the broker unless given (or ``ask_broker``
    is False)."""
    now = now or timezone.now()
    report = SweepReport()
    report.requeued_matches = match_requeue_stuck(now=now)
    report.started_smoke_tests = smoke_tests_start_missing()
    report.settled_groups = match_groups_settle()
    if queue_depth is None and ask_broker:
        queue_depth = broker_queue_depth()
    reasons: dict = {}
    report.sent = [(box.task, pk) for box, pk in outbox_relay(work_outboxes(), now=now, queue_depth=queue_depth,
                                                              reasons=reasons)]
    report.removed_folders = len(scratch_remove_stale())
    # A warning says something went wrong; re-sends on the back-off to a busy queue (work waiting
    # longer than OUTBOX_RESEND_AFTER behind other work) are routine: a healthy `make run` logged
    # them every few seconds as warnings (issue 25). So is planning a pending version's smoke test
    # before its upload's message got to a worker (the first sweep of `make run` does, as the demo
    # uploads its starter kits just before the worker starts); a lost message shows as its wait.
    troubled = any(reasons.get(sent) != "backoff" for sent in report.sent)
    if report.requeued_matches or report.settled_groups or troubled or report.removed_folders:
        log.warning("recovery: %s", report)
    elif report.sent or report.started_smoke_tests:
        log.info("recovery: %s (routine)", report)
    return report
