"""The sandbox's exceptions: the machine cannot sandbox, or the bot's own files are unusable."""

from __future__ import annotations

class SandboxError(RuntimeError):
    """The sandbox cannot run a bot here (missing bubblewrap, no free slot, bad bot path)."""


class BotFilesError(SandboxError):
    """The bot's own files are unusable (no main.py, unsafe or oversized archive): the bot's fault.

    ``code`` names the rule broken (for upload errors): ``unsafe_path``, ``name_too_long``,
    ``duplicate_entry``, ``name_clash``, ``not_a_zip``, ``no_main``, ``too_large``, ``cannot_unpack``.
    """

    def __init__(self, message: str, code: str = "cannot_unpack"):
        super().__init__(message)
        self.code = code
