"""The Celery app; configuration comes from Django settings (CELERY_* names).

Workers reuse their database connections across tasks (``CELERY_DB_REUSE_MAX``): around each task
only broken or old ones are closed. A worker removes the scratch folders killed tasks left on its
machine when it starts (and, throttled, before its tasks).
"""
import os

from celery import Celery, signals

from arena.broker_connection import channels_of_a_lost_connection_raise_connection_errors

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
channels_of_a_lost_connection_raise_connection_errors()  # a worker that loses its broker reconnects, not dies

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # arena/<app>/tasks.py of every installed app (arena/runs/tasks.py: matches, smoke tests)
app.autodiscover_tasks(["arena.runs"], related_name="luck")  # arena/runs/luck.py
app.autodiscover_tasks(["arena.runs"], related_name="abtests")  # arena/runs/abtests.py


@signals.task_prerun.connect
@signals.task_postrun.connect
def _replace_broken_connections(sender=None, **kwargs):
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return  # run in the caller's process: its connections are the caller's business
    from arena.jobs.connections import close_broken_connections

    close_broken_connections()


@signals.worker_ready.connect
def _remove_stale_scratch_folders(**kwargs):
    from arena.jobs.scratch import scratch_remove_stale

    scratch_remove_stale()


@signals.worker_process_shutdown.connect
def _stop_lease_renewals(**kwargs):
    from arena.jobs.leases import lease_renewer_stop

    lease_renewer_stop()
