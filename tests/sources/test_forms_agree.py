"""One message read from three archives' pages says what the raw mail says.

Each corpus thread's messages are rendered by ``scripts/render_forms.py`` as lore's message
page, lkml.org's (no address) and marc.info's (addresses mangled), and extracted as the
raw message is: whether it is a report, its commits with their roles, and its results.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.sources import iter_source
from lkmlkb.sources.base import RawMail

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("render_forms", ROOT / "scripts" / "render_forms.py")
assert _spec is not None and _spec.loader is not None
render_forms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render_forms)

THREADS = sorted((ROOT / "corpus").glob("*.mbox"))


def _said(path: Path) -> list[tuple]:
    out = CliRunner().invoke(main, ["extract", "--format", "json", str(path)])
    assert out.exit_code == 0, out.output
    return [
        (
            r["is_regression_report"],
            sorted((c["sha"], c["role"]) for c in r["commits"]),
            sorted((x["value"], x["unit"], x["kernel"]) for x in r["results"]),
        )
        for r in json.loads(out.output)["reports"]
    ]


@pytest.mark.parametrize("thread", THREADS, ids=lambda p: p.stem)
def test_every_form_of_a_message_says_what_the_raw_mail_says(thread, tmp_path):
    raws = [item.raw for item in iter_source(str(thread)) if isinstance(item, RawMail)][:3]
    assert raws
    for n, raw in enumerate(raws):
        eml = tmp_path / f"{n}.eml"
        eml.write_bytes(raw)
        want = _said(eml)
        for form, page in render_forms.render(raw).items():
            html_file = tmp_path / f"{n}-{form}.html"
            html_file.write_text(page, encoding="utf-8")
            assert _said(html_file) == want, (form, n)
