"""What each game's board must show for a recorded view, read from the data-* attributes its
renderer sets (never pixels), and what a seat's point of view must never show."""

from __future__ import annotations

BOARD = "#replay-viewer [data-role=board] svg"


def attrs(page, selector: str, names: list[str]) -> list[dict]:
    """The given attributes of every board element matching ``selector``, in document order."""
    return page.eval_on_selector_all(
        f"{BOARD} {selector}",
        "(els, names) => els.map(e => Object.fromEntries(names.map(n => [n, e.getAttribute(n)])))", names)


def root(page, name: str):
    return page.get_attribute(BOARD, name)


def _s(value) -> str | None:
    return None if value is None else str(value)


def _face_up_outside(page, selector: str, seat: int | None) -> list[dict]:
    """Face-up items matching ``selector`` that are not in ``seat``'s own row."""
    found = page.eval_on_selector_all(
        f"{BOARD} {selector}[data-face=up]",
        "els => els.map(e => { const row = e.closest('[data-seat-row]');"
        " return {seat: row ? row.getAttribute('data-seat') : null, value: e.getAttribute('data-value')}; })")
    return [item for item in found if seat is None or item["seat"] != str(seat)]


# --- Deep Sea Adventure -------------------------------------------------------------------------

def check_deep_sea_adventure(page, view: dict, pov) -> None:
    assert root(page, "data-air") == _s(view["air"]) and root(page, "data-round") == _s(view["round"])
    spaces = attrs(page, "[data-space]", ["data-space", "data-blank", "data-levels"])
    assert spaces == [{"data-space": str(i + 1), "data-blank": "true" if space["blank"] else "false",
                       "data-levels": ",".join(map(str, space["levels"]))} for i, space in enumerate(view["path"])]
    divers = sorted(attrs(page, "[data-diver]", ["data-seat", "data-position", "data-direction"]), key=lambda d: int(d["data-seat"]))
    assert divers == [{"data-seat": str(seat), "data-position": str(d["position"]), "data-direction": d["direction"]}
                      for seat, d in enumerate(view["divers"])]
    rows = attrs(page, "[data-seat-row]", ["data-carried", "data-secured"])
    assert rows == [{"data-carried": str(len(d["carried"])), "data-secured": str(len(d["secured_levels"]))} for d in view["divers"]]
    if view["last_roll"]:
        assert attrs(page, "[data-role=roll]", ["data-dice", "data-moves"]) == [
            {"data-dice": ",".join(map(str, view["last_roll"]["dice"])), "data-moves": str(view["last_roll"]["moves"])}]
    # Every carried chip is drawn, face down unless the view holds its value.
    carried = attrs(page, "[data-chip][data-carried]", ["data-level", "data-face"])
    assert [c["data-level"] for c in carried] == [str(level) for d in view["divers"] for item in d["carried"] for level in item]


def hidden_deep_sea_adventure(page, observation: dict, seat: int) -> None:
    # Only the seat's own secured chips are face up, with exactly the values it was sent.
    assert _face_up_outside(page, "[data-chip]", seat) == []
    own = attrs(page, f"[data-seat-row][data-seat='{seat}'] [data-chip][data-face=up]", ["data-value"])
    assert [c["data-value"] for c in own] == [str(v) for v in observation["my_secured_values"]]
    assert attrs(page, "[data-space][data-values]", ["data-values"]) == []
    assert attrs(page, "[data-chip][data-carried][data-face=up]", ["data-value"]) == []


# --- Divee! --------------------------------------------------------------------------------------

def check_divee(page, view: dict, pov) -> None:
    assert root(page, "data-dice") == ",".join(map(str, view["dice"])) and root(page, "data-round") == _s(view["round"])
    assert root(page, "data-rerolls-used") == _s(view["rerolls_used"])
    assert [r["data-score"] for r in attrs(page, "[data-seat-row]", ["data-score"])] == [str(s["score"]) for s in view["seats"]]
    cards = attrs(page, "[data-seat-row] [data-card]", ["data-card", "data-state", "data-points"])
    expected = []
    for seat in view["seats"]:
        for card, state in seat["cards"].items():
            expected.append({"data-card": card, "data-state": state,
                             "data-points": _s(seat["card_points"].get(card)) if state == "scored" else None})
    assert sorted(cards, key=str) == sorted(expected, key=str)
    assert len(attrs(page, "[data-die]", ["data-die"])) == len(view["dice"])
    tiles = attrs(page, "[data-seat-row] [data-tile]", ["data-tile", "data-unused"])
    if view["special_tiles"]:
        assert tiles == [{"data-tile": tile, "data-unused": "true" if seat[tile] else "false"}
                         for seat in view["seats"] for tile in ("one_more_roll", "flip_over")]
    else:
        assert tiles == []


