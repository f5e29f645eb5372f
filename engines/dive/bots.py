"""Built-in Dive bots. A bot is ``(observation, legal_actions, rng) -> action``.

The heuristic reads only its observation: from the ocean view (5.1) and the discard pile
it computes, by an exact forward-backward pass over the five levels, the probability that
each level holds a shark, turtles or a manta (each level's card is taken as uniform over
the cards not in the discard pile and uniform over the 4 orientations, the levels being
treated as independent draws, then conditioned on the view). It calls the likelier answer
at every level, picks the depth with the best expected advance (a wrong call in deep
water wipes the whole round) and stacks its big tokens where a helper is likeliest.
"""

from __future__ import annotations

from engines.bots import random_bot
from engines.dive.cards import HAZE, NUM_CARDS, ROTATED

DEEP_WATER = 16
STONE = 23
_BIT = {"shark": 0, "turtle": 1, "manta": 2}


def _signatures() -> tuple:
    """For every (card, orientation): (shark mask, turtle mask, manta mask, haze), card-major."""
    rows = []
    for card in range(NUM_CARDS):
        per_card = []
        for k in range(4):
            masks = [0, 0, 0]
            for cell, species in ROTATED[card][k]:
                masks[_BIT[species]] |= 1 << cell
            per_card.append((masks[0], masks[1], masks[2], HAZE[card]))
        rows.append(tuple(per_card))
    return tuple(rows)


SIGNATURES = _signatures()


def level_beliefs(observation: dict) -> list[dict]:
    """Per level 1..5: probabilities of a shark and a manta, and the expected number of turtles."""
    view = observation["ocean_view"]
    discarded = {card for card, _ in observation["discard"]}
    # match[s][t]: cells whose view shows species s with tint t; need[t]: cells with tint <= t.
    match = [[0] * 12 for _ in range(3)]
    need = [0] * 12
    seen = 0
    for cell, entry in enumerate(view):
        if entry is not None:
            match[_BIT[entry["species"]]][entry["tint"]] |= 1 << cell
            seen |= 1 << cell
            for t in range(entry["tint"], 12):
                need[t] |= 1 << cell
    counts: dict = {}
    for card in range(NUM_CARDS):
        if card not in discarded:
            for sig in SIGNATURES[card]:
                counts[sig] = counts.get(sig, 0) + 1
    sigs = list(counts.items())
    ms, mt, mm = match
    # Forward pass over states (cumulative haze, covered cells), remembering every transition.
    layers = [{(0, 0): 1.0}]
    steps = []
    for _ in range(5):
        nxt: dict = {}
        moves = []
        for (tint, covered), weight in layers[-1].items():
            free = ~covered
            for sig, count in sigs:
                s, t, m, haze = sig
                new_tint = tint + haze
                if (s & free & ~ms[new_tint]) or (t & free & ~mt[new_tint]) or (m & free & ~mm[new_tint]):
                    continue
                new_covered = covered | s | t | m
                if need[new_tint] & ~new_covered:
                    continue
                key = (new_tint, new_covered)
                nxt[key] = nxt.get(key, 0.0) + weight * count
                moves.append(((tint, covered), sig, count, key))
        layers.append(nxt)
        steps.append(moves)
    # Backward pass: a full path must explain every creature of the view.
    beta = {key: 1.0 if not (seen & ~key[1]) else 0.0 for key in layers[5]}
    beliefs: list[dict] = [{} for _ in range(5)]
    for level in range(4, -1, -1):
        prev_beta: dict = {}
        shark = manta = turtles = total = 0.0
        alpha = layers[level]
        for prev, sig, count, key in steps[level]:
            b = beta.get(key, 0.0)
            if not b:
                continue
            prev_beta[prev] = prev_beta.get(prev, 0.0) + count * b
            w = alpha[prev] * count * b
            total += w
            if sig[0]:
                shark += w
            if sig[2]:
                manta += w
            if sig[1]:
                turtles += w * bin(sig[1]).count("1")
        if total > 0:
            beliefs[level] = {"shark": shark / total, "manta": manta / total, "turtles": turtles / total}
        else:  # cannot happen for a view the engine produced; stay neutral if it does
            beliefs[level] = {"shark": 1 / 3, "manta": 0.25, "turtles": 0.5}
        beta = prev_beta
    return beliefs


