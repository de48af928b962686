"""The pure parts of pseudo-relevance feedback in the run: when it may run, which papers it reads, what its
fingerprint depends on, and how its search is capped and summed with the run's other searches."""

from __future__ import annotations

from agentr_dagster.sources.contract import SourceQuery
from agentr_dagster.stages.pseudo_feedback import (
    FeedbackResult,
    added_text,
    feedback_fingerprint,
    found_by_feedback_alone,
    skip_reason,
)
from agentr_dagster.stages.search import PRF_QUERY_NAME, SearchCaps, SearchReport, SearchSummary

ELIGIBLE = {"enabled": True, "backend": "offline", "concepts": 2, "concept_query": True, "seeds": 0,
            "question": False}


def test_it_runs_only_for_an_abstracts_offline_concept_query_without_seeds():
    assert skip_reason(**ELIGIBLE) == ""
    assert "switched off" in skip_reason(**{**ELIGIBLE, "enabled": False})
    assert "offline" in skip_reason(**{**ELIGIBLE, "backend": "openai"})
    assert "offline" in skip_reason(**{**ELIGIBLE, "concepts": 0})
    assert "edited" in skip_reason(**{**ELIGIBLE, "concept_query": False})
    assert skip_reason(**{**ELIGIBLE, "seeds": 1}).startswith("1 seed study:")
    assert skip_reason(**{**ELIGIBLE, "seeds": 3}).startswith("3 seed studies:")
    assert "review question" in skip_reason(**{**ELIGIBLE, "question": True})


def test_a_paper_only_the_widened_search_found_is_never_a_pseudo_seed():
    assert found_by_feedback_alone([f"openalex:{PRF_QUERY_NAME}", f"pubmed:{PRF_QUERY_NAME}"])
    assert not found_by_feedback_alone([f"openalex:{PRF_QUERY_NAME}", "openalex:boolean"])
    assert not found_by_feedback_alone([])  # an imported paper has no sighting
    assert not found_by_feedback_alone(["lake:boolean"])


def test_the_fingerprint_follows_the_query_the_text_the_papers_and_the_background_not_their_order():
    base = feedback_fingerprint("a AND b", "text", ["h1", "h2"], lake=False)
    assert feedback_fingerprint("a AND b", "text", ["h2", "h1"], lake=False) == base
    assert len({base, feedback_fingerprint("a OR b", "text", ["h1", "h2"], lake=False),
                feedback_fingerprint("a AND b", "other", ["h1", "h2"], lake=False),
                feedback_fingerprint("a AND b", "text", ["h1", "h2", "h3"], lake=False),
                feedback_fingerprint("a AND b", "text", ["h1", "h2"], lake=True)}) == 5


def test_the_widened_query_is_read_as_deep_as_the_boolean_one():
    caps = SearchCaps(strings=3, boolean=50)
    assert caps.of(SourceQuery(name=PRF_QUERY_NAME, text="x")) == 50 == caps.of(SourceQuery(name="boolean", text="x"))
    assert caps.of(SourceQuery(name="string-01", text="x")) == 3


def test_the_feedback_search_adds_to_the_runs_counts():
    first = SearchSummary(["openalex", "pubmed"], [SearchReport("openalex", "boolean", "q", None, "missing", 5, 5)],
                          skipped=1, added=5, duplicates=0, new_by_source={"openalex": 5}, untitled_dropped=["10.1/a"])
    more = SearchSummary(["openalex", "pubmed"], [SearchReport("openalex", PRF_QUERY_NAME, "q2", None, "missing", 7, 3),
                                                  SearchReport("pubmed", PRF_QUERY_NAME, "q2", None, "missing", 2, 1)],
                         skipped=0, added=4, duplicates=5, new_by_source={"openalex": 3, "pubmed": 1},
                         untitled_dropped=["10.1/a", "10.1/b"])
    both = first.merged(more)
    meta = both.metadata()
    assert meta["source_searches_sent"] == 3 and meta["source_new_papers"] == 9 and meta["source_duplicates"] == 5
    assert meta["openalex_new_papers"] == 8 and meta["pubmed_new_papers"] == 1 and meta["openalex_hits"] == 12
    assert both.untitled_dropped == ["10.1/a", "10.1/b"] and both.skipped == 1


def test_the_metadata_says_why_it_did_not_run_or_what_it_added():
    skipped = FeedbackResult(reason="no queries yet")
    assert skipped.metadata() == {"prf_added_terms": "none", "prf_new_papers": 0, "prf_skipped": "no queries yet"}
    assert skipped.line() == "not run: no queries yet"
    ran = FeedbackResult(added={"exposure: hedges": ["margin*", "field margins"]}, background="lake", query="q")
    assert ran.metadata()["prf_added_terms"] == "exposure: hedges: margin*, field margins"
    assert ran.metadata()["prf_query"] == "q" and "prf_skipped" not in ran.metadata()
    assert added_text({}) == "none" and "no term added" in FeedbackResult(background="lake").line()
