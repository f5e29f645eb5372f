"""/api/bots/ and /api/bots/{id}/versions/: creating bots, uploading versions, upload errors."""

from __future__ import annotations

import pytest

from arena.bots.models import Bot, BotVersion
from tests.api.helpers import client_as
from tests.upload_cases import bad_uploads, make_zip

BAD = bad_uploads()


def _post_bot(client, game: str, upload, name: str = "newbot"):
    return client.post("/api/bots/", {"name": name, "game": game, "file": upload}, format="multipart")


def test_it_creates_a_bot_with_a_pending_first_version(owner, two_player_game, bot_upload):
    response = _post_bot(client_as(owner), two_player_game, bot_upload())
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "newbot" and body["owner"] == "alice" and body["game"] == two_player_game
    assert body["active_version"] is None  # active only once the smoke test passes
    version = Bot.objects.get(name="newbot").versions.get()
    assert version.status == "pending" and version.number == 1 and version.kind == "py"


def test_the_answer_to_a_new_bot_names_its_pending_version_and_where_to_follow_it(owner, other_user, two_player_game,
                                                                                   bot_upload):
    body = _post_bot(client_as(owner), two_player_game, bot_upload()).json()
    pending = body["pending_version"]
    assert pending["number"] == 1 and pending["status"] == "pending"
    assert pending["url"] == f"http://testserver/api/bots/{body['id']}/versions/1/"
    followed = client_as(owner).get(pending["url"])
    assert followed.status_code == 200
    assert followed.json()["status"] == "pending" and followed.json()["url"] == pending["url"]
    BotVersion.objects.filter(bot_id=body["id"]).update(status="ready", validation_log="ok")
    assert client_as(owner).get(pending["url"]).json()["status"] == "ready"
    # Anyone reads a version; its smoke-test log only its owner (and staff).
    assert client_as(owner).get(pending["url"]).json()["validation_log"] == "ok"
    assert client_as(other_user).get(pending["url"]).json()["validation_log"] is None
    assert client_as(owner).get(f"/api/bots/{body['id']}/versions/2/").status_code == 404


def test_a_new_version_answers_with_its_url(owner, ready_bot, bot_upload):
    bot = ready_bot("alpha")
    response = client_as(owner).post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert response.status_code == 201
    assert response.json()["url"] == f"http://testserver/api/bots/{bot.pk}/versions/2/"
    assert client_as(owner).get(response.json()["url"]).json()["status"] == "pending"


def test_it_accepts_a_zip_with_main_py_at_its_root(owner, two_player_game, bot_upload):
    from tests.factories import FIRST_ACTION_BOT

    upload = bot_upload(make_zip([("main.py", FIRST_ACTION_BOT), ("lib/helper.py", b"X = 1\n")]), "bot.zip")
    response = _post_bot(client_as(owner), two_player_game, upload)
    assert response.status_code == 201
    assert Bot.objects.get(name="newbot").versions.get().kind == "zip"


@pytest.mark.parametrize("case,filename,data,fragment", BAD, ids=[c[0] for c in BAD])
def test_it_rejects_a_bad_upload_of_a_new_bot_with_its_own_message_and_stores_nothing(
        owner, two_player_game, bot_upload, case, filename, data, fragment):
    response = _post_bot(client_as(owner), two_player_game, bot_upload(data, filename))
    assert response.status_code == 400
    assert fragment in " ".join(response.json()["file"])
    assert not Bot.objects.exists()
    assert not BotVersion.objects.exists()


@pytest.mark.parametrize("case,filename,data,fragment", BAD, ids=[c[0] for c in BAD])
def test_it_rejects_a_bad_new_version_with_its_own_message_and_stores_nothing(
        owner, ready_bot, bot_upload, case, filename, data, fragment):
    bot = ready_bot("alpha")
    response = client_as(owner).post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload(data, filename)},
                                     format="multipart")
    assert response.status_code == 400
    assert fragment in " ".join(response.json()["file"])
    assert list(bot.versions.values_list("number", flat=True)) == [1]


def test_it_rejects_a_taken_name_on_the_name_field(owner, other_user, ready_bot, two_player_game, bot_upload):
    ready_bot("alpha")
    response = _post_bot(client_as(other_user), two_player_game, bot_upload(), name="ALPHA")
    assert response.status_code == 400
    assert "taken" in response.json()["name"][0]
    assert Bot.objects.count() == 1


def test_it_rejects_a_bad_name_on_the_name_field(owner, two_player_game, bot_upload):
    response = _post_bot(client_as(owner), two_player_game, bot_upload(), name="no spaces allowed")
    assert response.status_code == 400
    assert "letters, digits" in response.json()["name"][0]
    assert not Bot.objects.exists()


def test_it_rejects_an_unknown_game_on_the_game_field(owner, bot_upload):
    response = _post_bot(client_as(owner), "chess", bot_upload())
    assert response.status_code == 400
    assert "Unknown game 'chess'" in response.json()["game"][0]
    assert not Bot.objects.exists()


def test_it_asks_for_the_file_when_it_is_missing(owner, two_player_game):
    response = client_as(owner).post("/api/bots/", {"name": "nofile", "game": two_player_game}, format="multipart")
    assert response.status_code == 400
    assert "file" in response.json()
    assert not Bot.objects.exists()


