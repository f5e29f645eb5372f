"""The Dive Arena Django project."""
from arena.celery import app as celery_app

__all__ = ["celery_app"]
