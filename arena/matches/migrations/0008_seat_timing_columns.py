"""A seat's timing as typed columns (arena/matches/timing.py) instead of a jsonb document of ~390
bytes: the document column is renamed ``timing_document`` and keeps only the timings the columns
could not give back exactly; every other stored timing moves into the columns.

The columns are added int4 first, then the smallint and the boolean, so that they pack without
alignment padding. On PostgreSQL the moved rows leave dead tuples behind: ``VACUUM FULL
matches_matchseat`` (or pg_repack) gives the space back to the system; a plain VACUUM lets new
rows reuse it.
"""

from django.db import migrations, models

from arena.matches.timing import MS_COLUMNS, TIMING_FIELDS, timing_columns, timing_from_columns

_BATCH = 2000


def _convert(apps, schema_editor, pick, fill):
    """``fill`` each picked seat (False: leave it); written with one plain UPDATE per seat, sent in
    batches (``bulk_update``'s CASE per column is quadratic in the batch on PostgreSQL)."""
    MatchSeat = apps.get_model("matches", "MatchSeat")
    table = schema_editor.quote_name(MatchSeat._meta.db_table)
    columns = [MatchSeat._meta.get_field(name) for name in TIMING_FIELDS]
    assignments = ", ".join(f"{schema_editor.quote_name(field.column)} = %s" for field in columns)
    connection = schema_editor.connection
    rows = []

    def write():
        with connection.cursor() as cursor:
            cursor.executemany(f"UPDATE {table} SET {assignments} WHERE id = %s", rows)
        rows.clear()

    seats = pick(MatchSeat.objects.all()).only("id", "seat", *TIMING_FIELDS).order_by("id")
    for seat in seats.iterator(chunk_size=_BATCH):
        if fill(seat):
            rows.append([field.get_db_prep_save(getattr(seat, field.attname), connection) for field in columns]
                        + [seat.pk])
        if len(rows) >= _BATCH:
            write()
    if rows:
        write()


def timing_into_columns(apps, schema_editor):
    def fill(seat):
        columns = timing_columns(seat.timing_document, seat=seat.seat)
        if columns["timing_document"] is not None:
            return False  # does not fit: kept as it is
        for field, value in columns.items():
            setattr(seat, field, value)
        return True

    _convert(apps, schema_editor, lambda seats: seats.filter(timing_document__isnull=False), fill)


def timing_into_documents(apps, schema_editor):
    def fill(seat):
        seat.timing_document = timing_from_columns(seat, seat=seat.seat)
        for field in TIMING_FIELDS[1:]:
            setattr(seat, field, None)
        return True

    _convert(apps, schema_editor, lambda seats: seats.filter(timing_keys__isnull=False), fill)


def _int_column(name):
    return migrations.AddField(model_name="matchseat", name=name, field=models.IntegerField(blank=True, null=True))


class Migration(migrations.Migration):

    dependencies = [("matches", "0007_group_unfinished_index")]

    operations = [
        migrations.RenameField(model_name="matchseat", old_name="timing", new_name="timing_document"),
        migrations.AddField(model_name="matchseat", name="timing_decisions",
                            field=models.PositiveIntegerField(blank=True, null=True)),
        *[_int_column(name) for name in MS_COLUMNS.values()],
        migrations.AddField(
            model_name="matchseat", name="timing_keys",
            field=models.PositiveSmallIntegerField(
                blank=True, help_text="Which keys the runner reported, a bit each (None: no timing).", null=True)),
        migrations.AddField(
            model_name="matchseat", name="timing_cpu_clock",
            field=models.BooleanField(blank=True, help_text="The clock charged: CPU time or wall.", null=True)),
        migrations.RunPython(timing_into_columns, timing_into_documents),
    ]
