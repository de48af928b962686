"""A background of a search source's own records, for the offline intent while the paper lake is too small
(``MIN_BACKGROUND_RECORDS``): a term's share is the number of records the source says match it over the number of
records it holds, its document frequency in the very database the query will run on.

One source answers (the first of :data:`PREFERENCE` the project searches that reports counts), one request per
distinct term (:class:`~agentr_dagster.domain.specificity.HitCountBackground` keeps the answers and bounds their
number); any failure makes the whole background unavailable, and the intent is decomposed without one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import cast

from agentr_dagster.domain.boolean_query import Term
from agentr_dagster.domain.specificity import MIN_BACKGROUND_RECORDS, BackgroundUnavailable, HitCountBackground
from agentr_dagster.sources.contract import CountingSource, SearchSource, SourceQuery

log = logging.getLogger(__name__)

#: The sources whose counts are asked, best first: OpenAlex covers every field; Europe PMC and PubMed the life
#: sciences.
PREFERENCE = ("openalex", "europepmc", "pubmed")
#: At most this many distinct terms are asked of the source for one intent (a question asks for 1-25 of them;
#: one more makes the background unavailable rather than costly).
MAX_TERMS = 60


def counting_names(enabled: Sequence[str]) -> list[str]:
    """The enabled sources worth building for a background: those of :data:`PREFERENCE`, in its order."""
    return [name for name in PREFERENCE if name in enabled]


def counting_source(sources: Sequence[SearchSource]) -> CountingSource | None:
    """The source whose hit counts make the background: the first of :data:`PREFERENCE` among ``sources``."""
    by_name = {s.name: cast(CountingSource, s) for s in sources if getattr(s, "counts", False)}
    return next((by_name[name] for name in PREFERENCE if name in by_name), None)


def source_background(sources: Sequence[SearchSource], *, max_terms: int = MAX_TERMS,
                      min_records: int = MIN_BACKGROUND_RECORDS) -> HitCountBackground | None:
    """A background read from the hit counts of the preferred source among ``sources``; None (logged) when none of
    them reports counts, when its record count cannot be read, or when it holds fewer than ``min_records`` (the
    stage passes ``AGENTR_SOURCE_BACKGROUND_MIN_RECORDS``, a million: only a general database is a background
    of many topics; in a small or topic-pooled index a review's own subject is a large share and looks common)."""
    client = counting_source(sources)
    if client is None:
        return None
    try:
        total = client.record_count()
    except Exception as exc:  # any failure: no background, never a guess
        log.warning("%s: no record count (%s); the intent is decomposed without a background", client.name, exc)
        return None
    if total < max(min_records, MIN_BACKGROUND_RECORDS):
        log.info("%s holds %d records, too few to judge terms by: no background", client.name, total)
        return None

    def count(term: str) -> int:
        query = SourceQuery(name="background", text=term, tree=Term(term.strip().strip('"')))
        try:
            return client.count(query)
        except Exception as exc:  # a failed count fails the whole background (with_background falls back)
            raise BackgroundUnavailable(f"{client.name}: no hit count for {term!r} ({exc})") from exc

    return HitCountBackground(count, total, label=f"{client.name} hit counts ({total} records)",
                              max_requests=max_terms)
