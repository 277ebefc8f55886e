"""lore over HTTP against a local server replaying recorded responses.

The responses in tests/fixtures/lore_http/ are the real linux-block thread
"[bug-report] Performance regression with fio sequential-write on a multipath
setup." (see build_fixtures.py there).  Never the internet: the server binds
127.0.0.1 on a free port.
"""

from __future__ import annotations

import gzip
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from lkmlkb.errors import FetchError, LimitExceeded, SourceError
from lkmlkb.sources.lore_http import (
    LoreClient,
    gunzip_capped,
    is_lore_source,
    parse_atom,
    parse_saved,
    split_lore_ref,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "lore_http"
IDS = [
    "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
    "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    "be93c772-d400-4105-b05a-735ed7365730@oracle.com",
    "29f6145427be4d5b81f34cc0a9f747a2@BJMBX02.spreadtrum.com",
]


class LoreReplay(BaseHTTPRequestHandler):
    """Serves the recorded responses; a few paths misbehave on purpose."""

    counts: Counter
    failures_left: dict
    user_agents: list

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, code: int, body: bytes, ctype: str = "text/plain", length: bool = True, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        srv = self.server
        srv.counts[self.path] += 1
        srv.user_agents.append(self.headers.get("User-Agent", ""))
        parts = urlsplit(self.path)
        segs = [unquote(s) for s in parts.path.split("/") if s]
        port = srv.server_address[1]
        if segs[:1] == ["flaky"] and srv.failures_left.get(self.path, 0) > 0:
            srv.failures_left[self.path] -= 1
            return self._send(503, b"busy")
        if segs[:1] == ["away"]:
            return self._send(
                302, b"", extra={"Location": f"http://localhost:{port}/linux-block/{segs[1]}/raw"}
            )
        if segs[:1] == ["moved"]:
            return self._send(301, b"", extra={"Location": f"/linux-block/{segs[1]}/raw"})
        if segs[:1] == ["huge"]:
            return self._send(200, b"x" * (2 * 1024 * 1024), length=segs[-1] != "nolength")
        if segs[:1] == ["bomb"]:
            return self._send(200, gzip.compress(b"\0" * (8 * 1024 * 1024)), "application/gzip")
        if len(segs) == 2 and segs[1] == "new.atom":
            return self._send(
                200,
                (FIX / "new.atom").read_bytes().replace(b"PORT", str(port).encode()),
                "application/atom+xml",
            )
        if len(segs) == 1 and parts.query.startswith("q="):
            return self._send(
                200,
                (FIX / "search.atom").read_bytes().replace(b"PORT", str(port).encode()),
                "application/atom+xml",
            )
        if len(segs) == 3 and segs[1] in IDS:
            if segs[2] == "t.mbox.gz":
                return self._send(200, (FIX / "thread.t.mbox.gz").read_bytes(), "application/gzip")
            if segs[2] == "raw":
                return self._send(200, (FIX / "raw" / f"{IDS.index(segs[1])}.mbox").read_bytes())
        return self._send(404, b"not found")


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), LoreReplay)
    srv.counts = Counter()
    srv.failures_left = {}
    srv.user_agents = []
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def client(server, tmp_path, **kw) -> LoreClient:
    opts = dict(
        cache_dir=tmp_path / "cache", allowed_hosts=("127.0.0.1",), min_interval=0.0, backoff=0.01, timeout=5
    )
    opts.update(kw)
    return LoreClient(f"http://127.0.0.1:{server.server_address[1]}", **opts)


def test_thread_fetch_returns_the_four_real_messages(server, tmp_path):
    c = client(server, tmp_path)
    msgs = c.thread(f"https://lore.kernel.org/linux-block/{IDS[2]}/T/#u")
    assert [m.message_id for m in msgs] == IDS
    report = msgs[0]
    assert report.subject == (
        "[bug-report] Performance regression with fio sequential-write on a multipath setup."
    )
    assert report.from_addr == "harshit.m.mogalapalli@oracle.com"
    assert "rw=write" in report.body and "d47f9717e5cf" in report.body
    assert msgs[3].in_reply_to == IDS[2]
    assert server.counts[f"/linux-block/{IDS[2]}/t.mbox.gz"] == 1
    assert all(ua.startswith("lkmlkb/0.1 (+https://") for ua in server.user_agents)


def test_cache_hit_makes_no_request(server, tmp_path):
    c = client(server, tmp_path)
    first = c.message(f"<{IDS[1]}>", "linux-block")
    again = client(server, tmp_path).message(f"<{IDS[1]}>", "linux-block")
    assert first.message_id == again.message_id == IDS[1]
    assert server.counts[f"/linux-block/{IDS[1]}/raw"] == 1
    assert "queue_depth" in again.body


def test_without_list_the_all_inbox_is_asked(server, tmp_path):
    c = client(server, tmp_path)
    assert c.message(f"lore:{IDS[0]}").message_id == IDS[0]
    assert server.counts[f"/all/{IDS[0]}/raw"] == 1


def test_404_is_not_retried(server, tmp_path):
    c = client(server, tmp_path)
    with pytest.raises(FetchError, match=r"/linux-block/nosuch@example.com/raw: HTTP 404"):
        c.message("<nosuch@example.com>", "linux-block")
    assert server.counts["/linux-block/nosuch@example.com/raw"] == 1


def test_retry_after_503(server, tmp_path):
    path = f"/flaky/{IDS[0]}/raw"
    server.failures_left[path] = 2
    msg = client(server, tmp_path, retries=3).message(IDS[0], "flaky")
    assert msg.message_id == IDS[0]
    assert server.counts[path] == 3


