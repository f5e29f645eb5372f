"""Runs: what spans the apps that own rows (bots, matches, ladders, tournaments).

- ``tasks``: the Celery tasks of matches and smoke tests, recovery and retention (names unchanged);
- ``recording``: a match's facts, ratings and the auto-pause of faulting bots in one transaction;
- ``smoke``: smoke tests and activation (a ready version enters the ladders); ``autopause``;
- ``recovery``: the sweep over lost work of every kind; ``retention``: pruning old data;
- ``management/commands``: arena_demo, arena_recover, arena_prune;
- the features that span apps too: ``abtests``, ``builds``, ``luck``, ``notify`` (each module says what).

It may import every app below it; no app imports it (``tests/layering/test_arena_layers.py``).
"""
