"""datasette-metadata.json against the real schema, and serve()'s checks of the database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lkmlkb.db.connection import connect
from lkmlkb.errors import DatabaseError
from lkmlkb.web.serve import check_database, load_metadata, make_datasette, url_for

ROOT = Path(__file__).resolve().parents[2]
TOP = ROOT / "datasette-metadata.json"
PACKAGED = ROOT / "lkmlkb" / "data" / "datasette-metadata.json"


def test_packaged_metadata_is_a_copy_of_the_top_level_file():
    assert PACKAGED.read_bytes() == TOP.read_bytes(), (
        "lkmlkb/data/datasette-metadata.json is stale: cp datasette-metadata.json lkmlkb/data/"
    )


def _schema(tmp_path) -> dict[str, list[str]]:
    db = connect(tmp_path / "fresh.db")
    shadow = ("_fts", "_fts_data", "_fts_idx", "_fts_docsize", "_fts_config", "_fts_content")
    names = [n for n in db.table_names() + db.view_names() if not n.endswith(shadow)]
    return {n: [c.name for c in db[n].columns] for n in names}


def test_every_table_and_column_has_a_title_and_description(tmp_path):
    tables = json.loads(TOP.read_text())["databases"]["kb"]["tables"]
    schema = _schema(tmp_path)
    missing_tables = sorted(set(schema) - set(tables))
    assert missing_tables == [], f"tables without metadata: {missing_tables}"
    for name, cols in schema.items():
        meta = tables[name]
        assert meta.get("title") and len(meta.get("description", "")) > 20, name
        undocumented = [c for c in cols if not meta["columns"].get(c)]
        assert undocumented == [], f"{name}: columns without a description: {undocumented}"
        # "Title: description": the part before the first colon is the column's title
        untitled = [c for c, d in meta["columns"].items() if ":" not in d[:60] and not d.endswith(".")]
        assert untitled == [], f"{name}: {untitled}"
    stale = sorted(set(tables) - set(schema))
    assert stale == [], f"metadata for tables that do not exist: {stale}"


def test_facets_name_real_columns(tmp_path):
    tables = json.loads(TOP.read_text())["databases"]["kb"]["tables"]
    schema = _schema(tmp_path)
    for name, meta in tables.items():
        for facet in meta.get("facets", []):
            col = facet if isinstance(facet, str) else next(iter(facet.values()))
            assert col in schema[name], (name, col)
        for col in meta.get("units", {}):
            assert col in schema[name], (name, col)


def test_canned_queries_compile_on_a_fresh_kb(tmp_path):
    """Every canned query is valid SQL on an empty knowledge base, with its named parameters."""
    from lkmlkb.web.hooks import prepare_connection

    connect(tmp_path / "kb.db").conn.close()
    conn = sqlite3.connect(tmp_path / "kb.db")
    prepare_connection(conn)
    queries = json.loads(TOP.read_text())["databases"]["kb"]["queries"]
    assert set(queries) == {
        "reports_citing_commit",
        "regressions_between_kernels",
        "reports_by_fio_option",
        "workload_across_kernels",
        "open_regressions_by_list",
        "search_messages",
    }
    import re

    for name, q in queries.items():
        params = {p: "" for p in re.findall(r":([a-z_]+)", q["sql"])}
        assert params, name
        conn.execute(q["sql"], params).fetchall()
        assert q["title"] and q["description"]


def test_load_metadata_rekeys_to_the_file_stem():
    meta = load_metadata("regressions")
    assert "regressions" in meta["databases"] and "kb" not in meta["databases"]
    assert 'href="/regressions/reports"' in meta["description_html"]
    assert load_metadata()["databases"]["kb"]["tables"]["reports"]["title"] == "Regression reports"


def test_missing_database_is_a_clear_error(tmp_path):
    with pytest.raises(DatabaseError, match="no such knowledge base"):
        check_database(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()


def test_not_sqlite_is_a_clear_error(tmp_path):
    bogus = tmp_path / "kb.db"
    bogus.write_text("From: not a database\n" * 200)
    with pytest.raises(DatabaseError, match="not a usable SQLite database"):
        check_database(bogus)


def test_other_sqlite_database_is_a_clear_error(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    with pytest.raises(DatabaseError, match="not an lkmlkb knowledge base"):
        check_database(other)


def test_database_of_another_version_is_a_clear_error(kb_copy):
    conn = sqlite3.connect(kb_copy[0])
    conn.execute("UPDATE kb_info SET value = 'lkmlkb-0' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match="another version of lkmlkb"):
        make_datasette(kb_copy[0])


def test_directory_is_a_clear_error(tmp_path):
    with pytest.raises(DatabaseError, match="is a directory"):
        check_database(tmp_path)


def test_served_read_only_while_an_ingest_writes(kb_copy):
    """Datasette reads the live WAL file (mode=ro), so rows written after it started are seen."""
    import asyncio

    ds = make_datasette(kb_copy[0])
    asyncio.run(ds.invoke_startup())
    assert ds.databases["kbcopy"].is_mutable  # opened mode=ro on the live file, not immutable=1
    assert ds.setting("suggest_facets") is False
    before = asyncio.run(ds.client.get("/kbcopy/messages.json?_shape=array&_size=max")).json()
    writer = connect(kb_copy[0])
    writer.execute("INSERT INTO kb_info(key, value) VALUES ('note', 'written while serving')")
    got = asyncio.run(ds.client.get("/kbcopy/kb_info.json?_shape=array")).json()
    assert {"key": "note", "value": "written while serving"} in got
    assert len(before) > 0
    # and Datasette itself cannot write
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        asyncio.run(ds.databases["kbcopy"].execute_fn(lambda c: c.execute("DELETE FROM kb_info")))
    writer.conn.close()


def test_url_for():
    assert url_for("127.0.0.1", 8001) == "http://127.0.0.1:8001/"
    assert url_for("::1", 9000) == "http://[::1]:9000/"


def test_main_reports_a_bad_database_in_one_line(tmp_path, capsys):
    from lkmlkb.web.serve import main

    assert main(["--db", str(tmp_path / "missing.db"), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lkmlkb serve: ") and "no such knowledge base" in err and "Traceback" not in err
