"""The Celery app; configuration comes from Django settings (CELERY_* names)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # arena/<app>/tasks.py of every installed app
