"""Game state of Dive: the two secret simultaneous decisions and the round resolution.

Rules: /work/shared/rules/dive.md (sections 3 to 6). Every decision of the game is a
Decision A (``plan``) or a Decision B (``air``), taken by every seat at once; the engine
resolves the dive, rests, cleans up and refills by itself inside the ``apply`` of B.

Keyed chance (engines.rng): the deal of 3.1 (the shuffle, then one orientation per card in
stack order) comes from stream ("stack"), the companions from ("companions"), a refill of the
stack at the start of round r from ("refill", r) and the village chief's plan of round r from
("chief", r). The stack is one shared deck: how many of its cards a round explores depends
on the plans, so which cards a later round meets follows the play; the chief's plan of a
round never does.
"""

from __future__ import annotations

import copy
from itertools import product

from engines.core import GameState, IllegalAction, ranks_from_scores
from engines.readonly import ReadOnlyAction, ReadOnlyList
from engines.dive.cards import HAS_MANTA, HAS_SHARK, NUM_CARDS, TURTLES, ocean_view

COMPANIONS = ("octopus", "dolphin", "pilot_fish", "sailfish", "seahorse")
CHIEF_DIE = (1, 2, 3, 3, 4, 5)
TOKEN_VALUES = (1, 2, 3, 4, 5)
STONE = 23
DEEP_WATER = 16
MAX_ROUNDS = 30
LEVELS = 5
# A seat's Decision A: its calls, level by level ("shark" or not), and whether it plays its companion.
Plan = tuple[tuple[str, ...], bool]


def _plan_table(companion_choices: tuple) -> tuple:
    """Canonical Decision A list (4.2): by depth, then itertools.product order, then companion."""
    actions = []
    for depth in range(1, LEVELS + 1):
        for calls in product(("air", "shark"), repeat=depth):
            for companion in companion_choices:
                action = {"type": "plan", "calls": ReadOnlyList(calls)}
                if companion is not None:
                    action["companion"] = companion
                actions.append(ReadOnlyAction(action))
    return tuple(actions)


def _air_table(depth: int) -> tuple:
    """Canonical Decision B list (4.3) for a plan of ``depth`` levels."""
    wanted = set(range(1, depth + 1))
    return tuple(
        ReadOnlyAction(type="air", token_levels=ReadOnlyList(levels))
        for levels in product(range(1, depth + 1), repeat=5) if set(levels) == wanted
    )


# Immutable lookup tables: the canonical legal lists and, for validation, a key -> index map.
# Their actions are read-only (a caller cannot corrupt other games of the process);
# legal_actions() hands out list copies.
PLAN_TABLES = {
    "plain": _plan_table((None,)),                 # no companions option: 62
    "unused": _plan_table((False, True)),          # companion still available: 124
    "used": _plan_table((False,)),                 # companion already used: 62
}
PLAN_INDEX = {
    name: {(tuple(a["calls"]), a.get("companion")): i for i, a in enumerate(table)}
    for name, table in PLAN_TABLES.items()
}
AIR_TABLES = {depth: _air_table(depth) for depth in range(1, LEVELS + 1)}
AIR_INDEX = {depth: {tuple(a["token_levels"]): i for i, a in enumerate(table)}
             for depth, table in AIR_TABLES.items()}
# Placement -> bids at levels 1..d (its depth d is its largest level: every level is used).
BIDS = {
    key: tuple(sum(v for v, level in zip(TOKEN_VALUES, key) if level == at) for at in range(1, max(key) + 1))
    for index in AIR_INDEX.values() for key in index
}


