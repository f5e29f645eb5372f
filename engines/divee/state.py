"""The Divee! game state: rules /work/shared/rules/divee.md, implemented decision by decision.

Representation (all plain ints, tuples and lists, so ``clone`` is a handful of list copies):
  * ``cards[seat]``: 6 ints in card order: ``HAND`` (-1), ``DISCARDED`` (-2), or the points
    the card scored (>= 1; every completed card scores at least 1);
  * ``hand_mask[seat]``: bit i set while card i is in hand (the key of the claim actions);
  * ``dice``: the current dice, a sorted tuple;
  * ``log``: tuples, one per roll and action, turned into dicts only by the views.
Legal actions are shared, immutable constants (engines.readonly) looked up by dice and hand,
and cached per position, which keeps a decision to a few microseconds.
"""

from __future__ import annotations


from engines.core import GameState, ranks_from_scores
from engines.rng import copy_chance
from engines.readonly import ReadOnlyAction, ReadOnlyList
from engines.divee.cards import ALL_DICE, CARDS, DIVEE, FLIP_VALUES, KEEPS, POINTS, Dice

ROUNDS = 6
FACES = (1, 2, 3, 4, 5, 6)
REROLLS = 2
HAND, DISCARDED = -1, -2
SOLO_TITLES = (  # (tier, lowest score, title) for a solo game that reaches the end of round 6
    (2, 35, "Legendary Diver"), (3, 30, "Genius Diver"), (4, 25, "Diving Master"),
    (5, 20, "Advanced Diver"), (6, 15, "Beginner Diver"), (7, 10, "Dangerous Diver"),
    (8, 0, "No Swimming Allowed"),
)
INSTANT_TITLE = (1, "Beloved of the Sea")


def solo_title(score: int) -> tuple[int, str]:
    """(tier, title) of a solo game that reached the end of round 6 (section 6.3)."""
    for tier, lowest, title in SOLO_TITLES:
        if score >= lowest:
            return tier, title
    return SOLO_TITLES[-1][0], SOLO_TITLES[-1][2]


# Claims by hand mask (cards in card order), rerolls / one_more_rolls / flips by dice.
CLAIM_ACTIONS = tuple(
    tuple(ReadOnlyAction(type="claim", card=CARDS[card]) for card in range(6) if mask >> card & 1)
    for mask in range(64)
)
REROLL_ACTIONS = {
    dice: tuple(ReadOnlyAction(type="reroll", keep=ReadOnlyList(keep)) for keep in KEEPS[dice]) for dice in ALL_DICE
}
OMR_ACTIONS = {
    dice: tuple(ReadOnlyAction(type="one_more_roll", keep=ReadOnlyList(keep)) for keep in KEEPS[dice])
    for dice in ALL_DICE
}
FLIP_ACTIONS = {
    dice: tuple(ReadOnlyAction(type="flip", value=value) for value in FLIP_VALUES[dice]) for dice in ALL_DICE
}
CARD_INDEX = {card: index for index, card in enumerate(CARDS)}
# The same constants keyed for validation: apply() finds the one legal candidate by key and
# then compares it with ``==``, which accepts exactly what ``action in legal_actions`` accepts.
CLAIM_BY_CARD = tuple(ReadOnlyAction(type="claim", card=card) for card in CARDS)
REROLL_BY_KEEP = {dice: {tuple(a["keep"]): a for a in actions} for dice, actions in REROLL_ACTIONS.items()}
OMR_BY_KEEP = {dice: {tuple(a["keep"]): a for a in actions} for dice, actions in OMR_ACTIONS.items()}
FLIP_BY_VALUE = {dice: {a["value"]: a for a in actions} for dice, actions in FLIP_ACTIONS.items()}
FULL_HAND = 0b111111
# Log entries that are always a seat's own decision (a claim is one unless it was forced, D13).
_DECISION_KINDS = frozenset(("reroll", "one_more_roll", "flip"))