def test_a_new_version_gets_the_next_number_and_leaves_the_active_version_alone(owner, ready_bot, bot_upload):
    bot = ready_bot("alpha")
    response = client_as(owner).post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert response.status_code == 201
    assert response.json()["number"] == 2 and response.json()["status"] == "pending"
    bot.refresh_from_db()
    assert bot.active_version.number == 1


def test_the_versions_list_is_newest_first(owner, ready_bot, bot_upload):
    bot = ready_bot("alpha")
    client = client_as(owner)
    client.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    body = client.get(f"/api/bots/{bot.pk}/versions/").json()
    assert [v["number"] for v in body["results"]] == [2, 1]
    assert body["results"][1]["status"] == "ready" and len(body["results"][1]["sha256"]) == 64


def test_the_owner_can_retire_a_bot_from_ladder_play(owner, ready_bot):
    bot = ready_bot("alpha")
    response = client_as(owner).patch(f"/api/bots/{bot.pk}/", {"is_active": False}, format="json")
    assert response.status_code == 200 and response.json()["is_active"] is False
    bot.refresh_from_db()
    assert bot.is_active is False


def test_a_change_of_the_name_game_or_owner_is_refused_and_changes_nothing(owner, other_user, ready_bot):
    bot = ready_bot("alpha")
    response = client_as(owner).patch(
        f"/api/bots/{bot.pk}/", {"name": "renamed", "game": "dive", "owner": "bob"}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"name", "game", "owner"}
    bot.refresh_from_db()
    assert (bot.name, bot.game, bot.owner) == ("alpha", ready_bot("bravo").game, owner)


def test_the_bot_list_filters_by_owner_and_game(owner, other_user, ready_bot, two_player_game):
    ready_bot("alpha")
    ready_bot("bravo", user=other_user)
    client = client_as(None)
    assert [b["name"] for b in client.get("/api/bots/?owner=bob").json()["results"]] == ["bravo"]
    assert [b["name"] for b in client.get(f"/api/bots/?game={two_player_game}").json()["results"]] == [
        "alpha", "bravo"]
    assert client.get("/api/bots/?game=chess").json()["count"] == 0


def test_a_bot_shows_its_ratings_and_active_version(arena):
    body = client_as(None).get(f"/api/bots/{arena['alpha'].pk}/").json()
    assert body["active_version"]["number"] == 1
    assert [r["ladder"] for r in body["ratings"]] == ["duel"]
    assert body["ratings"][0]["games"] == 1
    assert body["active_version"]["validation_log"] is None  # anonymous: no logs


def test_an_unknown_bot_is_404(db):
    assert client_as(None).get("/api/bots/999/").status_code == 404


def test_a_bots_rating_history_lists_each_rated_match(arena):
    body = client_as(None).get(f"/api/bots/{arena['bravo'].pk}/history/").json()
    assert len(body["results"]) == 1 and body["next"] is None
    change = body["results"][0]
    assert (change["ladder"], change["match"], change["before"]) == ("duel", arena["played"].pk, 1200.0)
    assert change["after"] > change["before"] and change["delta"] == change["after"] - change["before"]
    assert client_as(None).get(f"/api/bots/{arena['bravo'].pk}/history/?ladder=other").json()["results"] == []


def test_a_huge_upload_is_refused_with_the_size_message_and_only_the_limit_is_read(owner, two_player_game):
    from django.core.files.uploadedfile import SimpleUploadedFile

    huge = SimpleUploadedFile("huge.zip", b"PK" + b"\0" * (40 * 1024 * 1024))
    response = _post_bot(client_as(owner), two_player_game, huge)
    assert response.status_code == 400
    assert "larger than the 5 MiB limit" in response.json()["file"][0]
    assert not Bot.objects.exists()


def test_the_upload_handler_keeps_only_the_largest_limit_plus_one_byte():
    from arena.api.upload_handlers import CAP, CappedMemoryUploadHandler
    from arena.bots.uploads import MAX_ZIP_BYTES

    handler = CappedMemoryUploadHandler()
    handler.new_file("file", "big.zip", "application/zip", None)
    for start in range(0, 3 * CAP, 64 * 1024):
        handler.receive_data_chunk(b"x" * (64 * 1024), start)
    uploaded = handler.file_complete(3 * CAP)
    assert uploaded.size == CAP == MAX_ZIP_BYTES + 1
    assert uploaded.name == "big.zip" and uploaded.read(3) == b"xxx"


def test_a_request_with_many_files_is_refused(owner, two_player_game, bot_upload):
    client = client_as(owner)
    data = {"name": "many", "game": two_player_game, "file": bot_upload()}
    data.update({f"extra{i}": bot_upload() for i in range(5)})
    response = client.post("/api/bots/", data, format="multipart")
    assert response.status_code == 400
    assert not Bot.objects.exists()


@pytest.mark.parametrize("url", ["/api/bots/", "/api/bots/{first}/versions/"])
def test_bot_lists_need_the_same_number_of_queries_for_many_rows(owner, ready_bot, bot_upload, url):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first = ready_bot("bot-a")
    client = client_as(owner)
    url = url.format(first=first.pk)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for i in range(6):
        ready_bot(f"bot-{i}x")
        client.post(f"/api/bots/{first.pk}/versions/", {"file": bot_upload()}, format="multipart")
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).json()["count"] == 7
    assert len(many.captured_queries) == len(few.captured_queries)
