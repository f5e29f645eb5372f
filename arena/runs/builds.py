"""The build of a compiled bot version (C++, Rust, Go, Java): once, on a worker, before its smoke matches play.

``bot_version_build`` runs ``workers.build`` inside the sandbox and records what it gave on the
version (``bot_version_record_build``): the toolchain's version, the compiler's messages (shown to
the owner and staff only), the artifact every match then runs, its hash and size. A build that
fails, runs too long or writes too much fails the version at once, with a message that says which
and the compiler's output (its smoke matches are then withdrawn: ``arena/runs/tasks.py``). Python and JavaScript versions are not
built. A version built already (by another of its smoke matches) is not built again.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.runs.smoke import bot_version_fail
from workers.build import BuildResult, build_bot, needs_build
from workers.toolchains import ENTRY_FILES


def bot_version_build(*, version_id: int) -> BotVersion:
    """Build a pending version of a compiled language unless it is built; returns the version
    (failed when its build failed). Errors of the machine (no toolchain, no sandbox) propagate: the
    caller's retry policy applies, the bot is not blamed."""
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if not needs_build(version.language) or version.build_status == "ok" or version.status != BotVersion.Status.PENDING:
        return version
    with tempfile.TemporaryDirectory(prefix="arena-build-") as folder:
        suffix = ".zip" if version.kind == BotVersion.Kind.ZIP else Path(ENTRY_FILES[version.language]).suffix
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(bytes(version.archive))
        result = build_bot(path, language=version.language)
    return bot_version_record_build(version_id=version_id, result=result)


def bot_version_record_build(*, version_id: int, result: BuildResult) -> BotVersion:
    """Record a build on a pending version; a failed build fails the version."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive", "artifact").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        version.build_status = result.status
        version.toolchain = result.toolchain[:200]
        version.build_log = result.log
        version.built_at = timezone.now()
        version.artifact = result.artifact or b""
        version.artifact_sha256 = result.artifact_sha256
        version.artifact_size = result.artifact_size
        version.save(update_fields=["build_status", "toolchain", "build_log", "built_at", "artifact",
                                    "artifact_sha256", "artifact_size"])
        if not result.ok:
            return bot_version_fail(version=version, log=f"The version does not build: {result.message()}")
        return version
