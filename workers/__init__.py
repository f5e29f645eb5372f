"""Running matches: sandbox, bot protocol, match runner, Celery tasks (only tasks.py touches Django)."""