def test_503_until_retries_run_out_is_a_fetch_error(server, tmp_path):
    path = f"/flaky/{IDS[0]}/raw"
    server.failures_left[path] = 10
    c = client(server, tmp_path, retries=2)
    with pytest.raises(FetchError, match=r"gave up after 3 attempts: HTTP 503"):
        c.get(f"http://127.0.0.1:{server.server_address[1]}{path}")
    assert server.counts[path] == 3


def test_redirect_to_disallowed_host_is_refused(server, tmp_path):
    c = client(server, tmp_path)
    with pytest.raises(FetchError, match="redirect to a host that is not allowed: http://localhost"):
        c.message(IDS[0], "away")
    # the redirect was asked for once and its target (this same server, by another host name) never
    assert [p for p, n in server.counts.items() if n] == [f"/away/{IDS[0]}/raw"]


def test_redirect_within_allowed_host_is_followed(server, tmp_path):
    msg = client(server, tmp_path).message(IDS[3], "moved")
    assert msg.message_id == IDS[3]


def test_oversized_response_refused(server, tmp_path):
    c = client(server, tmp_path, max_bytes=1024 * 1024, retries=0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with pytest.raises(LimitExceeded, match="over the 1048576 byte limit"):
        c.get(base + "/huge/x")
    with pytest.raises(LimitExceeded, match="over the 1048576 byte limit"):
        c.get(base + "/huge/nolength")


def test_gzip_bomb_refused(server, tmp_path):
    c = client(server, tmp_path, max_expanded=1024 * 1024)
    with pytest.raises(LimitExceeded, match="gzip expands past 1048576"):
        c.thread(IDS[0], "bomb")


def test_host_outside_allow_list_refused(tmp_path):
    with pytest.raises(FetchError, match="not in the allowed hosts"):
        LoreClient("https://example.org", cache_dir=tmp_path)
    c = LoreClient(cache_dir=tmp_path)
    with pytest.raises(FetchError, match="example.org is not in the allowed hosts"):
        c.get("https://example.org/x/raw")


def test_atom_discovery_then_raw(server, tmp_path):
    c = client(server, tmp_path)
    msgs = c.new_messages("linux-block")
    assert [m.message_id for m in msgs] == list(reversed(IDS))
    assert msgs[0].subject.startswith("答复: 答复: [bug-report]")
    # feed is never cached; each /raw once
    c.new_messages("linux-block")
    assert server.counts["/linux-block/new.atom"] == 2
    assert server.counts[f"/linux-block/{IDS[0]}/raw"] == 1


def test_search_returns_message_ids(server, tmp_path):
    ids = client(server, tmp_path).search("linux-block", 'b:d47f9717e5cf s:"bug-report"')
    assert ids == [IDS[2], IDS[0]]
    (path,) = [p for p in server.counts if "?q=" in p]
    assert path.endswith("&x=A") and "d47f9717e5cf" in path


def test_parse_saved_thread_raw_and_atom():
    assert [m.message_id for m in parse_saved(FIX / "thread.t.mbox.gz")] == IDS
    (one,) = parse_saved(FIX / "raw" / "1.mbox")
    assert one.from_name == "牛志国 (Zhiguo Niu)"
    feed = parse_saved(FIX / "new.atom")
    assert feed[0].message_id == IDS[3] and feed[0].in_reply_to == IDS[2]
    assert feed[0].date_utc == "2024-03-13T10:30:02+00:00"


def test_atom_with_entities_refused():
    evil = (
        b'<?xml version="1.0"?><!DOCTYPE f [<!ENTITY a "aaaa">]><feed xmlns="http://www.w3.org/2005/Atom"/>'
    )
    with pytest.raises(Exception, match="DOCTYPE/ENTITY"):
        parse_atom(evil, "evil.atom")


def test_gunzip_capped_passes_plain_and_concatenated_members():
    assert gunzip_capped(b"From x\n", 10, "p") == b"From x\n"
    two = gzip.compress(b"ab") + gzip.compress(b"cd")
    assert gunzip_capped(two, 10, "p") == b"abcd"
    with pytest.raises(SourceError, match="truncated gzip"):
        gunzip_capped(gzip.compress(b"abc" * 1000)[:20], 10**6, "p")


@pytest.mark.parametrize(
    "s, expected",
    [
        (f"https://lore.kernel.org/linux-block/{IDS[0]}/", True),
        (f"https://lore-kernel.gnuweeb.org/lkml/{IDS[0]}/T/#u", True),
        (f"lore:<{IDS[0]}>", True),
        (f"<{IDS[1]}>", True),
        (IDS[2], True),
        ("https://lkml.org/lkml/2024/3/6/1230", False),
        ("/srv/archives/linux-block-2024q1.mboxrd.gz", False),
        ("corpus/000_a3585e8f2465c212.txt", False),
        ("", False),
    ],
)
def test_is_lore_source(s, expected):
    assert is_lore_source(s) is expected


def test_split_lore_ref_percent_escapes_and_r_links():
    assert split_lore_ref(f"https://lore.kernel.org/r/{IDS[0]}") == (None, IDS[0])
    assert split_lore_ref("https://lore.kernel.org/linux-block/a%2Fb@x/raw") == ("linux-block", "a/b@x")
    with pytest.raises(SourceError):
        split_lore_ref("https://lore.kernel.org/linux-block/")
