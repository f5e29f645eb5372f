"""A match no longer stores the public outcome document: its game, seed and options are columns of
the match, its scores, ranks, faults and timing are on its seats (the options as the engine
completed them are in the replay). Going back rebuilds the document from those."""

from django.db import migrations


def outcomes_from_seats(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    MatchSeat = apps.get_model("matches", "MatchSeat")
    seats_of = {}
    for seat in MatchSeat.objects.filter(match__status="done").only(
            "match_id", "seat", "score", "rank", "fault_kind", "fault_step").order_by("match_id", "seat").iterator():
        seats_of.setdefault(seat.match_id, []).append(seat)
    batch = []
    for match in Match.objects.filter(status="done").only("id", "game", "seed", "options").iterator():
        seats = seats_of.get(match.pk, [])
        faults = sorted(({"seat": s.seat, "kind": s.fault_kind, "step": s.fault_step} for s in seats if s.fault_kind),
                        key=lambda f: (f["step"] or 0, f["seat"]))
        match.outcome = {"game": match.game, "seed": match.seed, "options": match.options,
                         "scores": [s.score for s in seats], "ranks": [s.rank for s in seats], "faults": faults}
        batch.append(match)
        if len(batch) >= 1000:
            Match.objects.bulk_update(batch, ["outcome"])
            batch = []
    if batch:
        Match.objects.bulk_update(batch, ["outcome"])


class Migration(migrations.Migration):

    dependencies = [("matches", "0008_seat_timing_columns")]

    operations = [
        migrations.RemoveConstraint(model_name="match", name="match_done_has_outcome"),
        migrations.RunPython(migrations.RunPython.noop, outcomes_from_seats),
        migrations.RemoveField(model_name="match", name="outcome"),
    ]
