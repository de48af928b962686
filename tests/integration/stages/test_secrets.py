"""The API key never leaves the environment: after a real run with a known fake key against the scripted
OpenAI-compatible server (with retries, a repair round, a refused key and quarantined input on the way), the
key is searched for in Dagster's run and event-log storage, asset metadata, every row of every table of the
domain store, the exports, the drop folder's error files, captured Python logs and everything the CLI
printed, and in the raw bytes of every file under AGENTR_HOME. It must appear nowhere. The server must have
received it (as a Bearer token), or the search would prove nothing.
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from dagster import AssetKey, DagsterInstance
from dagster._serdes import serialize_value

from agentr_dagster.cli import main
from agentr_dagster.defs.resources import StoreResource
from agentr_dagster.defs.sensors import inbox_pass
from agentr_dagster.settings import dagster_home
from agentr_dagster.testing.responders import valid_responder
from agentr_dagster.testing.scripted_server import Fault
from tests.support import DEMO
from tests.support.recovery import stage_name, title_of

ASSETS = ("research_intent", "search_queries", "candidate_papers", "relevance", "paper_scores", "score_exports",
          "research_landscape", "related_work")


def key_forms(key: str) -> list[bytes]:
    """The key as it could sit in a file: UTF-8, UTF-16 (both orders), base64 of itself and of a Basic pair."""
    forms = [key.encode(), key.encode("utf-16-le"), key.encode("utf-16-be"), base64.b64encode(key.encode())]
    forms += [base64.b64encode(f"user:{key}".encode()), base64.b64encode(f":{key}".encode())]
    return forms


def scan_files(root: Path, key: str) -> list[str]:
    hits = []
    forms = key_forms(key) + [key.split("-")[-1].encode()]  # the random part alone, too
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            hits += [f"{path.relative_to(root)} holds {form[:12]!r}..." for form in forms if form in data]
    return hits


def dump_database(url: str) -> str:
    """Every row of every table of every schema the URL sees, as text."""
    engine = sa.create_engine(url)
    parts = []
    try:
        inspector = sa.inspect(engine)
        schemas = [None] if engine.dialect.name == "sqlite" else [
            s for s in inspector.get_schema_names() if s not in ("information_schema", "pg_catalog")
        ]
        with engine.connect() as conn:
            for schema in schemas:
                metadata = sa.MetaData(schema=schema)
                metadata.reflect(bind=conn)
                for table in metadata.sorted_tables:
                    for row in conn.execute(sa.select(table)):
                        parts.append(f"{table.fullname}: {row!r}")
    finally:
        engine.dispose()
    assert len(parts) > 10, "the dump found almost nothing: the scan would prove nothing"
    return "\n".join(parts)


def dump_dagster(instance: DagsterInstance) -> str:
    """Runs (config, tags, op selection), every event of every run, and asset materialization metadata."""
    parts = []
    runs = instance.get_runs()
    assert runs, "no Dagster runs recorded"
    for run in runs:
        parts.append(serialize_value(run))
        for entry in instance.all_logs(run.run_id):
            parts.append(serialize_value(entry))
    for name in ASSETS:
        for record in instance.fetch_materializations(AssetKey(name), limit=1000).records:
            parts.append(serialize_value(record.event_log_entry))
    parts.append(json.dumps(instance.get_dynamic_partitions("projects")))
    return "\n".join(parts)


@pytest.fixture
def fake_key() -> str:
    return f"sk-agentr-FAKE-{uuid.uuid4().hex}"


class Session:
    """The CLI in-process with the environment a user would set, and everything it printed."""

    def __init__(self, monkeypatch, home: Path, database_url: str, base_url: str, key: str):
        env = {
            "AGENTR_HOME": str(home), "AGENTR_DATABASE_URL": database_url, "AGENTR_LLM_BASE_URL": base_url,
            "AGENTR_LLM_MODEL": "scripted-model", "AGENTR_LLM_API_KEY": key,
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        self.home, self.database_url, self.key = home, database_url, key
        self.runner = CliRunner()
        self.printed: list[str] = []

    def __call__(self, *args: str, **extra_env: str):
        result = self.runner.invoke(main, list(args), env=extra_env or None, catch_exceptions=False)
        self.printed.append(result.output + (result.stderr or ""))
        return result

    def leaks(self, caplog) -> list[str]:
        """Where the key was found: domain store, Dagster storage, files under the home, logs, CLI output."""
        found = []
        store_text = dump_database(self.database_url)
        if self.key in store_text or self.key.split("-")[-1] in store_text:
            found.append("the domain store")
        with DagsterInstance.from_config(str(dagster_home(self.home))) as instance:
            dagster_text = dump_dagster(instance)
        assert "paper_scores" in dagster_text or "research_intent" in dagster_text
        if self.key in dagster_text:
            where = dagster_text.index(self.key)
            found.append(f"Dagster's run/event storage: ...{dagster_text[max(0, where - 300):where + 60]}")
        found += [f"file {hit}" for hit in scan_files(self.home, self.key)]
        logs = "\n".join(f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records)
        assert logs, "no log records were captured"
        if self.key in logs:
            found.append("a Python log record")
        if self.key in "\n".join(self.printed):
            found.append("the CLI's output")
        return found


def sent_keys(server) -> set[str | None]:
    return {h.get("Authorization") or h.get("authorization") for h in server.request_headers}


def small_project(agentr: Session, tmp_path: Path, slug: str, salt: str = "") -> None:
    papers = tmp_path / f"{slug}.csv"
    pd.read_csv(DEMO / "papers.csv").head(5).to_csv(papers, index=False)
    abstract = tmp_path / f"{slug}.md"  # a distinct abstract per project: the response cache must not answer
    abstract.write_text((DEMO / "abstract.md").read_text() + salt)
    assert agentr("project", "add", slug, "--abstract", str(abstract)).exit_code == 0
    assert agentr("papers", "add", slug, str(papers)).exit_code == 0


def test_the_key_appears_nowhere_after_a_run(pg_url, tmp_path, monkeypatch, scripted_server, caplog, fake_key):  # noqa: F811
    # A transient 429 and a 500 (retried, recorded as failures), an off-schema answer (repaired), then valid.
    server = scripted_server(valid_responder, faults=[
        Fault("status", status=429, retry_after=0.05), Fault("status", status=500), Fault("schema_violation"),
    ])
    refusing = scripted_server(valid_responder, faults=lambda i, body: Fault("status", status=401))
    caplog.set_level(logging.DEBUG)  # every logger, every level: httpx and openai debug lines included
    agentr = Session(monkeypatch, tmp_path / "home", pg_url, server.base_url, fake_key)
    assert agentr("pricing", "set", "scripted-model", "--input", "2", "--output", "8").exit_code == 0
    assert agentr("credits", "grant", "1000").exit_code == 0
    small_project(agentr, tmp_path, "secret-run")
    small_project(agentr, tmp_path, "refused", salt="\nWe also study reviewer disagreement.")
    assert agentr("papers", "add", "secret-run", str(tmp_path)).exit_code != 0  # a folder: a CLI error

    run = agentr("run", "secret-run", "--no-progress", "--verbose")
    assert run.exit_code == 0, run.output
    refused = agentr("run", "refused", "--no-progress", "--verbose", AGENTR_LLM_BASE_URL=refusing.base_url)
    assert refused.exit_code != 0  # a permanent failure, classified and recorded
    assert agentr("export", "secret-run").exit_code == 0
    for command in (["usage", "--json"], ["status", "--json"], ["failures", "--json"], ["credits", "balance"]):
        assert agentr(*command).exit_code == 0
    # Bad files through the drop folder, so there are error files to search.
    inbox = agentr.home / "inbox" / "secret-run"
    inbox.mkdir(parents=True)
    (inbox / "binary.csv").write_bytes(b"\x00\x01\x02" * 50)
    (inbox / "no-title.csv").write_text("name\nx\n")
    inbox_pass(StoreResource(database_url=pg_url).get(), agentr.home, {"secret-run"})
    assert len(list((agentr.home / "inbox" / "rejected" / "secret-run").glob("*.error.txt"))) == 2
    assert {p.suffix for p in (agentr.home / "results" / "secret-run").iterdir()} >= {".csv", ".parquet", ".xlsx"}

    # The key was really sent (so the search means something)...
    assert sent_keys(server) == {f"Bearer {fake_key}"} and sent_keys(refusing) == {f"Bearer {fake_key}"}
    assert server.calls >= 2 + 5 + 3
    # ...and it is recorded nowhere.
    assert agentr.leaks(caplog) == []
    # What a person sees about the refused key is still useful.
    failures = json.loads(agentr("failures", "refused", "--json").output)
    assert any("HTTP 401" in f["message"] and "AGENTR_LLM_API_KEY" in f["message"] for f in failures)


def test_an_endpoint_that_echoes_the_key_does_not_leak_it(pg_url, tmp_path, monkeypatch, scripted_server, caplog,  # noqa: F811
                                                          fake_key):
    """Some proxies answer a bad key with the key itself in the error body; none of it may be stored."""
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {fake_key}", "type": "invalid_request"}})
    echoing = scripted_server(valid_responder, faults=lambda i, _: Fault("status", status=400 + (i % 2), body=body))
    caplog.set_level(logging.DEBUG)
    agentr = Session(monkeypatch, tmp_path / "home", pg_url, echoing.base_url, fake_key)
    small_project(agentr, tmp_path, "echoed")
    assert agentr("run", "echoed", "--no-progress").exit_code != 0
    assert sent_keys(echoing) == {f"Bearer {fake_key}"}
    leaks = agentr.leaks(caplog)
    assert leaks == [], "\n".join(leaks)


def test_the_key_is_an_env_reference_in_the_resource(monkeypatch, fake_key):
    """resources_from_env hands Dagster an EnvVar: what the definitions and the UI hold is the variable's name;
    the value is read only when a run resolves its resources (the test above shows the server got it)."""
    from dagster import EnvVar

    from agentr_dagster.defs.resources import resources_from_env

    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTR_LLM_API_KEY", fake_key)
    llm = resources_from_env()["llm"]
    assert isinstance(llm.api_key, EnvVar) and llm.api_key.env_var_name == "AGENTR_LLM_API_KEY"
    assert fake_key not in repr(llm) and fake_key not in str(resources_from_env())


def test_the_key_reaches_neither_storage_nor_exports_draft_nor_report_on_sqlite(tmp_path, monkeypatch, scripted_server,  # noqa: F811
                                                                              caplog, fake_key):
    """The whole chain on SQLite, everything under AGENTR_HOME: the domain store's file, Dagster's run storage and
    event log (SQLite files under $AGENTR_HOME/dagster), the exports, the related-work draft rewritten by the
    model, and the HTML report. A paper whose answers never validate makes the run partial on the way (its
    failures and the retry command are stored and printed too). The key is in none of them."""
    invalid_title = {"title": None}

    def faults(index: int, body: dict):
        if stage_name(body) == "score":
            invalid_title["title"] = invalid_title["title"] or title_of(body)
            if title_of(body) == invalid_title["title"]:
                return Fault("schema_violation")
        return None

    server = scripted_server(valid_responder, faults=faults)
    caplog.set_level(logging.DEBUG)
    home = tmp_path / "home"
    agentr = Session(monkeypatch, home, f"sqlite:///{home / 'agentr.sqlite'}", server.base_url, fake_key)
    assert agentr("pricing", "set", "scripted-model", "--input", "2", "--output", "8").exit_code == 0
    small_project(agentr, tmp_path, "secret-sqlite")

    run = agentr("run", "secret-sqlite", "--no-progress", "--verbose")
    assert run.exit_code == 3, run.output  # partial: one paper invalid, the rest exported, synthesised, drafted
    assert "--retry-invalid" in run.output
    report = agentr("report", "secret-sqlite")
    assert report.exit_code == 0, report.output
    for command in (["usage", "--json"], ["status"], ["failures"], ["ledger", "verify"]):
        assert agentr(*command).exit_code == 0

    results = home / "results" / "secret-sqlite"
    written = {p.name for p in results.iterdir()}
    assert {"scores.csv", "scores.parquet", "scores.xlsx", "related_work.md", "related_work.tex",
            "related_work.bib", "report.html"} <= written, written
    assert (home / "agentr.sqlite").stat().st_size > 0 and list((home / "dagster").rglob("*.db"))
    assert any(stage_name(body) == "related_work" for body in server.requests)  # the model rewrote the draft
    assert sent_keys(server) == {f"Bearer {fake_key}"}  # the key was really sent...
    leaks = agentr.leaks(caplog)  # ...and is recorded nowhere: the store, Dagster's storage, every file, logs
    assert leaks == [], "\n".join(leaks)
