"""The competition's maths: pure functions over plain data, no Django, no I/O, no clocks.

- ``rotation``: the seat orders of a rotation group (one seed in every seat rotation);
- ``ratings``: the live Elo (``elo``), a bot's standing after a match or group (``standing``), the
  batch rating with its intervals on ranks (``batch``) and on score margins (``batch_scores``);
- ``formats``: tournament formats (round robin, Swiss, single elimination) and standings.

``arena/`` turns their output into rows; nothing here imports ``arena``, ``workers`` or Django
(``tests/layering/test_competition_is_pure.py`` imports every module with them absent).
"""
