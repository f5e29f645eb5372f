"""Built-in bots for Dive! Diver! Die!: ``random`` and a rule-of-thumb ``heuristic``.

The heuristic reads only its observation (public state plus its own ``you`` block) and
the legal actions: it never looks at hidden information.
"""

from __future__ import annotations

import random

from engines.bots import random_bot

GOLD_PER_SEARCH = (0, 1, 2, 4, 6, 8, 10)
# Mean value of a common oxygen card whose value is unknown, kept low for safety.
UNKNOWN_CARD = 4.0
DIVERS = ("descending", "searching", "ascending")
# Margin on the expected oxygen use (about 1 per roll) when choosing a duration.
SAFETY = 1.0


def _divers(obs: dict) -> list[dict]:
    return [p for p in obs["players"] if p["status"] in DIVERS]


def _budget(obs: dict) -> float:
    """Oxygen the divers can still count on: the track plus the common deck's cards.

    The seat's own contribution is known; it is still in the deck unless a card of that
    value was revealed this dive.
    """
    count = obs["common_deck_count"]
    own = obs["you"]["contributed"]
    revealed = [entry[1] for entry in obs["dive_log"] if entry[0] == "common"]
    if count and own is not None and own not in revealed:
        return obs["oxygen"] + own + UNKNOWN_CARD * (count - 1)
    return obs["oxygen"] + UNKNOWN_CARD * count


def _jewel_plan(obs: dict, max_card: int) -> tuple[int, int] | None:
    """(depth, duration) that could win the jewel this dive, from clues held or lying on the board."""
    if not obs["jewel_option"] or obs["jewel_holder"] is not None:
        return None
    me = obs["players"][obs["seat"]]
    # In the order the seat took them, duplicates dropped: iterating over a set of strings
    # would follow PYTHONHASHSEED, so one seed would play different games in two processes.
    held = list(dict.fromkeys(me["clues"]))
    depths = [int(c[1]) for c in held if c[0] == "D"]
    turns = [int(c[1]) for c in held if c[0] == "T"]
    for depth in depths:
        for t in turns:
            if t <= max_card and depth <= 4:
                return depth, t
        board = obs["board_clues"][depth - 1]
        if board and board[0] == "T" and int(board[1]) <= max_card and depth <= 4:
            return depth, int(board[1])
    for t in turns:
        if t > max_card:
            continue
        for depth in range(2, 5):
            if obs["board_clues"][depth - 1] == f"D{depth}":
                return depth, t
    return None


def _prepare(obs: dict, legal: list) -> dict:
    hand = sorted(obs["you"]["hand"])
    wanted = {"type": "prepare", "oxygen": hand[0], "duration": hand[-1]}
    return wanted if wanted in legal else legal[0]


def _choose_depth(obs: dict, legal: list) -> dict:
    me = obs["you"]
    plan = _jewel_plan(obs, me["max_card"])
    if plan is not None:
        depth = plan[0]
    else:
        # Deeper pays more per search but costs two rolls per level for everyone.
        depth = 3 if me["max_card"] >= 6 else 2
    return {"type": "choose_depth", "depth": depth}


def _choose_duration(obs: dict, legal: list) -> dict:
    me = obs["players"][obs["seat"]]
    value = me["max_card"]
    plan = _jewel_plan(obs, value)
    if plan is not None and plan[0] == me["chosen_depth"]:
        return {"type": "choose_duration", "turns": plan[1]}
    divers = len(_divers(obs))
    depth = me["depth"]
    # Keep enough oxygen for every diver's rolls until this seat is back on the boat.
    top = (_budget(obs) + value - depth * divers * SAFETY) / (1 + divers * SAFETY)
    gold = GOLD_PER_SEARCH[depth] * (2 if me["perilous"] else 1)
    if gold:
        top = min(top, obs["dive_pile"] / gold + 1)
    turns = max(1, min(value, int(top)))
    return {"type": "choose_duration", "turns": turns}


def _choose_bonus(obs: dict, legal: list) -> dict:
    me = obs["players"][obs["seat"]]
    kinds = {c[0] for c in me["clues"] + me["temp_clues"]}
    clue = obs["board_clues"][obs["bonus_depth"] - 1]
    # A clue is worth it while there are dives left to use it, or if it completes a pair.
    if clue and (obs["dive"] <= 2 or ({"D", "T"} - kinds) == {clue[0]}):
        return {"type": "choose_bonus", "bonus": "clue"}
    return {"type": "choose_bonus", "bonus": "gold"}


def _window(obs: dict, legal: list) -> dict:
    seat = obs["seat"]
    me = obs["players"][seat]
    plays: dict = {}
    for action in legal:
        plays.setdefault(action.get("card"), []).append(action)
    divers = _divers(obs)
    if "bonus_happy" in plays:
        return plays["bonus_happy"][0]
    if "long_robotic_arm" in plays and me["chosen_depth"] <= 3:
        return plays["long_robotic_arm"][0]
    if "toughest_diver" in plays:
        # Spends the common safety net: only when the track alone covers the way up.
        if obs["oxygen"] >= 3 * (me["depth"] + 1) * len(divers):
            return plays["toughest_diver"][0]
    for action in plays.get("wall_d", []):
        if action["target"] == seat and me["status"] == "searching" and me["tokens_left"] >= 2:
            return action
    rivals = [obs["players"][a["target"]] for a in plays.get("wall_f", []) if a["target"] != seat]
    rivals = [p for p in rivals if p["status"] == "searching" and p["tokens_left"] >= 2]
    if rivals:
        best = max(rivals, key=lambda p: (p["tokens_left"] * p["chosen_depth"], -p["seat"]))
        return {"type": "play_event", "card": "wall_f", "target": best["seat"]}
    if "perilous_dive" in plays and me["status"] == "searching" and me["tokens_left"] >= 2:
        if _budget(obs) >= 6 * len(divers) + 2 * me["tokens_left"] and obs["dive_pile"] >= 30:
            return plays["perilous_dive"][0]
    if "swordfish" in plays and me["status"] not in DIVERS:
        # Only hurts others once this seat is safe: prefer the richest rival underwater.
        targets = [obs["players"][a["target"]] for a in plays["swordfish"]]
        best = max(targets, key=lambda p: (p["found_gold"] + p["bonus_gold"], -p["seat"]))
        return {"type": "play_event", "card": "swordfish", "target": best["seat"]}
    for action in plays.get("sabotage", []):
        if action["mode"] == "hand" and obs["you"]["hand"]:
            return action
    return legal[-1]


def heuristic_bot(observation: dict, legal_actions: list, rng: random.Random) -> dict:
    """Short safe durations, shallow depths, jewel plans, and cards that help itself or hurt leaders."""
    decision = observation["decision"]
    if decision == "prepare":
        action = _prepare(observation, legal_actions)
    elif decision == "choose_depth":
        action = _choose_depth(observation, legal_actions)
    elif decision == "choose_duration":
        action = _choose_duration(observation, legal_actions)
    elif decision == "choose_bonus":
        action = _choose_bonus(observation, legal_actions)
    else:
        action = _window(observation, legal_actions)
    return action if action in legal_actions else legal_actions[-1]


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
