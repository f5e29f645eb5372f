"""When a pool process dies under a task (SIGKILL, the out-of-memory killer), end its lease at once.

The worker's main process sees the process go and puts the task's message back in the queue
(``reject_on_worker_lost``). The broker may hand it to any worker, most often one on another
machine, which cannot tell whether the recorded process is alive: with the lease still running it
would skip the message and leave the work to the recovery sweep once the lease runs out. So the
main process first ends the lease of the work that process held (only while that process still
holds it); whoever gets the message then takes the work over, within seconds.

A task opts in with ``base=LeasedTask`` and names the service that ends its lease in
``end_lease_of_lost_process`` (``"module:function"``, called with the task's arguments and
``worker=`` the dead process's name as recorded on the row).
"""

from __future__ import annotations

import logging

from billiard.einfo import ExceptionWithTraceback
from celery import Task
from celery.exceptions import WorkerLostError
from celery.worker.request import Request
from django.db import connections
from kombu.utils.imports import symbol_by_name

log = logging.getLogger(__name__)


class LostProcessRequest(Request):
    def on_failure(self, exc_info, send_failed_event=True, return_ok=False):
        exc = exc_info.exception
        if isinstance(exc, ExceptionWithTraceback):
            exc = exc.exc
        if isinstance(exc, WorkerLostError) and self.worker_pid:
            self._end_lease_of_lost_process()
        return super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)

    def _end_lease_of_lost_process(self) -> None:
        path = getattr(self.task, "end_lease_of_lost_process", None)
        if not path:
            return

        worker = f"{self.hostname}:{self.worker_pid}"  # as the process recorded itself (worker_names.worker_name)
        try:
            if symbol_by_name(path)(*self.args, worker=worker):
                log.warning("%s died under %s: its lease ended, the message goes back to the queue",
                            worker, self.humaninfo())
        except Exception:  # never let this stop the message going back: the lease still expires
            log.exception("could not end the lease held by %s", worker)
        finally:
            connections.close_all()  # the main process keeps no connection its next pool process would inherit


class LeasedTask(Task):
    """A task whose work carries a lease (see the module)."""

    Request = LostProcessRequest
    end_lease_of_lost_process: str | None = None
