"""Writes the preset dictionary that stored replays are compressed with (``arena/matches/replay_store.py``).

A compact replay is 0.6-1.2 kB gzipped, and at that size gzip spends most of its bytes on text
every replay shares: the keys, the limits, the seats' shape, the games' names. A deflate preset
dictionary holding that text lets each replay refer to it instead. The dictionary is the public,
compact replays of built-in bots (one per game and seat count, seeds fixed), their seats named as
the platform names them; its bytes are frozen once written (stored replays need exactly them to
decompress), so a new dictionary is a new file and a new format tag, never an edit of this one.

    .venv/bin/python scripts/replay_dictionary.py arena/matches/replay_dictionary_v1.txt
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game, list_games  # noqa: E402
from workers.runner import SeatSpec, run_match  # noqa: E402

# Deflate reaches back 32 KiB: the replay being compressed needs its own share of that window.
LIMIT = 24 * 1024
# Each game names its samples (engines: GameFacts.replay_dictionary, (position, seat count)); the
# commonest last: nearest to what is compressed, the cheapest to refer to.
TABLES = [(game.id, players) for _, players, game in
          sorted((position, players, game) for game in list_games()
                 for position, players in game.facts.replay_dictionary)]


def sample(game: str, players: int, rng: random.Random) -> str:
    seats = [SeatSpec(f"builtin:{('heuristic', 'random')[s % 2]}", name=f"bot-{rng.randrange(10_000):05d}",
                      version="v1") for s in range(players)]
    replay = run_match(game, seats, rng.randrange(2**53), options=None).to_dict()["replay"]
    replay["seats"] = [{"seat": s["seat"], "bot": f"{rng.randrange(10_000)}-1-{rng.getrandbits(48):012x}.py",
                        "name": s["name"], "version": "v1"} for s in replay["seats"]]
    return json.dumps(replay, separators=(",", ":"), ensure_ascii=False)


def main() -> None:
    out = Path(sys.argv[1])
    rng = random.Random(20261201)
    texts = [sample(game, players, rng) for game, players in TABLES if get_game(game)]
    share = LIMIT // len(texts)
    # Each sample's beginning (header, seats, limits, the first steps) is what replays share most.
    dictionary = "".join(text[:share] for text in texts).encode("utf-8")[-LIMIT:]
    out.write_bytes(dictionary)
    print(f"{out}: {len(dictionary)} bytes from {len(texts)} replays")


if __name__ == "__main__":
    main()
