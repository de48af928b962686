"""Searches that miss nothing, against the replay server's strict dialect parsers and URL limits on loopback: a
Boolean query too long for OpenAlex's URL goes as OR-shards and silences nothing; a request the server refuses fails
that query alone; two living updates on one day find what the sources indexed in between (by index date, past the
cache); a record with a DOI and no title is named by Crossref; the PRISMA boxes equal the store's counts after a
snowball and after a scoring run stopped early."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal
from urllib.parse import unquote_plus

import pytest

from agentr_dagster.domain.contracts import SearchQueries
from agentr_dagster.llm.backends import make_backend
from agentr_dagster.settings import get_settings
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import build_sources
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.prisma import prisma_counts
from agentr_dagster.stages.queries import current_queries
from agentr_dagster.stages.relevance import rank_project
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.stages.search import pending_searches, search_project
from agentr_dagster.stages.snowball import snowball_project
from agentr_dagster.testing.replay_server import ReplayServer, generate_corpus
from tests.support.sources import new_paper, point_sources_at, project_with_queries

SEARCH = "openalex,pubmed,europepmc,arxiv"
# Terms of a multilingual review: Cyrillic percent-encodes to six bytes a letter, so 100 of them make a request far
# past OpenAlex's 4,094-byte limit (and past the others' 8 KB) while the query stays within its 2,000 characters.
FOREIGN = [f"скрининг{i:03d}" for i in range(100)]
LONG_QUERY = ('("active learning" OR "transfer learning" OR "large language models") AND ("public health" OR '
              + " OR ".join(FOREIGN) + ")")


def sources(store):
    return build_sources(get_settings(), ResponseCache(store))


def with_boolean(store, slug: str, boolean: str) -> None:
    queries = current_queries(store, slug)
    store.results.save_artifact(slug, "queries", SearchQueries(**{**queries.model_dump(), "boolean_query": boolean}),
                                prompt_version=None, model=None, backend=None, input_hash=None)


def sent_values(server, route: str) -> list[str]:
    """Every query value the route received (OpenAlex: search= and the search filter)."""
    out = []
    for r, _, params in server.requests:
        if r == route:
            out += [params.get(k, "") for k in ("search", "filter", "term", "query", "search_query")]
    return [unquote_plus(v) for v in out if v]


def test_a_query_past_the_url_limit_is_sent_as_shards_and_every_string_still_runs(sqlite_store, monkeypatch):
    store = sqlite_store
    assert len(LONG_QUERY) < 2000
    with ReplayServer(generate_corpus(60)) as server:
        point_sources_at(monkeypatch, server, SEARCH)
        project_with_queries(store, "long")
        with_boolean(store, "long", LONG_QUERY)

        summary = search_project(store, "long", sources(store), max_results=30, add_to_lake=False)

        assert summary.failures() == [] and server.too_long == {}  # nothing refused, nothing silenced
        boolean = {s.source: s for s in summary.searches if s.query_name == "boolean"}
        assert boolean["openalex"].shards > 1 and boolean["openalex"].hits > 0
        assert boolean["europepmc"].shards > 1 and boolean["arxiv"].shards > 1  # past 8 KB with their field tags
        strings = {s.query_name for s in summary.searches if s.source == "openalex" and s.query_name != "boolean"}
        assert strings == {f"string-{i:02d}" for i in range(1, 11)}  # the ten strings were sent
        assert all(len(path) <= 4094 for route, path, _ in server.requests if route == "openalex")
        for route in ("openalex", "pubmed.esearch", "europepmc", "arxiv"):  # every term went out in some shard
            text = " ".join(sent_values(server, route))
            assert all(term in text for term in FOREIGN), route
        assert summary.metadata()["source_sharded_searches"] == sum(1 for s in boolean.values() if s.shards > 1)


def test_a_request_the_server_refuses_fails_that_query_alone_and_is_retried(sqlite_store, monkeypatch):
    store = sqlite_store
    # a server stricter than the client's guard: every shard of the Boolean query is refused with a 400
    with ReplayServer(generate_corpus(60), url_limits={"openalex": 1200}) as server:
        point_sources_at(monkeypatch, server, "openalex")
        project_with_queries(store, "strict")
        with_boolean(store, "strict", LONG_QUERY)

        summary = search_project(store, "strict", sources(store), max_results=30, add_to_lake=False)

        by_query = {s.query_name: s for s in summary.searches}
        assert "Request URL too long" in by_query["boolean"].failure
        assert all(s.failure is None for name, s in by_query.items() if name != "boolean")
        assert len(by_query) == 11 and server.too_long["openalex"] == by_query["boolean"].shards > 1
        meta = summary.metadata()
        assert meta["source_failed_searches"] == [{"source": "openalex", "query": "boolean",
                                                   "reason": by_query["boolean"].failure[:300]}]
        assert meta["source_retry_next_run"] == ["openalex:boolean"]
        pending = pending_searches(store, "strict", ["openalex"])
        assert [(p.source, p.query_name) for p in pending] == [("openalex", "boolean")]
        assert "Request URL too long" in pending[0].reason


def test_two_updates_on_one_day_find_what_the_sources_indexed_in_between(sqlite_store, monkeypatch):
    store = sqlite_store
    today = datetime.now(timezone.utc).date()
    with ReplayServer(generate_corpus(60)) as server:
        point_sources_at(monkeypatch, server, SEARCH)
        project_with_queries(store, "twice")
        search_project(store, "twice", sources(store), max_results=40, add_to_lake=False)
        before = store.projects.count_papers("twice")

        # published years ago, indexed only now: found by its index date, not by its publication date
        late = new_paper(901, "Active learning for systematic review screening in public health",
                         date(2019, 4, 1), indexed=today)
        server.add_papers([late])
        first = search_project(store, "twice", sources(store), max_results=40, update_id="u-0600",
                               add_to_lake=False)
        assert first.added == 1 and first.failures() == []
        assert all(s.since is not None and s.since < today for s in first.searches)  # the overlap

        later = new_paper(902, "Large language models for systematic review screening in public health",
                          date(2026, 1, 10), indexed=today)
        server.add_papers([later])
        server.reset_counts()
        second = search_project(store, "twice", sources(store), max_results=40, update_id="u-1200",
                                add_to_lake=False)
        assert server.total_requests > 0  # not answered from the first update's cache
        assert second.added == 1 and second.duplicates > 0  # the overlap's records merged, not added again
        added = {p.doi: (p.provenance or {}).get("update") for p in store.projects.list_papers("twice")}
        assert added[late.doi] == "u-0600" and added[later.doi] == "u-1200"
        assert store.projects.count_papers("twice") == before + 2
        sent = [params for route, _, params in server.requests if route == "pubmed.esearch"]
        assert sent and all(p.get("datetype") == "edat" for p in sent)
        assert all("from_created_date:" in p.get("filter", "") for route, _, p in server.requests
                   if route == "openalex" and "cursor" in p)


def test_a_record_with_a_doi_and_no_title_is_named_by_crossref(sqlite_store, monkeypatch):
    store = sqlite_store
    corpus = [new_paper(1, "Active learning for screening in public health", date(2021, 3, 1),
                        untitled_in=frozenset({"openalex"})),
              new_paper(2, "Transfer learning for screening in public health", date(2022, 5, 1))]
    with ReplayServer(corpus) as server:
        point_sources_at(monkeypatch, server, "openalex,crossref")
        project_with_queries(store, "untitled")
        summary = search_project(store, "untitled", sources(store), max_results=10, add_to_lake=False)
        titles = {p.doi: p.title for p in store.projects.list_papers("untitled")}
        assert titles[corpus[0].doi] == corpus[0].title and summary.titles_completed >= 1


def assert_boxes_equal_the_store(store, slug: str) -> dict:
    counts = prisma_counts(store, slug)
    assert counts.problems() == []
    frame = scores_dataframe(store, slug)
    assert counts.screened == store.projects.count_papers(slug) == len(frame)
    assert counts.scored == int((frame["not_scored"] == "").sum())
    assert counts.identified_total - counts.duplicates_removed - counts.unusable_removed == counts.screened
    labels = store.labels.list_labels(slug)
    assert counts.labelled_included == sum(1 for lab in labels if lab.label == "include")
    assert counts.labelled_excluded + counts.labelled_included + counts.not_yet_screened == counts.screened
    return counts.not_scored


def test_prisma_boxes_equal_the_store_after_a_snowball(sqlite_store, monkeypatch):
    store = sqlite_store
    with ReplayServer(generate_corpus(60)) as server:
        point_sources_at(monkeypatch, server, "openalex,pubmed")
        project_with_queries(store, "snow")
        search_project(store, "snow", sources(store), max_results=15, add_to_lake=False)
        backend = make_backend(None, store)
        rank_project(store, "snow")
        score_project(store, backend, "snow")
        scored = store.projects.count_papers("snow")
        openalex = sources(store).by_name("openalex")
        chased = snowball_project(store, "snow", openalex, top=3, add_to_lake=False)
        assert chased.added > 0
        not_scored = assert_boxes_equal_the_store(store, "snow")
        assert not_scored["pending"] == chased.added == store.projects.count_papers("snow") - scored
        counts = prisma_counts(store, "snow")
        assert counts.identified.get("backward", 0) + counts.identified.get("forward", 0) >= chased.added


@pytest.fixture
def stopped_project(sqlite_store, tmp_path, scripted_server):
    from agentr_dagster.llm.backends import LLMStageBackend
    from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
    from agentr_dagster.stages.intake import add_papers_file, add_project
    from agentr_dagster.stages.intent import run_intent
    from tests.support.review import QUESTION, oracle_responder, synthetic_review, write_review

    store, review = sqlite_store, synthetic_review()
    server = scripted_server(oracle_responder(set(review.loc[review.label_included == 1, "title"])))
    store.ledger.set_pricing("scripted-model", Decimal("2.50"), Decimal("10.00"))
    store.ledger.ensure_account("default")
    add_project(store, "stopped", QUESTION)
    add_papers_file(store, "stopped", write_review(review, tmp_path))
    settings = LLMSettings(base_url=server.base_url, api_key="sk-test", model="scripted-model", backoff_base_s=0.05)
    backend = LLMStageBackend(OpenAICompatibleBackend(settings, store))
    run_intent(store, backend, "stopped")
    rank_project(store, "stopped")
    return store, backend, len(review)


def test_prisma_boxes_equal_the_store_after_a_run_stopped_at_its_recall_target(stopped_project):
    from agentr_dagster.stages.scoring import ScoringPlan

    store, backend, total = stopped_project
    summary = score_project(store, backend, "stopped", concurrency=4, plan=ScoringPlan(stop_at_recall=0.8))
    assert summary.below_cutoff > 0
    not_scored = assert_boxes_equal_the_store(store, "stopped")
    assert not_scored == {"below cut-off": summary.below_cutoff, "budget": 0, "pending": 0}
    counts = prisma_counts(store, "stopped")
    assert [k for k in counts.identified] == [k for k in counts.identified if k.startswith("import:")]
    assert counts.identified_total == total and counts.scored == summary.scored


def test_prisma_boxes_equal_the_store_after_a_run_stopped_by_its_budget(stopped_project):
    from agentr_dagster.stages.scoring import ScoringPlan

    store, backend, _ = stopped_project
    summary = score_project(store, backend, "stopped", concurrency=4, plan=ScoringPlan(budget_credits=Decimal("40")))
    assert summary.stop_reason == "budget" and summary.below_cutoff > 0
    not_scored = assert_boxes_equal_the_store(store, "stopped")
    assert not_scored["budget"] == summary.below_cutoff and not_scored["below cut-off"] == 0


def test_an_openalex_that_refuses_the_created_date_is_asked_by_publication_date(sqlite_store, monkeypatch):
    store = sqlite_store
    today = datetime.now(timezone.utc).date()
    with ReplayServer(generate_corpus(40), openalex_created_needs_key=True) as server:
        point_sources_at(monkeypatch, server, "openalex")
        project_with_queries(store, "premium")
        search_project(store, "premium", sources(store), max_results=40, add_to_lake=False)
        server.add_papers([new_paper(901, "Active learning for systematic review screening in public health", today)])
        update = search_project(store, "premium", sources(store), max_results=40, update_id="u", add_to_lake=False)
        assert update.failures() == [] and update.added == 1
        filters = [p.get("filter", "") for route, _, p in server.requests if route == "openalex"]
        assert sum("from_created_date" in f for f in filters) >= 1  # asked once, refused
        assert sum("from_publication_date" in f for f in filters) >= 11  # then every query by publication date
