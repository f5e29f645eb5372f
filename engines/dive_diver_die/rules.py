"""Dive! Diver! Die!'s numbers and tables (docs/rules/dive_diver_die.md, D1..D29) and a seat's
own belongings (``Seat``): what the state, its event cards and its views share."""

from __future__ import annotations

from typing import Any

DIVES = 4
GOLD_PER_SEARCH = (0, 1, 2, 4, 6, 8, 10)          # G[d], index = depth (D3)
GOLD_BONUS = (0, 0, 0, 0, 3, 4, 5)                # B[d] (D4)
OXYGEN_DIE = (-3, -2, -1, -1, 0, 1)               # D7
JEWEL_VALUE = 50
SOLE_SURVIVOR_BONUS = 20
CLUE_TOKENS = ("D2", "D3", "D4", "D5", "D6", "T2", "T3", "T4", "T5", "T6")   # D5
EVENT_CARDS = (                                   # table order of §4.5 = canonical order (D20)
    ("perilous_dive", 8), ("bonus_happy", 6), ("sabotage", 6), ("wall_d", 6),
    ("wall_f", 6), ("swordfish", 8), ("toughest_diver", 4), ("long_robotic_arm", 6),
)
EVENT_ORDER = tuple(card for card, _ in EVENT_CARDS)
DIVER = frozenset(("descending", "searching", "ascending"))
# History records of the table's decisions (for observations' ``events``): kept out of the
# ``dive_log`` and ``history`` views, which list what the rules did.
DECISION_RECORDS = frozenset(("dive", "prepared", "decided"))


class Seat:
    """Everything one seat owns: permanent (hand, gold, clues) and per-dive (status, loot)."""

    __slots__ = (
        "hand", "events", "removed", "gold", "jewel", "clues", "status", "depth", "chosen",
        "max_card", "max_face_down", "contributed", "duration", "tokens", "arrival", "found",
        "bonus", "temp_clues", "perilous", "wall", "swordfish", "arm", "got_gold", "got_clue",
    )
    # Per-dive fields that are None until the dive sets them (reset): the depth chosen (P5), the
    # card kept as the maximum (P3; None again once discarded), the card contributed (P3), the
    # turns chosen (arrival), the arrival number, a pending Wall ("d" or "f") or Swordfish
    # ("stay" or "double").
    chosen: int | None
    max_card: int | None
    contributed: int | None
    duration: int | None
    arrival: int | None
    wall: str | None
    swordfish: str | None

    def __init__(self, removed: list[int]):
        self.removed = removed
        self.hand = [v for v in range(1, 11) if v not in removed]
        self.events: list[str] = []
        self.gold = 0
        self.jewel = False
        self.clues: list[str] = []
        self.reset()

    def reset(self) -> None:
        """P1: the per-dive fields."""
        self.status = "descending"
        self.depth = 0
        self.chosen = None
        self.max_card = None          # value while in front of the seat (face down or revealed)
        self.max_face_down = False
        self.contributed = None
        self.duration = None
        self.tokens = 0
        self.arrival = None
        self.found = 0
        self.bonus = 0
        self.temp_clues: list[list] = []   # [clue, depth it was taken from]
        self.perilous = False
        self.wall = None              # None, "d" or "f"
        self.swordfish = None         # None, "stay" or "double"
        self.arm = False
        self.got_gold = False
        self.got_clue = False

    def copy(self) -> Seat:
        """An independent copy (lists copied, scalars shared)."""
        twin = Seat.__new__(Seat)
        for name in Seat.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.hand = list(self.hand)
        twin.events = list(self.events)
        twin.clues = list(self.clues)
        twin.temp_clues = [list(pair) for pair in self.temp_clues]
        return twin

    def public(self, seat: int, phase: str) -> dict:
        """What every seat may see of this seat (§5)."""
        face_up = self.max_card if (self.max_card is not None and not self.max_face_down) else None
        return {
            "seat": seat,
            "gold": self.gold,
            "score": self.gold + (JEWEL_VALUE if self.jewel else 0),
            "jewel": self.jewel,
            "clues": list(self.clues),
            "status": self.status,
            "depth": self.depth,
            "chosen_depth": self.chosen,
            "max_card": face_up,
            "max_card_face_down": self.max_face_down,
            "duration": self.duration,
            "tokens_left": self.tokens,
            "arrival": self.arrival,
            "found_gold": self.found,
            "bonus_gold": self.bonus,
            "temp_clues": [clue for clue, _ in self.temp_clues],
            "perilous": self.perilous,
            "wall": self.wall,
            "swordfish": self.swordfish,
            "long_robotic_arm": self.arm,
            "received_gold_bonus": self.got_gold,
            "received_clue": self.got_clue,
            "hand_size": len(self.hand),
            "event_hand_size": len(self.events),
            "submitted": phase != "prepare",
        }

    def private(self) -> dict:
        """What only this seat may see of itself (§5)."""
        return {
            "hand": sorted(self.hand),
            "events": list(self.events),
            "max_card": self.max_card if self.max_face_down else None,
            "contributed": self.contributed,
        }


def set_by_now(value: int | None) -> int:
    """A per-dive number of a seat (``Seat.chosen``, ``max_card``, ``duration``) that the flow has
    set by the time it is read: the depth is chosen at P5 before any move, the maximum card kept
    at P3 until its seat arrives or runs out, the duration chosen at arrival before any search."""
    if value is None:
        raise AssertionError("a per-dive number read before the step that sets it")
    return value


class Table:
    """The state's fields and steps that its mixins (``EventCards``, ``StateViews``) use, declared
    once for the type checker: ``DiveDiverDieState`` sets the fields and defines the steps."""

    num_players: int
    seed: int
    log: list[list]                     # chance outcomes not in the public history
    history: list[list]                 # the public record, all dives
    dive_start: int
    start: int
    seats: list[Seat]
    event_deck: list[str]
    oxygenator: list[int]
    board_gold: list[int]               # index = depth
    board_clues: list[str | None]       # index = depth
    supply: list[str]
    jewel_on: bool
    jewel_holder: int | None
    dive: int
    oxygenator_discard: list[int]
    common_revealed: list[int]
    event_discard: list[dict]
    max_discard: list[dict]
    clues_removed: list[str]
    divers: int
    oxygen: int
    common: list[int]
    pile: int
    assigned: list[bool]                # index = depth
    arrivals: int
    pending_bonus: tuple[int, list[int]] | None
    slot: int
    stage: str
    slot_full: bool
    depth_turn: int
    phase: str

    def _to_act(self) -> list[int]:
        raise NotImplementedError

    def _decision(self) -> str | None:
        raise NotImplementedError

    def _stream(self, kind: str, index: int) -> Any:
        raise NotImplementedError

    def _oxygen_roll(self, r: int, index: int) -> bool:
        raise NotImplementedError

    def _check_assignment(self, depth: int) -> None:
        raise NotImplementedError
