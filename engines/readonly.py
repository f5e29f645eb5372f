"""Read-only lists and dicts for legal actions that engines share between positions and games.

Engines that precompute their legal actions once per process hand the same objects to every
caller; these types make changing one an error instead of a silent corruption of every game.
They compare, serialise (JSON, pickle) and copy like the plain list or dict they hold.
"""

from __future__ import annotations


def _refuse(*args, **kwargs):
    raise TypeError("legal actions are shared and read-only; copy one before changing it")


class ReadOnlyList(list):
    """A list that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (list, (list(self),))


class ReadOnlyAction(dict):
    """A dict (one legal action) that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (dict, (dict(self),))
