"""The job "as posted" says at its top that it is the reporter's text, not safe to run."""

from __future__ import annotations

import urllib.parse


def job_url(rid: str, suffix: str) -> str:
    return "/-/lkmlkb/report/" + urllib.parse.quote(rid, safe="") + suffix


def test_posted_job_opens_with_the_warning(get, kb):
    r = get(job_url(kb[1], "/job/1.fio?as=posted"))
    assert r.status_code == 200
    first = r.text.splitlines()[0]
    assert first.startswith("; AS POSTED: the reporter's text, NOT made safe")
    assert "do not run it as is" in first


def test_safe_job_has_no_posted_warning(get, kb):
    r = get(job_url(kb[1], "/job/1.fio"))
    assert r.status_code == 200 and "AS POSTED" not in r.text
