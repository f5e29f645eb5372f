"""Shared legal actions refuse changes but behave like plain JSON values otherwise."""

import copy
import json
import pickle

import pytest

from engines.readonly import ReadOnlyAction, ReadOnlyList


def test_a_shared_action_refuses_every_change_and_says_how_to_get_a_copy():
    action = ReadOnlyAction(type="reroll", keep=ReadOnlyList([1, 3]))
    for change in (lambda: action.__setitem__("type", "x"), lambda: action.pop("type"),
                   lambda: action.update(x=1), lambda: action["keep"].append(5),
                   lambda: action["keep"].__setitem__(0, 6), lambda: action["keep"].sort()):
        with pytest.raises(TypeError, match="copy one"):
            change()
    assert action == {"type": "reroll", "keep": [1, 3]}


def test_a_shared_action_compares_serialises_and_copies_like_a_plain_dict():
    action = ReadOnlyAction(type="air", token_levels=ReadOnlyList([1, 2]))
    assert json.loads(json.dumps(action)) == {"type": "air", "token_levels": [1, 2]}
    assert copy.deepcopy(action) is action
    unpickled = pickle.loads(pickle.dumps(action))
    assert type(unpickled) is dict and type(unpickled["token_levels"]) is list
    unpickled["token_levels"].append(3)  # a real copy may be changed freely
    assert action["token_levels"] == [1, 2]
