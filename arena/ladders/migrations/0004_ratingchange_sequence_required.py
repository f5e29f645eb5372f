"""Every rating change has its sequence number, once per bot and ladder (its own migration: the
numbering of 0003 must be committed before PostgreSQL alters the table)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("ladders", "0003_ratingchange_sequence"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ratingchange",
            name="sequence",
            field=models.PositiveIntegerField(),
        ),
        migrations.AddConstraint(
            model_name="ratingchange",
            constraint=models.UniqueConstraint(fields=("ladder", "bot", "sequence"), name="ratingchange_sequence_once"),
        ),
    ]
