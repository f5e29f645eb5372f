"""What a finished match produced (``MatchOutcome``) and ``run_match``, which plays one to the end."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from engines import get_game
from workers.match.clock import Limits, default_limits
from workers.match.loop import Match
from workers.match.seats import Fault, SeatSpec
from workers.replay.codec import encode, state_hash


@dataclass
class MatchOutcome:
    """Everything a finished match produced."""

    game: str
    seed: int
    options: dict
    scores: list
    ranks: list[int]
    faults: list[Fault]
    timing: list[dict]
    logs: list[str]
    replay: dict
    clean: bool = True                      # no process of any bot was left behind
    uids: list = field(default_factory=list)  # slot uid per sandboxed seat (None for built-ins)

    def to_dict(self) -> dict:
        """The JSON-able outcome (DESIGN.md fields and more)."""
        return {"game": self.game, "seed": self.seed, "options": self.options,
                "scores": self.scores, "ranks": self.ranks,
                "faults": [asdict(fault) for fault in self.faults],
                "timing": self.timing, "logs": self.logs, "replay": self.replay}


def run_match(game_id: str, seats: list[SeatSpec], seed: int, options: dict | None = None,
              limits: Limits | None = None, on_step=None) -> MatchOutcome:
    """Play one match to the end and return its outcome; whatever the bots do, it completes.

    ``on_step(step, state)``, when given, is called after every applied step with the number of
    steps played and the engine's state (to publish its public view live); it must not change the
    state, and its errors are logged, never raised.

    The replay is compact (version 2, docs/replay-format.md): the runner records no other.

    Raises before anything runs on an unknown game, bad options or seat count, an unknown
    built-in bot or a missing bot path, and SandboxError when bots cannot be sandboxed here.
    """
    game = get_game(game_id)
    seats = [spec if isinstance(spec, SeatSpec) else SeatSpec(str(spec)) for spec in seats]
    limits = limits or default_limits(game_id)
    match = Match(game, seats, seed, options, limits, on_step=on_step)
    initial_hash = state_hash(match.state.full_view())
    try:
        match.start()
        match.play()
        result, ranks = match.finish()
    finally:
        match.close()
    faults = sorted(match.faults, key=lambda f: (f.step, f.seat))
    replay = encode(
        game=game, seed=seed, options=match.options,
        seats=[{"seat": i, "bot": s.bot if s.is_builtin else Path(s.bot).name,
                "name": s.name or s.bot, "version": s.version, "language": s.language}
               for i, s in enumerate(seats)],
        limits=asdict(limits), initial_hash=initial_hash, steps=match.recorder.steps(),
        faults=[asdict(f) for f in faults], scores=result["scores"], engine_ranks=result["ranks"], ranks=ranks,
        final_hash=state_hash(match.state.full_view()))
    seat_rows = sorted(match.seats, key=lambda s: s.seat)
    return MatchOutcome(
        game=game.id, seed=seed, options=match.options, scores=list(result["scores"]), ranks=ranks,
        faults=faults, timing=match.timing(), logs=[s.log() for s in seat_rows], replay=replay,
        clean=all(getattr(s, "clean", True) for s in seat_rows), uids=[s.uid for s in seat_rows])
