"""Tournament formats of k-seat tables: round robin, Swiss, single elimination, standings.

Pure functions over plain data (entrants are ints, a table is a tuple of entrants, a round is a
list of tables); no Django, no I/O, no clocks. Every choice is deterministic: the searches draw
from a ``random.Random`` seeded from their own inputs, so the same call returns the same rounds.

An entrant that sits at no table of a round has a *bye* for that round.

One module per format (``round_robin``, ``swiss``, ``elimination``), the table sizes they share
(``tables``) and the standings of a tournament (``standings``). Policies (the tournament app and
docs rely on them):

- Table sizes (``table_sizes``): seat as many entrants as possible (fewest byes); with that,
  use as few tables as possible (so tables are as full as possible), and spread the seated
  entrants evenly over them (sizes differ by at most one, larger tables first). No table is ever
  below ``min_seats``. Example: n=10, k=4 -> [4, 3, 3]; n=5, k=4, min_seats=3 -> [4] and a bye.
- Byes in a round robin rotate through the entrants in their given order, so over any number
  of rounds the bye counts differ by at most one.
- Byes in Swiss go to the lowest-ranked entrants that had no bye yet; when every candidate has
  had one, to the lowest-ranked.
- Byes in elimination go to the top seeds, who advance without playing.
"""

from competition.formats.elimination import (
           advancers,
           elimination_plan,
           elimination_round,
)
from competition.formats.round_robin import round_robin
from competition.formats.swiss import swiss_round
from competition.formats.tables import Round, Table, table_sizes

__all__ = ["Round", "Table", "advancers", "elimination_plan", "elimination_round", "round_robin",
           "swiss_round", "table_sizes"]