class DiveeState(GameState):
    """A position of Divee!: 6 rounds, one turn per seat per round, one card used per turn."""

    def __init__(self, num_players: int, seed: int, options: dict, rng):
        super().__init__(num_players, seed, options, rng)
        self.special_tiles = bool(options["special_tiles"])
        # Setup (section 3): every card in hand, score 0, both tiles unused when the variant is on.
        self.cards = [[HAND] * 6 for _ in range(num_players)]
        self.hand_mask = [FULL_HAND] * num_players
        self.scores = [0] * num_players
        self.omr_unused = [self.special_tiles] * num_players
        self.flip_unused = [self.special_tiles] * num_players
        self.round = 1
        self.current: int | None = 0  # None once the game is over
        self.dice: Dice = ()
        self.rerolls_used = 0
        self.omr_used_this_turn = False
        self.flip_used_this_turn = False
        self.instant_winner: int | None = None
        self.log: list[tuple] = []
        self._legal: tuple | None = None
        self._start_turn(0)
        self._settle()

    # --- the rules ------------------------------------------------------------------------
    def _roll(self, count: int) -> list:
        """``count`` uniform draws from 1..6, in draw order (the only source of chance).

        Keyed chance: a turn's dice come from stream ("turn", round, seat), five draws per
        roll of the turn (the initial roll, the two re-rolls, One More Roll, in that order);
        a roll of fewer dice uses the first draws of its five and skips the rest. So roll r of
        a seat's turn in a round shows the same dice whatever the other seats did, and the
        same first dice whatever it kept before. Each die is ``choice(FACES)``, so a scripted
        source is scripted with the face values.
        """
        stream = self._turn_dice
        choice = stream.choice
        dice = [choice(FACES) for _ in range(count)]
        if count < 5:
            stream.skip(5 - count)
        return dice

    def _start_turn(self, seat: int) -> None:
        """Step 1 (initial roll) and step 2 (first-roll Divee check) of ``seat``'s turn (the current seat)."""
        self._turn_dice = self.rng.stream("turn", self.round, seat)
        self.dice = tuple(sorted(self._roll(5)))
        self.rerolls_used = 0
        self.omr_used_this_turn = False
        self.flip_used_this_turn = False
        self.log.append(("roll", self.round, seat, self.dice))
        if self.dice[0] == self.dice[4] and self.cards[seat][DIVEE] == HAND:
            # D9: an instant win ends the game with no decision; every hand card stays in hand.
            self.instant_winner = seat
            self.current = None
            self.log.append(("instant_win", self.round, seat, self.dice))

    def _first_roll(self) -> bool:
        return not (self.rerolls_used or self.omr_used_this_turn or self.flip_used_this_turn)

    def _compute_legal(self, seat: int) -> tuple:
        """The legal actions of ``seat`` (the current seat), in the canonical order of step 3."""
        dice = self.dice
        legal = CLAIM_ACTIONS[self.hand_mask[seat]]
        if self.rerolls_used < REROLLS:
            legal += REROLL_ACTIONS[dice]
        elif self.omr_unused[seat]:
            legal += OMR_ACTIONS[dice]  # D10: only after both regular re-rolls
        if self.flip_unused[seat]:
            legal += FLIP_ACTIONS[dice]
        self._legal = legal
        return legal

    def _settle(self) -> None:
        """Plays forced claims (D13) until a real decision is pending or the game is over."""
        while True:
            seat = self.current
            if seat is None:
                return
            legal = self._compute_legal(seat)
            if len(legal) > 1:
                return
            self._play(seat, legal[0], forced=True)

    def _play(self, seat: int, action, forced: bool = False) -> None:
        """Applies one validated action of ``seat``, the current seat."""
        kind = action["type"]
        self._legal = None
        if kind == "claim":
            self._claim(seat, CARD_INDEX[action["card"]], forced)
        elif kind == "flip":
            value = action["value"]
            values = list(self.dice)
            values.remove(value)
            values.append(7 - value)
            values.sort()
            self.dice = tuple(values)
            self.flip_unused[seat] = False
            self.flip_used_this_turn = True
            self.log.append(("flip", self.round, seat, value, self.dice))
        else:  # "reroll" or "one_more_roll": both re-roll every die not kept
            keep = tuple(action["keep"])
            rolled = tuple(self._roll(5 - len(keep)))
            self.dice = tuple(sorted(keep + rolled))
            if kind == "reroll":
                self.rerolls_used += 1
            else:
                self.omr_unused[seat] = False
                self.omr_used_this_turn = True
            self.log.append((kind, self.round, seat, keep, rolled, self.dice))

    def _claim(self, seat: int, card: int, forced: bool) -> None:
        """Step 4: score the card if the dice complete it, discard it otherwise (D5); next turn."""
        gained = POINTS[self.dice][self._first_roll()][card]
        # Every completed card scores at least 1 point, so 0 means "not completed".
        self.cards[seat][card] = gained if gained else DISCARDED
        self.hand_mask[seat] &= ~(1 << card)
        self.scores[seat] += gained
        self.log.append(("claim", self.round, seat, CARDS[card], "scored" if gained else "discarded",
                         gained, forced))
        if seat + 1 < self.num_players:
            following = seat + 1
        elif self.round < ROUNDS:
            following = 0
            self.round += 1
        else:
            self.current = None  # end of round 6: the round counter stays at 6
            return
        self.current = following
        self._start_turn(following)

    # --- engine hooks ---------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        return [] if self.current is None else [self.current]

    def _legal_actions(self, seat: int) -> list:
        legal = self._legal
        if legal is None:
            legal = self._compute_legal(seat)
        return list(legal)

    def legal_actions(self, seat: int) -> list:
        """The legal actions of ``seat`` in canonical order; ``[]`` when it is not to act."""
        if seat != self.current or self.current is None:
            return []
        legal = self._legal
        if legal is None:
            legal = self._compute_legal(seat)
        return list(legal)

    def _choice(self, seat: int, action):
        """The legal action equal to ``action`` (as ``in legal_actions`` decides), else None.

        Finds the one candidate by key instead of scanning the legal list; ``seat`` is to act.
        """
        candidate: ReadOnlyAction | None
        try:
            kind = action["type"]
            if kind == "claim":
                card = CARD_INDEX[action["card"]]
                if not self.hand_mask[seat] >> card & 1:
                    return None
                candidate = CLAIM_BY_CARD[card]
            elif kind == "reroll":
                if self.rerolls_used >= REROLLS:
                    return None
                candidate = REROLL_BY_KEEP[self.dice].get(tuple(action["keep"]))
            elif kind == "one_more_roll":
                if self.rerolls_used < REROLLS or not self.omr_unused[seat]:
                    return None
                candidate = OMR_BY_KEEP[self.dice].get(tuple(action["keep"]))
            elif kind == "flip":
                if not self.flip_unused[seat]:
                    return None
                candidate = FLIP_BY_VALUE[self.dice].get(action["value"])
            else:
                return None
            return candidate if candidate is not None and candidate == action else None
        except (TypeError, KeyError, IndexError, ValueError, AttributeError):
            return None  # not a dict, a missing field, an unhashable or non-iterable value

    def _apply(self, choices: dict) -> None:
        # Play the canonical constant (_choice): an equal action such as {"value": 1.0} or
        # {"keep": [True]} must not put a float or a bool among the dice.
        for seat, action in choices.items():           # the one seat to act
            self._play(seat, action)
        self._settle()

    def _result(self) -> dict:
        scores = list(self.scores)
        if self.instant_winner is not None:
            ranks = [1 if seat == self.instant_winner else 2 for seat in range(self.num_players)]
        else:
            ranks = ranks_from_scores(scores)
        title = tier = None
        if self.num_players == 1:
            if self.instant_winner is not None:
                tier, title = INSTANT_TITLE
            else:
                tier, title = solo_title(scores[0])
        return {"scores": scores, "ranks": ranks, "instant_winner": self.instant_winner,
                "title": title, "tier": tier}

    def clone(self) -> DiveeState:
        """An independent copy (explicit, faster than deepcopy); the RNG is copied too."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.options = dict(self.options)
        twin.rng, (twin._turn_dice,) = copy_chance(self.rng, (self._turn_dice,))
        twin.cards = [list(cards) for cards in self.cards]
        twin.hand_mask = list(self.hand_mask)
        twin.scores = list(self.scores)
        twin.omr_unused = list(self.omr_unused)
        twin.flip_unused = list(self.flip_unused)
        twin.log = list(self.log)  # entries are immutable tuples
        return twin

    # --- views ----------------------------------------------------------------------------
    def _seat_view(self, seat: int) -> dict:
        cards = self.cards[seat]
        return {
            "cards": {CARDS[i]: ("hand" if c == HAND else "discarded" if c == DISCARDED else "scored")
                      for i, c in enumerate(cards)},
            "card_points": {CARDS[i]: c for i, c in enumerate(cards) if c >= 0},
            "score": self.scores[seat],
            "one_more_roll": self.omr_unused[seat],
            "flip_over": self.flip_unused[seat],
        }

    def _log_view(self, start: int = 0) -> list:
        """The log from entry ``start`` on, as views show it."""
        entries = []
        for entry in self.log[start:]:
            kind, round_, seat = entry[0], entry[1], entry[2]
            view = {"type": kind, "round": round_, "seat": seat}
            if kind in ("roll", "instant_win"):
                view["dice"] = list(entry[3])
            elif kind in ("reroll", "one_more_roll"):
                view.update(keep=list(entry[3]), rolled=list(entry[4]), dice=list(entry[5]))
            elif kind == "flip":
                view.update(value=entry[3], dice=list(entry[4]))
            else:  # claim
                view.update(card=entry[3], outcome=entry[4], points=entry[5], forced=entry[6])
            entries.append(view)
        return entries

    def spectator_view(self) -> dict:
        """The public view. Divee! hides nothing but future dice (section 5), so this is all of it."""
        preview = {}
        if self.current is not None:
            points = POINTS[self.dice][self._first_roll()]
            preview = {CARDS[i]: points[i] for i in range(6) if self.cards[self.current][i] == HAND}
        return {
            "round": self.round,
            "current_seat": self.current,
            "special_tiles": self.special_tiles,
            "dice": list(self.dice),
            "rerolls_used": self.rerolls_used,
            "first_roll": self._first_roll(),
            "omr_used_this_turn": self.omr_used_this_turn,
            "flip_used_this_turn": self.flip_used_this_turn,
            "seats": [self._seat_view(seat) for seat in range(self.num_players)],
            "claim_preview": preview,
            "instant_winner": self.instant_winner,
            "log": self._log_view(),
        }

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know: the public view plus ``me`` (there is no secret in Divee!) and
        ``events``, the log since its previous decision."""
        if type(seat) is not int or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        view = self.spectator_view()
        return {"me": seat, **view, "events": self.events_since_decision(seat)}

    def events_since_decision(self, seat: int) -> list[dict]:
        """The log from ``seat``'s previous decision on (that action first), or from the start of
        the game before its first one: the dice and claims it saw since it last chose.

        Found from the log itself (re-rolls, flips and claims that were not forced are the
        decisions), so playing costs nothing more.
        """
        log = self.log
        start = 0
        for index in range(len(log) - 1, -1, -1):
            entry = log[index]
            if entry[2] == seat and (entry[0] in _DECISION_KINDS or (entry[0] == "claim" and not entry[6])):
                start = index
                break
        return self._log_view(start)

    def full_view(self) -> dict:
        """Everything: the public view plus the seed and options (for replays after the game)."""
        view = self.spectator_view()
        view["seed"] = self.seed
        view["options"] = dict(self.options)
        return view
