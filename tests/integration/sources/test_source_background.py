"""The search sources' hit counts as the offline intent's background, against the replay server over loopback
(real HTTP, the clients unpatched): a term common in the served records is judged common, a rare one rare, and a
source that fails gives no background at all (the intent decomposed as without one)."""

from __future__ import annotations

from datetime import date

import pytest

from agentr_dagster.domain.specificity import GENERIC_SHARE
from agentr_dagster.llm.backends import NO_BACKGROUND, OfflineStageBackend
from agentr_dagster.llm.gateway import CallContext
from agentr_dagster.sources.background import source_background
from agentr_dagster.sources.cache import ResponseCache
from agentr_dagster.sources.registry import SEARCH_SOURCES
from agentr_dagster.testing.replay_server import Fault, ReplayPaper

N = 1200  # above MIN_BACKGROUND_RECORDS: enough records to judge by
TOPICS = ["soil microbes under drought", "grazing pressure on alpine meadows", "pollinator visits to orchards",
          "seed dispersal by birds", "nitrogen runoff from farmland", "coral bleaching after heatwaves"]
QUESTION = ("What is the effect of hedgerow planting on pollinator abundance in orchards? We included field "
            "studies that counted bees before and after hedgerows were planted.")


def corpus() -> list[ReplayPaper]:
    """Invented records: half of them about orchards, 6 along hedgerows."""
    papers = []
    for i in range(N):
        topic = "pollinator visits to orchards" if i % 3 == 0 else TOPICS[i % len(TOPICS)]
        hedge = " along planted hedgerows" if i % 200 == 0 else ""
        papers.append(ReplayPaper(
            number=i + 1, title=f"Field study {i} of {topic}{hedge}",
            abstract=f"We measured {topic} at site {i}; results are compared between years.",
            published=date(2010 + i % 12, 1 + i % 12, 1), doi=f"10.5555/bg.{i}", authors=("Ada Lovelace",),
            venue="Journal of Invented Ecology"))
    return papers


def client(name, server, **kwargs):
    kwargs = {"request_interval": 0.0, "backoff_base": 0.01, "max_retries": 1, **kwargs}
    return SEARCH_SOURCES[name](server.base_url(name), cache=ResponseCache(), **kwargs)


@pytest.fixture(scope="module")
def papers() -> list[ReplayPaper]:
    return corpus()


@pytest.mark.parametrize("name", ["openalex", "europepmc", "pubmed"])
def test_a_term_common_in_the_served_records_is_judged_common(name, papers, replay_servers):
    server = replay_servers(papers)
    source = client(name, server)
    assert source.record_count() == N  # the source's own count of every record it holds
    background = source_background([source])
    assert background is not None and background.label == f"{name} hit counts ({N} records)"
    assert background("orchards") == pytest.approx(0.5)  # read from the server's count
    assert background('"alpine meadows"') == pytest.approx(sum("alpine meadows" in p.title for p in papers) / N)
    assert background("hedgerow*") == pytest.approx(6 / N)  # truncation as each dialect sends it
    assert background("hedgerow*") < GENERIC_SHARE <= background("orchards")
    sent = server.total_requests
    assert background("Orchards") == pytest.approx(0.5) and server.total_requests == sent  # asked once


def test_openalex_is_preferred_and_pubmed_answers_when_it_is_the_only_one(papers, replay_servers):
    server = replay_servers(papers)
    both = [client("pubmed", server), client("openalex", server)]
    background = source_background(both)
    assert background is not None and background.label.startswith("openalex ")
    only = source_background([client("pubmed", server), client("arxiv", server)])
    assert only is not None and only.label.startswith("pubmed ")


def test_the_intent_records_the_sources_background_and_falls_back_whole_on_an_error(papers, replay_servers):
    server = replay_servers(papers)
    backend = OfflineStageBackend()
    ctx = CallContext(slug="p", stage="intent", run_id=None)
    without = backend.decompose_intent(QUESTION, ctx)
    assert without.background == NO_BACKGROUND  # no lake, no sources: general English alone

    counted = backend.decompose_intent(QUESTION, ctx, lambda: source_background([client("openalex", server)]))
    assert counted.background == f"openalex hit counts ({N} records)"
    assert server.counts["openalex"] >= 2  # the record count and at least one term's count

    # the record count answers, then every count is an error document: no background for the whole decision
    server.reset_counts()
    server.faults("openalex", None, then=Fault("error_body"))
    failed = backend.decompose_intent(QUESTION, ctx, lambda: source_background([client("openalex", server)]))
    assert failed.background == f"{NO_BACKGROUND} (openalex hit counts ({N} records) failed)"
    assert failed.model_dump(exclude={"background"}) == without.model_dump(exclude={"background"})

    # a source that cannot say how many records it holds: no background, nothing else asked
    server.reset_counts()
    server.faults("openalex", then=Fault("status", 500))
    down = backend.decompose_intent(QUESTION, ctx, lambda: source_background([client("openalex", server)]))
    assert down.background == NO_BACKGROUND
    assert down.model_dump(exclude={"background"}) == without.model_dump(exclude={"background"})
    assert server.counts["openalex"] == 2  # the record count, tried and retried once


def test_the_replay_counts_every_pubmed_citation_with_the_all_subset():
    from agentr_dagster.testing.dialects import DialectError, evaluate, parse

    assert evaluate(parse("pubmed", "all[sb]"), "any title", "") is True
    assert evaluate(parse("pubmed", "all[sb] NOT orchards[tiab]"), "orchards in spring", "") is False
    with pytest.raises(DialectError):
        parse("pubmed", "nonesuch[sb]")  # a subset the replay does not know is refused, not matched
