"""Domain store: migrations, projects, papers, artifacts, results, cache, lifecycle — on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import threading
from datetime import timezone
from decimal import Decimal

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.store import (
    Database,
    DomainStore,
    Labels,
    Ledger,
    Lifecycle,
    OrphanError,
    ProjectNotFound,
    Projects,
    Results,
    StoreError,
    UsageIn,
)
from agentr_dagster.store.engine import head_revision, make_engine
from agentr_dagster.store.rates import Rates
from agentr_dagster.store.schema import metadata

TABLES = {
    "accounts",
    "request_claims",
    "ledger_entries",
    "reservations",
    "usage_log",
    "model_pricing",
    "credit_multiplier",
    "default_credits",
    "projects",
    "paper_relevance",
    "project_leases",
    "paper_claims",
    "operator_waste",
    "papers",
    "artifacts",
    "paper_results",
    "response_cache",
    "status_transitions",
    "stage_status",
    "failures",
    "imported_files",
    "paper_labels",
    "source_responses",
    "source_searches",
    "paper_sightings",
    "alembic_version",
}


def key_fn(rec: PaperRecord) -> str:
    return f"doi:{rec.doi}" if rec.doi else "title:" + " ".join(rec.title.lower().split())


def hash_fn(rec: PaperRecord) -> str:
    return hashlib.sha256(f"{rec.title}\n{rec.abstract}".encode()).hexdigest()


def paper(i: int, **kw) -> PaperRecord:
    return PaperRecord(title=f"Paper {i}", abstract=f"Abstract {i}", **kw)


def add(store: DomainStore, slug: str, records, **prov):
    return store.projects.add_papers(
        slug, records, key_fn=key_fn, hash_fn=hash_fn, provenance={"format": "csv", "file": "x.csv", **prov}
    )


# -- migrations --------------------------------------------------------------------------------------------------


def test_migrates_from_empty_to_head_matching_the_schema(store_url):
    engine = make_engine(store_url)
    try:
        assert sa.inspect(engine).get_table_names() == []
        with DomainStore(store_url) as store:
            assert store.ledger.multiplier_in_force().credits_per_usd == Decimal("1000")
            assert store.ledger.default_credits_in_force() == Decimal("1000")
        assert set(sa.inspect(engine).get_table_names()) == TABLES
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            assert ctx.get_current_revision() == head_revision()
            assert compare_metadata(ctx, metadata) == []
        with DomainStore(store_url) as again:  # already at head: a no-op, seeds not duplicated
            assert len(again.ledger.pricing_history()) == 0
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM credit_multiplier")).scalar() == 1
            assert conn.execute(sa.text("SELECT count(*) FROM default_credits")).scalar() == 1
    finally:
        engine.dispose()


def test_concurrent_first_start_migrates_once(store_url):
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def start():
        try:
            barrier.wait()
            with DomainStore(store_url) as s:
                s.ledger.ensure_account()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    with DomainStore(store_url, migrate=False) as s:
        assert [a.name for a in s.ledger.accounts()] == ["default"]
        assert s.ledger.balance() == Decimal("1000")
        assert s.ledger.ledger_sum() == Decimal("1000")


def test_store_url_is_normalised(tmp_path):
    with DomainStore(f"sqlite:///{tmp_path}/a.db") as s:
        assert s.url == f"sqlite:///{tmp_path}/a.db"
    from agentr_dagster.store import normalise_url

    assert normalise_url("postgres://x@y/z") == "postgresql+psycopg2://x@y/z"


# -- projects ----------------------------------------------------------------------------------------------------


def test_create_get_list_project(store):
    p = store.projects.create_project("demo-1", "  An abstract.  ", title="Demo", budget_credits=50)
    assert (p.slug, p.abstract, p.title, p.account, p.budget_credits) == (
        "demo-1",
        "An abstract.",
        "Demo",
        "default",
        Decimal("50"),
    )
    assert p.created_at.tzinfo is not None and p.created_at.utcoffset().total_seconds() == 0
    assert store.projects.get_project("demo-1") == p
    assert [x.slug for x in store.projects.list_projects()] == ["demo-1"]
    with pytest.raises(ProjectNotFound):
        store.projects.get_project("nope")
    for bad in ("Demo", "a_b", "a--b", "-a", "", "a,b"):
        with pytest.raises(ValueError):
            store.projects.create_project(bad, "x")
    with pytest.raises(ValueError):
        store.projects.create_project("ok", "   ")


def test_recreating_a_project_updates_the_abstract_and_reinitiates(store):
    store.projects.create_project("demo", "First abstract")
    store.lifecycle.set_status("demo", "intent", "completed")
    same = store.projects.create_project("demo", "First abstract")
    assert [tr.state for tr in store.lifecycle.transitions("demo")] == ["completed"]
    changed = store.projects.create_project("demo", "Second abstract")
    assert changed.id == same.id and changed.abstract == "Second abstract"
    assert changed.updated_at > same.updated_at
    states = {(s.stage, s.state) for s in store.lifecycle.status("demo")}
    assert states == {("intent", "reinitiated"), ("project", "reinitiated")}
    assert [tr.detail for tr in store.lifecycle.transitions("demo", stage="project")] == ["abstract changed"]


def test_soft_delete_cascades_and_keeps_the_audit_trail(store):
    store.projects.create_project("gone", "abstract")
    ids = add(store, "gone", [paper(1), paper(2)]).paper_ids
    store.ledger.set_pricing("m", 1, 1)
    rid = store.ledger.reserve("default", 5, idempotency_key="k", slug="gone", stage="score", paper_id=ids[0])
    store.ledger.settle(rid, usage=UsageIn(model="m", input_tokens=1000, output_tokens=0))
    assert store.projects.is_active("gone") and store.projects.is_active("gone", ids[0])
    in_flight = store.ledger.reserve("default", 5, idempotency_key="k-flight", slug="gone", stage="score")

    store.projects.soft_delete_project("gone")
    # a call already in flight when the project was deleted is still settled and charged
    store.ledger.settle(in_flight, usage=UsageIn(model="m", input_tokens=1000, output_tokens=0))
    store.projects.soft_delete_project("gone")  # idempotent
    assert not store.projects.is_active("gone") and not store.projects.is_active("gone", ids[0])
    assert not store.projects.is_active("never-existed")
    with pytest.raises(ProjectNotFound):
        store.projects.get_project("gone")
    deleted = store.projects.get_project("gone", include_deleted=True)
    assert deleted.deleted_at is not None
    assert store.projects.list_projects() == [] and [
        p.slug for p in store.projects.list_projects(include_deleted=True)
    ] == ["gone"]
    papers = store.projects.list_papers("gone", include_deleted=True)
    assert all(p.deleted_at == deleted.deleted_at for p in papers) and len(papers) == 2
    # usage and ledger rows survive
    assert [u.slug for u in store.ledger.usage("gone")] == ["gone", "gone"]
    assert store.ledger.balance() == store.ledger.ledger_sum() == Decimal("998")
    # work on an orphan is refused, recording the orphan is not
    with pytest.raises(OrphanError):
        store.ledger.reserve("default", 1, idempotency_key="k2", slug="gone")
    with pytest.raises(OrphanError):
        store.results.save_result("gone", ids[1], "ck", {"a": 1}, prompt_version="v", model="m", backend="b")
    with pytest.raises(OrphanError):
        store.results.save_artifact(
            "gone", "intent", {}, prompt_version=None, model=None, backend=None, input_hash=None
        )
    with pytest.raises(OrphanError):
        add(store, "gone", [paper(3)])
    store.lifecycle.set_status("gone", "score", "failed_orphan", paper_id=ids[1])
    store.lifecycle.record_failure("gone", "score", "orphan", "project deleted", paper_id=ids[1])
    assert [f.failure_class for f in store.lifecycle.failures("gone")] == ["orphan"]
    with pytest.raises(StoreError):
        store.projects.create_project("gone", "again")


# -- papers ------------------------------------------------------------------------------------------------------


def test_add_papers_deduplicates_and_keeps_provenance(store):
    store.projects.create_project("p", "abstract")
    recs = [
        paper(1, doi="10.1/A", source_format="ris", source_file="a.ris", source_row=0),
        paper(2),
        paper(2),  # repeated within the batch
        PaperRecord(title="Other title", doi="https://doi.org/10.1/a"),  # same DOI as #1
    ]
    first = add(store, "p", recs, imported_at="2024-01-01T00:00:00+00:00")
    assert (first.added, first.duplicates, len(first.paper_ids)) == (2, 2, 2)
    again = add(store, "p", [paper(2), paper(3)])
    assert (again.added, again.duplicates) == (1, 1)
    rows = store.projects.list_papers("p")
    assert [r.id for r in rows] == first.paper_ids + again.paper_ids
    assert rows[0].doi == "10.1/a" and rows[0].paper_key == "doi:10.1/a"
    assert rows[0].provenance == {
        "format": "ris",
        "file": "a.ris",
        "row": 0,
        "imported_at": "2024-01-01T00:00:00+00:00",
    }
    assert rows[1].provenance["format"] == "csv" and rows[1].provenance["file"] == "x.csv"
    assert rows[1].content_hash == hash_fn(paper(2))
    assert rows[0].authors == [] and rows[0].deleted_at is None
    assert store.projects.count_papers("p") == 3
    # another project may hold the same keys
    store.projects.create_project("q", "abstract")
    assert add(store, "q", [paper(2)]).added == 1


def test_iter_papers_streams_in_batches(store):
    store.projects.create_project("big", "abstract")
    result = add(store, "big", [paper(i) for i in range(1203)])
    assert result.added == 1203
    streamed = store.projects.iter_papers("big", batch_size=500)
    assert next(streamed).id == result.paper_ids[0]
    assert [p.id for p in streamed] == result.paper_ids[1:]
    assert store.projects.count_papers("big") == 1203


def test_record_imported_file_makes_a_redrop_a_no_op(store):
    store.projects.create_project("p", "abstract")
    store.projects.create_project("q", "abstract")
    assert store.projects.record_imported_file("p", "ab" * 32, "a.csv") is True
    assert store.projects.record_imported_file("p", "ab" * 32, "renamed.csv") is False
    assert store.projects.record_imported_file("q", "ab" * 32, "a.csv") is True
    assert store.projects.is_file_imported("p", "ab" * 32) and not store.projects.is_file_imported("p", "cd" * 32)


def test_add_papers_records_its_file_in_the_same_transaction(store):
    store.projects.create_project("p", "abstract")
    keys = {"key_fn": lambda r: r.title, "hash_fn": lambda r: r.title, "provenance": {}}
    store.projects.add_papers("p", [PaperRecord(title="A")], imported_file=("cd" * 32, "a.csv"), **keys)
    assert store.projects.is_file_imported("p", "cd" * 32)
    store.projects.soft_delete_project("p")
    with pytest.raises(OrphanError):
        store.projects.add_papers("p", [PaperRecord(title="B")], imported_file=("ef" * 32, "b.csv"), **keys)
    assert not store.projects.is_file_imported("p", "ef" * 32)  # nothing stored, nothing recorded


# -- artifacts, results, cache -----------------------------------------------------------------------------------


def test_artifacts_are_append_only_and_latest_wins(store):
    store.projects.create_project("p", "abstract")
    assert store.results.latest_artifact("p", "intent") is None
    meta = {"prompt_version": "v1", "model": "m", "backend": "offline", "input_hash": "h1"}
    a1 = store.results.save_artifact("p", "intent", {"x": 1}, **meta)
    a2 = store.results.save_artifact("p", "intent", {"x": 2, "nested": {"k": [1, 2]}}, **{**meta, "input_hash": "h2"})
    store.results.save_artifact("p", "queries", {"q": 1}, **meta)
    latest = store.results.latest_artifact("p", "intent")
    assert a2 > a1 and latest.id == a2
    assert latest.payload == {"x": 2, "nested": {"k": [1, 2]}} and latest.input_hash == "h2"
    assert latest.backend == "offline" and latest.created_at.tzinfo is not None


def test_results_are_idempotent_per_cache_key(store):
    store.projects.create_project("p", "abstract")
    store.projects.create_project("q", "abstract")
    p1, p2, p3 = add(store, "p", [paper(1), paper(2), paper(3)]).paper_ids
    meta = {"prompt_version": "v1", "model": "m", "backend": "b"}
    assert store.results.save_result("p", p1, "k1", {"score": 1}, **meta) is True
    assert store.results.save_result("p", p1, "k1", {"score": 99}, **meta) is False
    assert store.results.get_result(p1, "k1") == {"score": 1}
    assert store.results.get_result(p1, "nope") is None
    store.results.save_result("p", p1, "k2", {"score": 2}, **meta)
    store.results.save_result("p", p2, "k1", {"score": 3}, **meta)
    latest = store.results.results_for_project("p")
    assert [(r.paper_id, r.cache_key) for r in latest] == [(p1, "k2"), (p2, "k1")]
    chosen = store.results.results_for_project("p", {p1: "k1", p2: "k2", p3: "k1"})
    assert [(r.paper_id, r.payload) for r in chosen] == [(p1, {"score": 1})]
    assert store.results.results_for_project("p", {}) == []
    with pytest.raises(StoreError):  # the paper belongs to another project
        store.results.save_result("q", p1, "k9", {}, **meta)


# -- lifecycle ---------------------------------------------------------------------------------------------------


def test_status_upserts_and_transitions_append(store):
    store.projects.create_project("p", "abstract")
    ids = add(store, "p", [paper(i) for i in range(5)]).paper_ids
    store.lifecycle.set_status("p", "score", "queued", run_id="r1")
    store.lifecycle.set_status("p", "score", "in_progress", run_id="r1", detail="5 papers")
    store.lifecycle.set_status_many("p", "score", "queued", ids, run_id="r1")
    store.lifecycle.set_status_many("p", "score", "completed", ids[:3], run_id="r1")
    store.lifecycle.set_status("p", "score", "failed_transient", paper_id=ids[3], detail="429")
    store.lifecycle.set_status("p", "intent", "completed")
    rows = {s.stage: s for s in store.lifecycle.status("p")}
    assert rows["score"].state == "in_progress" and rows["score"].detail == "5 papers"
    assert rows["score"].paper_counts == {"completed": 3, "queued": 1, "failed_transient": 1}
    assert rows["intent"].paper_counts == {} and rows["intent"].updated_at.tzinfo is not None
    assert store.lifecycle.paper_states("p", "score")[ids[3]] == "failed_transient"
    stage_level = [tr.state for tr in store.lifecycle.transitions("p", "score") if tr.paper_id is None]
    assert stage_level == ["queued", "in_progress"]
    per_paper = store.lifecycle.transitions("p", "score", paper_id=ids[0])
    assert [tr.state for tr in per_paper] == ["queued", "completed"]
    assert per_paper[0].created_at <= per_paper[1].created_at
    assert len(store.lifecycle.transitions("p")) == 2 + 5 + 3 + 1 + 1
    with pytest.raises(ValueError):
        store.lifecycle.set_status("p", "score", "done")
    with pytest.raises(ProjectNotFound):
        store.lifecycle.set_status("nope", "score", "queued")


def test_status_without_slug_lists_live_projects_only(store):
    store.projects.create_project("a", "abstract")
    store.projects.create_project("b", "abstract")
    store.lifecycle.set_status("a", "intent", "completed")
    store.lifecycle.set_status("b", "intent", "failed_no_credits")
    store.projects.soft_delete_project("b")
    assert [(s.slug, s.state) for s in store.lifecycle.status()] == [("a", "completed")]
    assert [(s.slug, s.state) for s in store.lifecycle.status("b")] == [("b", "failed_no_credits")]


def test_failures_are_recorded(store):
    store.projects.create_project("p", "abstract")
    fid = store.lifecycle.record_failure(
        "p", "score", "transient", "429 Too Many Requests", attempt=2, run_id="r", step_key="s"
    )
    store.lifecycle.record_failure("p", "intent", "permanent", "401")
    rows = store.lifecycle.failures("p")
    assert rows[0].id == fid and (rows[0].attempt, rows[0].step_key, rows[0].slug) == (2, "s", "p")
    assert [f.failure_class for f in store.lifecycle.failures()] == ["transient", "permanent"]
    with pytest.raises(ValueError):
        store.lifecycle.record_failure("p", "score", "cosmic-ray", "?")


def test_rows_are_plain_values_detached_from_sessions(store):
    store.projects.create_project("p", "abstract")
    row = store.projects.get_project("p")
    with pytest.raises(AttributeError):
        row.slug = "other"  # frozen dataclass
    assert row.created_at.tzinfo == timezone.utc


def test_payloads_round_trip_with_key_order(store):
    store.projects.create_project("p", "abstract")
    payload = {"zeta": 1, "alpha": {"b": 2, "a": [3, {"y": None, "x": "é"}]}, "mid": 1.5}
    store.results.save_artifact("p", "intent", payload, prompt_version=None, model=None, backend=None, input_hash=None)
    stored = store.results.latest_artifact("p", "intent").payload
    assert list(stored) == ["zeta", "alpha", "mid"] and list(stored["alpha"]) == ["b", "a"]
    assert stored == payload


def test_the_store_is_composed_of_small_parts(store):
    """No inheritance chain and no delegation magic: each concern is a part over the one Database."""
    assert DomainStore.__mro__ == (DomainStore, object) and "__getattr__" not in vars(DomainStore)
    parts = {"projects": Projects, "results": Results, "lifecycle": Lifecycle, "ledger": Ledger, "labels": Labels}
    for name, cls in parts.items():
        part = getattr(store, name)
        # The ledger's one base is its SCD-2 rates (store/rates.py), kept apart from accounts and reservations.
        bases = (cls, Rates, object) if cls is Ledger else (cls, object)
        assert type(part) is cls and part.db is store.db and cls.__mro__ == bases
    assert isinstance(store.db, Database) and not hasattr(store, "reserve") and not hasattr(store, "get_project")
    assert store.projects.ledger is store.ledger and store.results.lifecycle is store.lifecycle
