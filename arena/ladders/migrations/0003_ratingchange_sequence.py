"""Each rating change stores its bot's sequence number on the ladder (the order it was applied in).

Existing changes are numbered per ladder and bot in id order: ids are drawn after the recording
transaction has locked the bots' ratings, so for every bot they follow the order of application.
"""

from django.db import migrations, models


def number_existing_changes(apps, schema_editor):
    RatingChange = apps.get_model("ladders", "RatingChange")
    counters: dict[tuple[int, int], int] = {}
    batch = []
    for change in RatingChange.objects.order_by("id").only("id", "ladder_id", "bot_id").iterator():
        key = (change.ladder_id, change.bot_id)
        counters[key] = counters.get(key, 0) + 1
        change.sequence = counters[key]
        batch.append(change)
        if len(batch) >= 1000:
            RatingChange.objects.bulk_update(batch, ["sequence"])
            batch = []
    if batch:
        RatingChange.objects.bulk_update(batch, ["sequence"])


class Migration(migrations.Migration):

    dependencies = [
        ("ladders", "0002_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratingchange",
            name="sequence",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.RunPython(number_existing_changes, migrations.RunPython.noop),
    ]
