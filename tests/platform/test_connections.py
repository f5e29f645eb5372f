"""A database connection the server dropped is replaced before the next task uses it, and an
action it broke is run once more on a fresh one."""

from __future__ import annotations

import psycopg
import pytest
from django.db import OperationalError, connection

from arena.jobs.connections import close_broken_connections, retrying_on_a_dropped_connection


@pytest.fixture
def kill_own_connection(transactional_db):
    if connection.vendor != "postgresql":
        pytest.skip("terminates a PostgreSQL backend")

    def kill() -> int:
        connection.ensure_connection()
        pid = connection.connection.info.backend_pid
        db = connection.settings_dict
        with psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"],
                             password=db["PASSWORD"] or None, dbname=db["NAME"], autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        return pid

    return kill


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_healthy_connection_is_kept_across_tasks(kill_own_connection):
    connection.close()  # a young one: a connection older than CONN_MAX_AGE is replaced on purpose
    first = _backend_pid()
    close_broken_connections()
    assert _backend_pid() == first


def test_a_dropped_connection_is_replaced_before_the_next_query(kill_own_connection):
    killed = kill_own_connection()
    with pytest.raises(OperationalError):
        _backend_pid()
    close_broken_connections()
    assert _backend_pid() != killed


def test_an_action_whose_connection_dropped_runs_again_on_a_new_one(kill_own_connection):
    killed = kill_own_connection()
    assert retrying_on_a_dropped_connection(_backend_pid) != killed


def test_a_connection_dropped_between_two_tasks_is_replaced_without_an_error(kill_own_connection):
    killed = kill_own_connection()  # while idle: nothing has failed on it yet
    close_broken_connections()  # what a worker does before each task
    assert _backend_pid() != killed  # Django's health check saw it dead and reconnected
