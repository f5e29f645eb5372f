"""The sandbox's exceptions: the machine cannot sandbox, or the bot's own files are unusable."""

from __future__ import annotations

class SandboxError(RuntimeError):
    """The sandbox cannot run a bot here (missing bubblewrap, no free slot, bad bot path)."""


class BotFilesError(SandboxError):
    """The bot's own files are unusable (no main.py, unsafe or oversized archive): the bot's fault."""