def hidden_divee(page, observation: dict, seat: int) -> None:
    # Divee! hides nothing: a seat's board shows the same public state (checked by check_divee).
    assert root(page, "data-current-seat") == _s(observation["current_seat"])


# --- Dive! Diver! Die! -------------------------------------------------------------------------

def check_dive_diver_die(page, view: dict, pov) -> None:
    assert root(page, "data-oxygen") == _s(view["oxygen"]) and root(page, "data-dive-pile") == _s(view["dive_pile"])
    assert root(page, "data-dive") == _s(view["dive"])
    rows = attrs(page, "[data-seat-row]", ["data-score", "data-hand-size", "data-event-hand-size", "data-status"])
    assert rows == [{"data-score": str(p["score"]), "data-hand-size": str(p["hand_size"]),
                     "data-event-hand-size": str(p["event_hand_size"]), "data-status": p["status"]} for p in view["players"]]
    for seat, player in enumerate(view["players"]):
        hand = attrs(page, f"[data-seat-row][data-seat='{seat}'] [data-hand-card]", ["data-face"])
        assert len(hand) == player["hand_size"]  # every card drawn, face down for the others
    depths = attrs(page, "[data-depth][data-board-gold]", ["data-board-gold", "data-clue"])
    assert depths == [{"data-board-gold": str(g), "data-clue": c} for g, c in zip(view["board_gold"], view["board_clues"])]
    divers = attrs(page, "[data-diver]", ["data-depth", "data-status"])
    assert divers == [{"data-depth": str(p["depth"]), "data-status": p["status"]} for p in view["players"]]


def hidden_dive_diver_die(page, observation: dict, seat: int) -> None:
    you = observation["you"]
    assert _face_up_outside(page, "[data-hand-card]", seat) == []
    assert _face_up_outside(page, "[data-event-hand]", seat) == []
    own = attrs(page, f"[data-seat-row][data-seat='{seat}'] [data-hand-card]", ["data-value"])
    assert [c["data-value"] for c in own] == [str(v) for v in you["hand"]]
    own_events = attrs(page, f"[data-seat-row][data-seat='{seat}'] [data-event-hand]", ["data-card"])
    assert [c["data-card"] for c in own_events] == list(you["events"])
    for other, player in enumerate(observation["players"]):
        if other != seat and player["max_card_face_down"]:
            assert attrs(page, f"[data-seat-row][data-seat='{other}'] [data-max-card]", ["data-value"]) == [{"data-value": None}]


# --- Deep Dive ---------------------------------------------------------------------------------

def check_deep_dive(page, view: dict, pov) -> None:
    assert root(page, "data-round") == _s(view["round"]) and root(page, "data-shark") == _s(view["last_shark_roll"])
    assert root(page, "data-black-pile") == _s(view["black_pile"])
    rows = attrs(page, "[data-seat-row]", ["data-white", "data-black", "data-closed", "data-status"])
    assert rows == [{"data-white": str(p["white_pearls"]), "data-black": str(p["black_found"]),
                     "data-closed": str(p["closed_shells"]), "data-status": p["status"]} for p in view["players"]]
    in_water = sorted(attrs(page, "[data-diver][data-in-water=true]", ["data-seat", "data-position"]), key=lambda d: int(d["data-seat"]))
    assert in_water == [{"data-seat": str(s), "data-position": p["position"]} for s, p in enumerate(view["players"]) if p["in_water"]]
    sections = attrs(page, "[data-section]", ["data-section", "data-shells"])
    assert sections == [{"data-section": s["colour"], "data-shells": str(s["shells"])} for s in view["sections"]]
    rolls = attrs(page, "[data-colour-roll]", ["data-seat", "data-colour-roll"])
    assert rolls == [{"data-seat": seat, "data-colour-roll": colour} for seat, colour in view["last_colour_rolls"].items()]
    shells = attrs(page, "[data-shell]", ["data-content"])
    assert len(shells) == sum(p["closed_shells"] for p in view["players"])
    if "closed" in view["players"][0]:  # the full view: every closed shell face up, the supply's contents
        assert [s["data-content"] for s in shells] == [c for p in view["players"] for c in p["closed"]]
        supply = view["supply"] if isinstance(view["supply"], dict) else {k: view["supply"].count(k) for k in ("white", "black", "empty")}
        assert attrs(page, "[data-role=supply-contents]", ["data-white", "data-black", "data-empty"]) == [
            {f"data-{k}": str(supply.get(k, 0)) for k in ("white", "black", "empty")}]


