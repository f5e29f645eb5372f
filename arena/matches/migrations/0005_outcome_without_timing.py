"""A match's outcome no longer repeats its seats' timing (each MatchSeat.timing has it): drop it
from the outcomes already stored."""

from django.db import migrations


def drop_outcome_timing(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        schema_editor.execute("UPDATE matches_match SET outcome = outcome - 'timing' "
                              "WHERE outcome IS NOT NULL AND outcome ? 'timing'")
    elif connection.vendor == "sqlite":
        schema_editor.execute("UPDATE matches_match SET outcome = json_remove(outcome, '$.timing') "
                              "WHERE outcome IS NOT NULL AND json_type(outcome, '$.timing') IS NOT NULL")
    else:
        Match = apps.get_model("matches", "Match")
        for match in Match.objects.exclude(outcome=None).only("id", "outcome").iterator():
            if isinstance(match.outcome, dict) and "timing" in match.outcome:
                match.outcome.pop("timing")
                Match.objects.filter(pk=match.pk).update(outcome=match.outcome)


class Migration(migrations.Migration):

    dependencies = [("matches", "0004_merge_0003_list_indexes_0003_match_outbox_and_lease")]

    # Nothing to restore going back: the timing is on the seats.
    operations = [migrations.RunPython(drop_outcome_timing, migrations.RunPython.noop)]
