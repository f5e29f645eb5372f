"""Starts a bot inside the sandbox (mounted read-only at /arena/launch.py; trusted code).

    python -I -S /arena/launch.py UID BOT_DIR LIB_DIR RLIMITS

Runs as the first Python code in the sandbox: sets the rlimits (``AS=...,CPU=...``, see
``workers.sandbox.rlimit_spec``), switches to the slot's unprivileged uid (when UID >= 0;
bwrap left it only the capabilities to do that, and switching drops them), puts the bot's folder and the SDK/engines folder on ``sys.path``, makes stdout
line-buffered so a plain ``print`` reaches the arena, and runs ``main.py`` as __main__.
An uncaught MemoryError is said so on stderr (the runner takes a fault's kind from the kernel's
evidence, never from an exit status, which the bot could choose as well).
"""

import os
import sys

MEMORY_EXIT_CODE = 86


def main() -> None:
    uid, bot_dir, lib_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    import resource
    for setting in filter(None, sys.argv[4].split(",")):
        name, value = setting.split("=")
        # CPU: the kernel sends SIGKILL at the hard limit and SIGXCPU only at a soft limit
        # below it; one second between them lets the runner tell a CPU timeout from a crash.
        hard = int(value) + 1 if name == "CPU" else int(value)
        resource.setrlimit(getattr(resource, "RLIMIT_" + name), (int(value), hard))
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:
            sys.stderr.write("arena launcher: could not drop privileges\n")
            os._exit(1)
    main_file = os.path.join(bot_dir, "main.py")
    sys.path[:0] = [bot_dir, lib_dir]
    sys.argv = [main_file]
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a TextIOWrapper here
    # What runpy.run_path does, without importing runpy (and importlib.util, contextlib...):
    # every millisecond here is start-up time of every bot.
    module = type(sys)("__main__")
    module.__file__ = main_file
    module.__builtins__ = __builtins__  # type: ignore[attr-defined]  # as runpy sets it
    sys.modules["__main__"] = module
    try:
        with open(main_file, "rb") as source:
            code = compile(source.read(), main_file, "exec")
        exec(code, module.__dict__)
    except MemoryError:
        sys.stderr.write("MemoryError: the bot ran out of memory\n")
        sys.stderr.flush()
        os._exit(MEMORY_EXIT_CODE)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        # The bot's traceback, without this launcher's own frames.
        import traceback
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
        sys.stderr.flush()
        os._exit(1)


main()