class DiveState(GameState):
    """One position of Dive (rules: /work/shared/rules/dive.md)."""

    def __init__(self, num_players: int, seed: int, options: dict, rng, _blank: bool = False):
        super().__init__(num_players, seed, options, rng)
        if _blank:
            return
        self.solo = num_players == 1
        self.use_companions = bool(options.get("companions", False))
        # 3.1: shuffle the 36 cards, then one orientation per card in stack order.
        deal = rng.stream("stack")
        order = list(range(NUM_CARDS))
        deal.shuffle(order)
        self.stack = [(card, deal.randrange(4)) for card in order]
        self.discard: list = []
        # 3.2 and 3.3.
        self.positions = [0] * num_players
        self.chief_position = 0 if self.solo else None
        if self.use_companions:
            ids = list(COMPANIONS)
            rng.stream("companions").shuffle(ids)
            self.companion_ids: list[str] | None = ids[:num_players]
            self.companion_used: list[bool] | None = [False] * num_players
        else:
            self.companion_ids = None
            self.companion_used = None
        self.round = 1
        self.phase = "plan"
        # Decision A of the current round, per seat: (calls tuple, companion bool) while phase == "air".
        self.plans: list[Plan] | None = None
        self.carried_levels = 0
        self.last_round: dict | None = None
        self.final_succeeded: list[int] | None = None
        self.rounds_played = 0
        self._view: list | None = None
        self.last_refill: int | None = None     # cards the last refill brought back, that round
        self._look()

    # --- setup helpers ----------------------------------------------------------------
    def _look(self) -> None:
        """4.1: refill the stack from the discard pile if needed, then compute the ocean view."""
        if len(self.stack) < LEVELS:
            refill = self.rng.stream("refill", self.round)
            cards = [card for card, _ in self.discard]
            refill.shuffle(cards)
            self.stack.extend((card, refill.randrange(4)) for card in cards)
            self.discard = []
            self.last_refill = len(cards)
        else:
            self.last_refill = None
        self._view = ocean_view(self.stack[:LEVELS])

    # --- engine hooks -----------------------------------------------------------------
    def _to_act(self) -> list[int]:
        return [] if self.phase == "over" else list(range(self.num_players))

    def _plan_table_name(self, seat: int) -> str:
        used = self.companion_used          # a list exactly when companions are played
        if used is None:
            return "plain"
        return "used" if used[seat] else "unused"

    def _legal_actions(self, seat: int) -> list:
        if self.phase == "plan":
            return list(PLAN_TABLES[self._plan_table_name(seat)])
        return list(AIR_TABLES[len(self._pending_plans()[seat][0])])

    def legal_actions(self, seat: int) -> list:
        """The legal actions of ``seat`` in canonical order (4.2, 4.3); ``[]`` when it is not to act.

        The list is fresh but its actions are shared, read-only table entries (speed: up to
        240 actions per seat and decision): changing one raises TypeError.
        """
        if self.phase == "over" or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            return []
        return self._legal_actions(seat)

    def _parse(self, seat: int, action) -> tuple:
        """The key of ``action`` in the seat's canonical table; IllegalAction when it is not legal."""
        try:
            if self.phase == "plan":
                name = self._plan_table_name(seat)
                key = (tuple(action["calls"]), action.get("companion"))
                index = PLAN_INDEX[name][key]
                canonical = PLAN_TABLES[name][index]
            else:
                depth = len(self._pending_plans()[seat][0])
                key = tuple(action["token_levels"])
                canonical = AIR_TABLES[depth][AIR_INDEX[depth][key]]
        except (KeyError, TypeError, IndexError, AttributeError):
            raise IllegalAction(f"seat {seat}: {action!r} is not a legal action") from None
        # Same test as the base class (equality with a legal action), so extra keys are refused.
        if action != canonical:
            raise IllegalAction(f"seat {seat}: {action!r} is not a legal action")
        # The key of the engine's own action: an equal action written with true or 1.0 for 1
        # must not carry those values into the public round log.
        if self.phase == "plan":
            return (tuple(canonical["calls"]), canonical.get("companion"))
        return tuple(canonical["token_levels"])

    def _choice(self, seat: int, action: object) -> tuple | None:
        """The key of ``action`` in the seat's canonical table, None when it is not legal."""
        try:
            return self._parse(seat, action)
        except IllegalAction:
            return None

    def _apply(self, choices: dict) -> None:
        self._apply_keys([choices[seat] for seat in range(self.num_players)])

    def _apply_keys(self, keys: list) -> None:
        if self.phase == "plan":
            # Decision A: remember the plans; nothing is revealed before Decision B (4.3).
            self.plans = [(calls, bool(companion)) for calls, companion in keys]
            self.phase = "air"
        else:
            self._resolve(keys)

    # --- round resolution (4.4 to 4.7) --------------------------------------------------
    def _resolve(self, token_keys: list) -> None:
        n = self.num_players
        positions = self.positions
        plans = self._pending_plans()
        calls = [plan[0] for plan in plans]
        used: list[str | None] = [None] * n
        if self.companion_ids is not None:
            for seat in range(n):
                if plans[seat][1]:
                    used[seat] = self.companion_ids[seat]
        # The chief's position (solo only; 0 and never read without a chief).
        chief_at = 0 if self.chief_position is None else self.chief_position
        bids = [BIDS[key] for key in token_keys]
        # 4.4 / 4.8: the chief's plan, generated at the reveal.
        chief_depth = 0
        chief_bids: list[int] = []
        if self.solo:
            chief = self.rng.stream("chief", self.round)
            chief_depth = chief.choice(CHIEF_DIE)
            tokens = list(TOKEN_VALUES)
            chief.shuffle(tokens)
            chief_bids = tokens[:chief_depth - 1] + [sum(tokens[chief_depth - 1:])]
        start = list(positions)
        held = [len(c) for c in calls]            # a diver holds level L while L <= held
        failed = [False] * n
        wiped = [False] * n
        succeeded = [0] * n
        forgiven = [False] * n
        levels_log = []
        explored = 0
        for level in range(1, LEVELS + 1):
            holders = [seat for seat in range(n) if held[seat] >= level]
            chief_holds = chief_depth >= level
            if not holders and not chief_holds:
                break
            explored = level
            card, orientation = self.stack[level - 1]
            shark = HAS_SHARK[card]
            wrong, saved = [], []
            for seat in holders:
                if (calls[seat][level - 1] == "shark") == shark:
                    succeeded[seat] += 1
                elif used[seat] == "octopus" and not forgiven[seat]:
                    forgiven[seat] = True
                    succeeded[seat] += 1
                    saved.append(seat)
                else:
                    held[seat] = level - 1
                    failed[seat] = True
                    wrong.append(seat)
                    if positions[seat] >= DEEP_WATER and used[seat] != "seahorse":
                        wiped[seat] = True
            helper = None
            turtles = TURTLES[card]
            if turtles or HAS_MANTA[card]:
                contest: list[tuple[int, int | str]] = [(bids[seat][level - 1] + (3 if used[seat] == "dolphin" else 0), seat)
                           for seat in range(n) if held[seat] >= level]
                if chief_holds:
                    contest.append((chief_bids[level - 1], "chief"))
                winner: int | str | None = None      # a seat, or "chief"
                if contest:
                    best = max(bid for bid, _ in contest)
                    tied = [who for bid, who in contest if bid == best]
                    if len(tied) == 1:
                        winner = tied[0]
                    else:
                        pilots = [who for who in tied if isinstance(who, int) and used[who] == "pilot_fish"]
                        if len(pilots) == 1:
                            winner = pilots[0]
                if winner is not None:
                    here = chief_at if isinstance(winner, str) else positions[winner]
                    if turtles:
                        to = here + turtles
                        kind = "turtle"
                    else:
                        kind = "manta"
                        to = here
                        if here < DEEP_WATER:
                            others = [p for seat, p in enumerate(positions) if seat != winner]
                            if self.solo and isinstance(winner, int):
                                others.append(chief_at)
                            ahead = [p for p in others if p > here]
                            if ahead:
                                to = min(ahead)
                    if isinstance(winner, str):
                        chief_at = to
                    else:
                        positions[winner] = to
                    helper = {"kind": kind, "winner": winner, "to": to}
            levels_log.append({"card": card, "orientation": orientation, "wrong": wrong,
                               "forgiven": saved, "helper": helper})
        # 4.6 rest.
        for seat in range(n):
            if wiped[seat]:
                positions[seat] = start[seat]
            else:
                positions[seat] += succeeded[seat] + (
                    2 if used[seat] == "sailfish" and not failed[seat] else 0)
            if used[seat] is not None and self.companion_used is not None:
                self.companion_used[seat] = True
        if self.solo:
            chief_at += chief_depth
            self.chief_position = chief_at
        # 4.7 clean-up: explored cards to the discard pile, unexplored ones stay on top.
        self.discard.extend(self.stack[:explored])
        del self.stack[:explored]
        self.carried_levels = LEVELS - explored
        self.last_round = {
            "round": self.round,
            "plans": [
                {"calls": list(calls[seat]), "token_levels": list(token_keys[seat]),
                 "bids": list(bids[seat]), "companion": used[seat]}
                for seat in range(n)
            ],
            "chief": {"depth": chief_depth, "bids": chief_bids} if self.solo else None,
            "levels": levels_log,
            "succeeded": succeeded,
            "wiped": wiped,
            "advance": [positions[seat] - start[seat] for seat in range(n)],
            "positions": list(positions),
            "chief_position": self.chief_position,
        }
        self.final_succeeded = succeeded
        self.plans = None
        self.rounds_played = self.round
        top = max(positions) if not self.solo else max(positions[0], chief_at)
        if top >= STONE or self.round >= MAX_ROUNDS:
            self.phase = "over"
            self._view = None
            return
        self.round += 1
        self.phase = "plan"
        self._look()

    # --- result -------------------------------------------------------------------------
    def _result(self) -> dict:
        chief, succeeded = self.chief_position, self.final_succeeded
        if chief is not None:                                   # solo: against the chief
            player = self.positions[0]
            return {"scores": [player - chief], "ranks": [1 if player >= chief else 2],
                    "position": player, "chief_position": chief, "rounds": self.rounds_played}
        if succeeded is None:
            raise AssertionError("a game over has played its final round")
        keys = [(pos, done) for pos, done in zip(self.positions, succeeded)]
        return {"scores": list(self.positions), "ranks": ranks_from_scores(keys),
                "final_round_succeeded": list(succeeded), "rounds": self.rounds_played}

    # --- views --------------------------------------------------------------------------
    def _public(self) -> dict:
        """What every seat and every spectator may know (5.2 without the seat's own plan)."""
        return {
            "phase": self.phase,
            "round": self.round,
            "num_players": self.num_players,
            "solo": self.solo,
            "positions": list(self.positions),
            "chief_position": self.chief_position,
            "ocean_view": copy.deepcopy(self._view),
            "carried_levels": self.carried_levels,
            "stack_size": len(self.stack),
            "discard": [[card, orientation] for card, orientation in self.discard],
            "companions": None if self.companion_ids is None or self.companion_used is None else [
                {"id": cid, "used": used} for cid, used in zip(self.companion_ids, self.companion_used)],
            "last_round": copy.deepcopy(self.last_round),
        }

    def _pending_plans(self) -> list[Plan]:
        """Decision A's plans, which exist from Decision A to Decision B (phase "air")."""
        if self.plans is None:
            raise AssertionError("no plans are pending outside the air phase")
        return self.plans

    def _plan_action(self, seat: int) -> dict:
        calls, companion = self._pending_plans()[seat]
        action: dict[str, object] = {"type": "plan", "calls": list(calls)}
        if self.use_companions:
            action["companion"] = companion
        return action

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know (5.2): public facts, the ocean view, its own plan during B and
        ``events``, what happened since its previous decision."""
        if not (type(seat) is int and 0 <= seat < self.num_players):
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        public = self._public()
        observation = {"phase": public.pop("phase"), "round": public.pop("round"), "seat": seat}
        observation.update(public)
        observation["my_plan"] = self._plan_action(seat) if self.phase == "air" else None
        # Keep the order of 5.2: my_plan before last_round.
        observation["last_round"] = observation.pop("last_round")
        observation["events"] = self.events_since_decision()
        return observation

    def events_since_decision(self) -> list[dict]:
        """What the table saw since the seats' previous decision (every seat decides at every
        step, so it is the same for all): after Decision A only that the plans were made; after
        Decision B the reveal, each explored level, the rest and any refill of the stack;
        nothing before the first decision.

        Built from ``last_round``, so playing costs nothing more.
        """
        if self.phase == "air":
            return [{"type": "plans_made", "round": self.round}]
        last = self.last_round
        if last is None:
            return []
        events = [{"type": "reveal", "round": last["round"], "plans": copy.deepcopy(last["plans"]),
                   "chief": copy.deepcopy(last["chief"])}]
        for level, explored in enumerate(last["levels"], start=1):
            events.append({"type": "level", "level": level, **copy.deepcopy(explored)})
        events.append({"type": "rest", "succeeded": list(last["succeeded"]), "wiped": list(last["wiped"]),
                       "advance": list(last["advance"]), "positions": list(last["positions"]),
                       "chief_position": last["chief_position"]})
        if self.phase == "over":
            events.append({"type": "game_over", "rounds": self.rounds_played})
        elif self.last_refill is not None:
            events.append({"type": "refill", "round": self.round, "cards": self.last_refill})
        return events

    def spectator_view(self) -> dict:
        """Public facts only, at every point, the end included (5.2): the stack's order and
        orientations stay hidden; a replay's final ``full_view()`` is what shows everything."""
        return self._public()

    def full_view(self) -> dict:
        """Everything: the stack with orientations, the pending plans and the public facts."""
        view = self._public()
        view["stack"] = [[card, orientation] for card, orientation in self.stack]
        view["plans"] = None if self.plans is None else [
            self._plan_action(seat) for seat in range(self.num_players)]
        return view

    def clone(self) -> DiveState:
        """An independent copy (explicit, faster than deepcopy)."""
        rng = copy.deepcopy(self.rng)   # a KeyedRandom is shared; a scripted source is copied
        twin = DiveState(self.num_players, self.seed, self.options, rng, _blank=True)
        twin.options = copy.deepcopy(self.options)
        twin.solo = self.solo
        twin.use_companions = self.use_companions
        twin.stack = list(self.stack)
        twin.discard = list(self.discard)
        twin.positions = list(self.positions)
        twin.chief_position = self.chief_position
        twin.companion_ids = None if self.companion_ids is None else list(self.companion_ids)
        twin.companion_used = None if self.companion_used is None else list(self.companion_used)
        twin.round = self.round
        twin.phase = self.phase
        twin.plans = None if self.plans is None else list(self.plans)
        twin.carried_levels = self.carried_levels
        twin.last_round = copy.deepcopy(self.last_round)
        twin.final_succeeded = None if self.final_succeeded is None else list(self.final_succeeded)
        twin.rounds_played = self.rounds_played
        twin._view = copy.deepcopy(self._view)
        twin.last_refill = self.last_refill
        return twin
