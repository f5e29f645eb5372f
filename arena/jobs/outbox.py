"""The outbox: rows in the database are the work to do; a task message only tells a worker to look.

A row that waits for a worker (a queued match of any kind) records when its task message
was last handed to the broker (``sent_at``, None while none was) and how many were sent since it
started waiting (``sends``). Sending happens after the transaction that created the work commits and
never raises: a broker that is down leaves the row unsent and the request that made it answers as
usual. The periodic recovery task (``arena.requeue_stuck``) then sends what has no message in
flight (:func:`outbox_relay`):

- rows never sent (the broker was down, or the process died between commit and send), once they
  are a little older than their commit;
- rows sent but still waiting while the broker's queue holds fewer messages than rows wait for
  one (messages were lost: a Redis restart, a dropped connection), once their last send is older
  than a short grace (``OUTBOX_LOST_GRACE``) for a message a worker is just taking;
- rows still waiting long after their last send while the queue is busy: sent again with backoff
  (``OUTBOX_RESEND_AFTER`` doubled per send, at most ``OUTBOX_RESEND_MAX``), in case the broker
  cannot tell us its queue length.

A message that arrives twice is harmless because every task claims its row first. The same code
serves every kind of match (smoke tests are matches): a row type only describes itself with an
:class:`Outbox`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from arena.celery import app

log = logging.getLogger(__name__)

# A row committed this recently without a message is probably being sent after its commit.
UNSENT_GRACE_SECONDS = 2.0
# One attempt and one quick retry on a fresh connection: a request never waits on a dead broker
# for long; what could not be sent is sent by the relay.
PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


@dataclass(frozen=True)
class Outbox:
    """Rows of ``model`` that stand for work of the Celery task ``task`` (sent with the row's id)."""

    task: str
    model: type[models.Model]
    waiting: Q  # the rows that wait for a worker to claim them
    sent_at: str = "sent_at"
    sends: str = "sends"
    since: str = "created_at"  # when a row started waiting (its send after commit may be under way)

    def rows(self):
        return self.model.objects.filter(self.waiting)


def outbox_send(box: Outbox, pk: int) -> bool:
    """Hand the task message for row ``pk`` to the broker now and stamp the row as sent.

    Never raises: False (and a warning) when the broker refused, the row stays unsent for the relay.
    """
    try:
        app.signature(box.task, args=(pk,)).apply_async(retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except Exception as exc:  # any broker or network failure: the relay sends it later
        log.warning("could not send %s(%s), the outbox relay will: %s", box.task, pk, exc)
        return False
    try:
        box.rows().filter(pk=pk).update(**{box.sent_at: timezone.now(), box.sends: F(box.sends) + 1})
    except Exception as exc:  # sent, but not stamped: at worst it is sent once more
        log.warning("sent %s(%s) but could not stamp it: %s", box.task, pk, exc)
    return True


def outbox_send_on_commit(box: Outbox, pk: int) -> None:
    """Send the task message for row ``pk`` once the current transaction commits (never for a
    rolled-back row); immediately outside a transaction."""
    transaction.on_commit(lambda: outbox_send(box, pk), robust=True)


def task_send_on_commit(task: str, pk: int) -> None:
    """Send ``task(pk)`` once the current transaction commits, for work whose row keeps no outbox
    stamps (the caller's recovery finds it unsent otherwise). Never raises: a refusal is logged."""
    def send() -> None:
        try:
            app.signature(task, args=(pk,)).apply_async(retry=True, retry_policy=PUBLISH_RETRY_POLICY)
        except Exception as exc:  # any broker or network failure: the recovery sweep starts the work
            log.warning("could not send %s(%s), the recovery sweep will start it: %s", task, pk, exc)

    transaction.on_commit(send, robust=True)


def outbox_mark_unsent(box: Outbox, queryset) -> int:
    """Forget the messages of rows that wait again (re-queued): the relay sends them at once."""
    return queryset.update(**{box.sent_at: None, box.sends: 0})


def _resend_after(sends: int) -> float:
    base = float(settings.OUTBOX_RESEND_AFTER)
    return min(base * 2 ** max(0, sends - 1), float(settings.OUTBOX_RESEND_MAX))


def outbox_due(boxes: Sequence[Outbox], *, now: datetime, queue_depth: int | None,
               reasons: dict | None = None) -> list[tuple[Outbox, int]]:
    """The waiting rows of ``boxes`` with no message in flight (see the module's rules), as
    ``(box, id)`` pairs. ``queue_depth``: messages in the broker's queue (None when unknown); all
    boxes share that one queue. ``reasons``, when given, gets ``(task, id) -> "unsent" | "lost" |
    "backoff"``: only the first two mean something went wrong (a busy queue makes back-off re-sends)."""
    grace = now - timedelta(seconds=settings.OUTBOX_LOST_GRACE)
    due, sent = [], []
    for box in boxes:
        rows = box.rows()
        unsent = [(box, pk) for pk in rows.filter(**{f"{box.sent_at}__isnull": True}).exclude(
            **{f"{box.since}__gt": now - timedelta(seconds=UNSENT_GRACE_SECONDS)}).order_by("pk")
            .values_list("pk", flat=True)]
        due += unsent
        if reasons is not None:
            reasons.update({(box.task, pk): "unsent" for _, pk in unsent})
        sent += [(box, pk, sent_at, sends) for pk, sent_at, sends in rows.filter(
            **{f"{box.sent_at}__isnull": False}).order_by("pk").values_list("pk", box.sent_at, box.sends)]
    # Fewer messages in the queue than rows waiting for one: some were lost. Which ones cannot be
    # told, so every row sent before the grace is sent again (a duplicate is harmless).
    lost = queue_depth is not None and queue_depth < len(sent)
    for box, pk, sent_at, sends in sent:
        if (lost and sent_at < grace) or sent_at < now - timedelta(seconds=_resend_after(sends)):
            due.append((box, pk))
            if reasons is not None:
                reasons[(box.task, pk)] = "lost" if lost and sent_at < grace else "backoff"
    return due


def outbox_relay(boxes: Sequence[Outbox], *, now: datetime | None = None, queue_depth: int | None = None,
                 reasons: dict | None = None) -> list[tuple[Outbox, int]]:
    """Send every row of ``boxes`` that is due (:func:`outbox_due`); returns those sent. ``reasons``,
    when given, is filled as :func:`outbox_due` fills it."""
    now = now or timezone.now()
    return [(box, pk) for box, pk in outbox_due(boxes, now=now, queue_depth=queue_depth, reasons=reasons)
            if outbox_send(box, pk)]


def broker_queue_depth() -> int | None:
    """Messages waiting in the task queue, as the broker says (those a worker has taken but not
    acknowledged are not counted); None when the broker cannot be asked."""
    queue = app.conf.task_default_queue
    try:
        with app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1)
            channel = connection.default_channel
            try:
                return int(channel.queue_declare(queue=queue, passive=True).message_count)
            except Exception as exc:
                # Redis keeps no empty lists: a queue that does not exist holds nothing.
                if "NOT_FOUND" in str(exc) or getattr(exc, "code", None) == 404:
                    return 0
                raise
    except Exception as exc:
        log.warning("could not ask the broker how many messages wait in %s: %s", queue, exc)
        return None
