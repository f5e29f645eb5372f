"""Notifications: an author's in-site feed and e-mails, each kind switchable by its user.

This app owns its rows and imports no other app of the arena: the orchestration above the apps
(``arena/runs/notify.py``) decides what happened and calls :func:`services.notification_send`.
"""
