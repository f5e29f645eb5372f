"""python -m workers.replay view FILE [--out PAGE]: one self-contained page that draws a replay."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

from workers import replay as replays
from workers.runner import SeatSpec, run_match
from workers.viewer import VIEWER_SCRIPTS, standalone_page, unpack_page_replay

ROOT = Path(__file__).resolve().parents[2]


def view(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.replay", "view", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def _replay(game="divee", seats=2, seed=3) -> dict:
    return run_match(game, [SeatSpec("builtin:random")] * seats, seed=seed).replay


def test_it_writes_one_page_beside_the_replay_and_prints_its_path(tmp_path):
    path = tmp_path / "match.replay.json.gz"
    replays.save(_replay(), path)
    done = view(str(path))
    assert done.returncode == 0, done.stderr
    page = tmp_path / "match.replay.html"
    assert done.stdout.strip() == str(page)
    html = page.read_text()
    # Self-contained: no file or URL the page would need to load.
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=', html)
    for script in VIEWER_SCRIPTS:
        assert (ROOT / "static" / script).read_text()[:200] in html
    # The replay is embedded packed (gzip, base64): a fraction of the full form, and a page much
    # smaller than the same page with the replay as plain JSON (the viewer's scripts are in both).
    full = replays.expand(replays.load(path))
    assert unpack_page_replay(html) == json.loads(json.dumps(full))
    packed = re.search(r'id="replay-data"[^>]*>([^<]*)</script>', html).group(1)
    assert len(packed) < len(json.dumps(full)) / 10
    assert len(html) < len(standalone_page(full, packed=False)) / 3


def test_out_names_the_page_and_a_plain_json_replay_is_read_too(tmp_path):
    path = tmp_path / "match-12-replay.json"
    path.write_text(json.dumps(_replay("dive", 1)))
    done = view(str(path), "--out", str(tmp_path / "watch.html"))
    assert done.returncode == 0 and done.stdout.strip() == str(tmp_path / "watch.html")
    assert "Dive Arena" in (tmp_path / "watch.html").read_text()


def test_a_file_that_is_not_a_replay_gets_a_clear_message_and_no_page(tmp_path):
    for name, content in [("garbage.json", b"{not json"), ("other.json", b'{"format": "chess"}'),
                          ("newer.json", b'{"format": "dive-arena-replay", "version": 7, "game": "dive"}')]:
        (tmp_path / name).write_bytes(content)
        done = view(str(tmp_path / name))
        assert done.returncode == 1, name
        assert done.stderr.startswith(str(tmp_path / name)) and "Traceback" not in done.stderr
        assert not (tmp_path / name.replace(".json", ".html")).exists()
    assert "not a Dive Arena replay" in view(str(tmp_path / "other.json")).stderr
    assert "version 7" in view(str(tmp_path / "newer.json")).stderr
    assert "cannot read: No such file or directory" in view(str(tmp_path / "missing.json")).stderr
    assert "not a replay: not JSON" in view(str(tmp_path / "garbage.json")).stderr
    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(b'{"format": "dive-arena-replay"}')[:-8])
    assert "not a replay: a damaged or truncated gzip file" in view(str(tmp_path / "cut.json.gz")).stderr
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    assert "not a replay: not UTF-8 text" in view(str(tmp_path / "binary.json")).stderr


def test_text_from_the_replay_cannot_close_the_script_it_is_embedded_in():
    replay = _replay()
    replay["seats"][0]["name"] = "</script><script>alert(1)</script><!--"
    for packed in (True, False):
        html = standalone_page(replays.expand(replay), packed=packed)
        assert "alert(1)</script>" not in html and "<!--" not in html.split('id="replay-data"', 1)[1].split("</script>")[0]
        assert unpack_page_replay(html)["seats"][0]["name"] == "</script><script>alert(1)</script><!--"


def test_expand_adds_the_engines_own_result_to_the_final_position():
    solo = replays.expand(_replay("divee", 1, seed=5))
    assert solo["final"]["result"]["title"]        # a solo Divee! game has a title
    assert solo["final"]["full_view"]               # still there