def _manta_gain(observation: dict) -> int:
    """Spaces a manta would give this seat now: up to the nearest pawn strictly ahead, if not deep."""
    seat = observation["seat"]
    positions = list(observation["positions"])
    here = positions[seat]
    if here >= DEEP_WATER:
        return 0
    others = [p for s, p in enumerate(positions) if s != seat]
    if observation["chief_position"] is not None:
        others.append(observation["chief_position"])
    ahead = [p for p in others if p > here]
    return min(ahead) - here if ahead else 0


def _survival(correct: list[float], forgive: bool) -> list[float]:
    """P(still holding after the check of level L), L = 1..d; with ``forgive`` one miss is pardoned."""
    clean, once = 1.0, 0.0
    out = []
    for q in correct:
        clean, once = clean * q, (once * q + clean * (1 - q) if forgive else 0.0)
        out.append(clean + once)
    return out


def _expected_advance(correct: list[float], helper: list[float], deep: bool, companion: str | None) -> float:
    """Expected spaces gained by a plan whose levels are called right with the given probabilities."""
    hold = _survival(correct, companion == "octopus")
    help_scale = 0.55 if companion in ("dolphin", "pilot_fish") else 0.35
    gain = sum(h * (1 + help_scale * v) for h, v in zip(hold, helper))
    perfect = 1.0
    for q in correct:
        perfect *= q
    if deep and companion not in ("seahorse", "octopus"):
        # Any wrong call wipes the round: only a perfect dive keeps its gains.
        gain = perfect * (len(correct) + help_scale * sum(helper))
    elif deep and companion == "octopus":
        gain = hold[-1] * (len(correct) + help_scale * sum(helper))
    if companion == "sailfish":
        gain += 2 * perfect
    return gain


def _plan_choice(observation: dict, beliefs: list[dict]):
    """(calls, companion_wanted) of the best plan for this observation."""
    seat = observation["seat"]
    deep = observation["positions"][seat] >= DEEP_WATER
    manta = _manta_gain(observation)
    calls = ["shark" if b["shark"] > 0.5 else "air" for b in beliefs]
    correct = [max(b["shark"], 1 - b["shark"]) for b in beliefs]
    helper = [b["turtles"] + b["manta"] * manta for b in beliefs]
    companion = None
    companions = observation.get("companions")
    if companions and not companions[seat]["used"]:
        companion = companions[seat]["id"]

    def best(with_companion):
        which = companion if with_companion else None
        return max((_expected_advance(correct[:d], helper[:d], deep, which), d) for d in range(1, 6))

    plain_value, plain_depth = best(False)
    use = False
    if companion is not None:
        value, depth = best(True)
        leader = max(list(observation["positions"]) + [observation["chief_position"] or 0])
        late = observation["round"] >= 26 or leader >= STONE - 6
        if value - plain_value >= (0.05 if late else 0.9):
            use, plain_depth = True, depth
    return calls[:plain_depth], use


def heuristic_bot(observation: dict, legal_actions: list, rng) -> dict:
    """Calls what the ocean view makes likelier, dives as deep as pays, bids where helpers are likely."""
    beliefs = level_beliefs(observation)
    if observation["phase"] == "plan":
        calls, use = _plan_choice(observation, beliefs)
        for action in legal_actions:
            if action["calls"] == calls and action.get("companion", False) == use:
                return action
        return legal_actions[0]
    plan = observation["my_plan"]
    calls = plan["calls"]
    manta = _manta_gain(observation)
    correct = [b["shark"] if c == "shark" else 1 - b["shark"] for b, c in zip(beliefs, calls)]
    hold = _survival(correct, False)
    worth = [h * (b["turtles"] + b["manta"] * manta) for h, b in zip(hold, beliefs)]
    best, best_score = legal_actions[0], -1.0
    for action in legal_actions:
        bids = [0] * len(calls)
        for value, level in enumerate(action["token_levels"], start=1):
            bids[level - 1] += value
        # A bid of 9 or more rarely loses; below that the chance grows with the bid.
        score = sum(w * min(1.0, b / 9) for w, b in zip(worth, bids))
        if score > best_score + 1e-12:
            best, best_score = action, score
    return best


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