def hidden_deep_dive(page, observation: dict, seat: int) -> None:
    # Closed shells are hidden from everyone during play, their owner included.
    assert attrs(page, "[data-shell][data-face=up]", ["data-content"]) == []
    assert attrs(page, "[data-role=supply-contents]", ["data-role"]) == []


# --- Dive --------------------------------------------------------------------------------------

def check_dive(page, view: dict, pov) -> None:
    assert root(page, "data-round") == _s(view["round"]) and root(page, "data-phase") == view["phase"]
    if view["ocean_view"] is not None:
        cells = attrs(page, "[data-role=ocean] [data-cell]", ["data-species", "data-tint"])
        assert cells == [{"data-species": c["species"] if c else None, "data-tint": _s(c["tint"]) if c else None}
                         for c in view["ocean_view"]]
    pawns = sorted(attrs(page, "[data-pawn][data-seat]", ["data-seat", "data-position"]), key=lambda p: int(p["data-seat"]))
    assert pawns == [{"data-seat": str(s), "data-position": str(p)} for s, p in enumerate(view["positions"])]
    if view["last_round"]:
        calls = attrs(page, "[data-role=reveal] [data-call]", ["data-seat", "data-level", "data-call", "data-bid"])
        assert calls == [{"data-seat": str(s), "data-level": str(i + 1), "data-call": call, "data-bid": str(plan["bids"][i])}
                         for s, plan in enumerate(view["last_round"]["plans"]) for i, call in enumerate(plan["calls"])]
    if "stack" in view:   # the full view: the five level cards under the ocean view, the secret plans
        levels = attrs(page, "[data-role=levels] [data-level]", ["data-card-id", "data-orientation"])
        assert levels == [{"data-card-id": str(c), "data-orientation": str(o)} for c, o in view["stack"][:5]]
        if view["phase"] == "air":
            plans = attrs(page, "[data-plan]", ["data-calls"])
            assert plans == [{"data-calls": ",".join(plan["calls"])} for plan in view["plans"]]
    if view.get("companions"):
        assert root(page, "data-companions") == ",".join(f"{c['id']}:{'used' if c['used'] else 'unused'}" for c in view["companions"])
    if view["solo"]:
        assert attrs(page, "[data-pawn][data-chief]", ["data-position"]) == [{"data-position": str(view["chief_position"])}]


def hidden_dive(page, observation: dict, seat: int) -> None:
    assert attrs(page, "[data-role=levels]", ["data-role"]) == []   # the level cards stay face down
    if observation["phase"] != "over":
        assert len(attrs(page, "[data-level-back]", ["data-face"])) == 5
    plans = attrs(page, "[data-plan]", ["data-plan", "data-calls"])
    hidden = attrs(page, "[data-plan-hidden]", ["data-plan-hidden"])
    if observation["phase"] == "air":     # its own plan, and the others' face down
        assert plans == [{"data-plan": str(seat), "data-calls": ",".join(observation["my_plan"]["calls"])}]
        assert [h["data-plan-hidden"] for h in hidden] == [str(s) for s in range(observation["num_players"]) if s != seat]
    else:
        assert plans == [] and hidden == []


CHECKS = {name[len("check_"):]: fn for name, fn in globals().items() if name.startswith("check_")}
HIDDEN = {name[len("hidden_"):]: fn for name, fn in globals().items() if name.startswith("hidden_")}
