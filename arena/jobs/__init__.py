"""The job kit: what every piece of queued work uses, whatever its kind.

- ``outbox``: rows are the work; task messages are sent after commit and re-sent when lost;
- ``leases``: a running row's lease, renewed by one heartbeat thread per process;
- ``lost_process``: a killed pool process's lease ends at once (``LeasedTask``);
- ``connections``: database connections in workers, replaced when the server dropped them;
- ``scratch``: the folders tasks write archives to, and the removal of dead tasks' leftovers;
- ``worker_names``: ``node@host:pid`` as recorded on a claimed row, and whether it is gone.

Nothing here imports an app of ``arena/``: the apps and ``arena/runs/`` build on it.
"""
