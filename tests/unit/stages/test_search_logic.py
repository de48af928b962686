"""The pure parts of the search pipeline: which searches a run sends, how hits merge with the project's papers,
a failing source failing alone, snowball seeds, the living-review decision, PRISMA rows and found_by labels."""

from __future__ import annotations

from datetime import date, datetime, timezone

from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.prisma import PrismaCounts
from agentr_dagster.sources.contract import SearchOutcome, SourceHit, SourceQuery
from agentr_dagster.stages.living import LivingView, living_decision
from agentr_dagster.stages.search import (
    SearchCaps,
    merge_hits,
    paper_found_by,
    plan_searches,
    query_hash,
    run_planned,
)
from agentr_dagster.stages.snowball import choose_seeds
from agentr_dagster.store.rows import PaperRow
from agentr_dagster.store.searches import SearchRow

QUERIES = [SourceQuery(name="boolean", text='"active learning" AND screening'),
           SourceQuery(name="string-01", text="active learning for screening")]
NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)


def row(source: str, query: SourceQuery, status: str, at: datetime = NOW, row_id: int = 1) -> SearchRow:
    return SearchRow(row_id, source, query.name, query_hash(source, query), "sent", None, status, 3, 1, 1, 3,
                     None if status == "completed" else "HTTP 500", None, None, at)


def paper(pid: int, title: str, *, doi: str | None = None, year: int | None = 2020, key: str | None = None,
          provenance: dict | None = None) -> PaperRow:
    return PaperRow(pid, 1, key or (f"doi:{doi}" if doi else f"t:{title.lower()}|{year}"), "h", title, "", year, doi,
                    [], None, None, None, provenance or {}, NOW, None)


def test_a_first_run_sends_every_search_and_a_second_run_none():
    plan = plan_searches(["openalex", "pubmed"], QUERIES, [])
    assert [(p.source, p.query.name, p.why, p.since) for p in plan] == [
        ("openalex", "boolean", "missing", None), ("openalex", "string-01", "missing", None),
        ("pubmed", "boolean", "missing", None), ("pubmed", "string-01", "missing", None)]
    done = [row(p.source, p.query, "completed", row_id=i) for i, p in enumerate(plan)]
    assert plan_searches(["openalex", "pubmed"], QUERIES, done) == []


def test_only_failed_or_missing_searches_are_sent_again():
    history = [row("openalex", QUERIES[0], "completed"), row("openalex", QUERIES[1], "failed"),
               row("pubmed", QUERIES[0], "failed"), row("pubmed", QUERIES[0], "completed", row_id=2)]
    plan = plan_searches(["openalex", "pubmed", "arxiv"], QUERIES, history)
    assert [(p.source, p.query.name, p.why) for p in plan] == [
        ("openalex", "string-01", "failed before"), ("pubmed", "string-01", "missing"),
        ("arxiv", "boolean", "missing"), ("arxiv", "string-01", "missing")]


def test_a_changed_query_text_is_a_new_search():
    history = [row("openalex", q, "completed") for q in QUERIES]
    changed = [QUERIES[0], SourceQuery(name="string-01", text="uncertainty sampling for screening")]
    assert [p.query.text for p in plan_searches(["openalex"], changed, history)] == [changed[1].text]


def test_an_update_searches_everything_since_its_last_completed_search_and_refresh_everything_in_full():
    earlier = datetime(2026, 10, 1, tzinfo=timezone.utc)
    history = [row("openalex", QUERIES[0], "completed", earlier), row("openalex", QUERIES[0], "completed", NOW, 2),
               row("openalex", QUERIES[1], "failed")]
    update = plan_searches(["openalex"], QUERIES, history, update=True)
    # the window overlaps the last one by a safety margin (records indexed late that day are found)
    assert [(p.query.name, p.since) for p in update] == [("boolean", date(2026, 11, 18)), ("string-01", None)]
    assert update[0].why == "update since 2026-11-18"
    refresh = plan_searches(["openalex"], QUERIES, history, refresh=True)
    assert [(p.query.name, p.since, p.why) for p in refresh] == [("boolean", None, "refresh"),
                                                                 ("string-01", None, "refresh")]


def rec(title: str, *, doi: str | None = None, year: int | None = 2020, fmt: str = "openalex") -> PaperRecord:
    return PaperRecord(title=title, doi=doi, year=year, source_format=fmt)


def test_hits_merge_with_the_project_papers_and_each_other():
    existing = [paper(1, "Active learning for screening", doi="10.1/a"),
                paper(2, "Ranking abstracts with language models", year=2021)]
    hits = [
        (rec("Active Learning for Screening!", doi="10.1/A"), "openalex:boolean"),  # same DOI as paper 1
        (rec("Ranking abstracts with language models", year=2021, fmt="arxiv"), "arxiv:string-01"),  # title+year
        (rec("A new screening tool", year=2024), "openalex:string-01"),
        (rec("A new screening tool", year=2024, fmt="pubmed"), "pubmed:boolean"),  # found by two sources
        (rec("A new screening tool", year=2024), "openalex:boolean"),
        (rec("Something else entirely", doi="10.9/z"), "pubmed:boolean"),
    ]
    plan = merge_hits(existing, hits)
    assert plan.keys[0] == "doi:10.1/a" and plan.keys[1] == existing[1].paper_key
    assert plan.keys[2] == plan.keys[3] == plan.keys[4]
    assert [(r.title, labels) for r, labels in plan.new] == [
        ("A new screening tool", ["openalex:string-01", "pubmed:boolean", "openalex:boolean"]),
        ("Something else entirely", ["pubmed:boolean"])]
    assert plan.duplicates == 4 and plan.new_keys == [plan.keys[2], "doi:10.9/z"]


def test_a_merged_record_takes_what_another_source_adds_but_keeps_its_key():
    bare = PaperRecord(title="A screening study of many words", source_format="openalex")
    full = PaperRecord(title="A screening study of many words", abstract="We screen.", venue="J", year=2020,
                       source_format="pubmed")
    plan = merge_hits([], [(bare, "openalex:boolean"), (full, "pubmed:boolean")])
    [(record, labels)] = plan.new
    assert (record.abstract, record.venue, record.year, record.source_format) == ("We screen.", "J", 2020, "openalex")
    assert plan.new_keys == ["t:a screening study of many words|"] and labels == ["openalex:boolean", "pubmed:boolean"]


def test_near_identical_titles_from_two_sources_are_one_paper():
    hits = [(rec("Graph neural networks for anomaly detection in genomics", year=2022), "openalex:boolean"),
            (rec("Graph neural networks for anomaly-detection in genomics.", year=2022, fmt="arxiv"), "arxiv:boolean")]
    plan = merge_hits([], hits)
    assert len(plan.new) == 1 and plan.new[0][1] == ["openalex:boolean", "arxiv:boolean"]


class ListSource:
    """A SearchSource over fixed answers; ``broken`` raises, ``down`` answers every search with a failure."""

    def __init__(self, name: str, titles: list[str], *, broken: bool = False, down: bool = False,
                 refuses: str | None = None):
        self.name, self.titles, self.broken, self.down, self.refuses = name, titles, broken, down, refuses
        self.asked: list[str] = []

    def translate(self, query: SourceQuery) -> str:
        return f"{self.name}({query.text})"

    def search(self, query: SourceQuery, *, max_results: int, since: date | None = None) -> SearchOutcome:
        self.asked.append(query.name)
        if self.broken:
            raise RuntimeError("client bug")
        if self.down:
            return SearchOutcome(source=self.name, query_name=query.name, translated=self.translate(query),
                                 requests=5, failure="HTTP 503 after 4 retries", failure_kind="source")
        if query.name == self.refuses:
            return SearchOutcome(source=self.name, query_name=query.name, translated=self.translate(query),
                                 requests=1, failure="HTTP 400: Request URL too long", failure_kind="query")
        hits = [SourceHit(record=rec(t, fmt=self.name), source=self.name, source_id=f"{self.name}-{i}",
                          query_name=query.name, rank=i) for i, t in enumerate(self.titles[:max_results], start=1)]
        return SearchOutcome(source=self.name, query_name=query.name, translated=self.translate(query), hits=hits,
                             requests=1)


def test_a_failing_source_fails_alone_and_is_not_asked_again_in_the_run():
    good, broken, down = ListSource("openalex", ["A", "B", "C"]), ListSource("arxiv", [], broken=True), \
        ListSource("pubmed", [], down=True)
    plan = plan_searches(["openalex", "arxiv", "pubmed"], QUERIES, [])
    ran = run_planned([good, broken, down], plan, SearchCaps(2))
    by = {(p.source, p.query.name): o for p, o in ran}
    assert len(by[("openalex", "boolean")].hits) == 2 and by[("openalex", "string-01")].failure is None
    assert by[("arxiv", "boolean")].failure == "RuntimeError: client bug"
    assert by[("pubmed", "boolean")].failure == "HTTP 503 after 4 retries"
    assert "not sent: pubmed failed earlier" in by[("pubmed", "string-01")].failure
    assert down.asked == ["boolean"] and good.asked == ["boolean", "string-01"]
    assert by[("arxiv", "string-01")].translated == "arxiv(active learning for screening)"


def test_a_query_the_server_refuses_fails_alone_and_the_sources_other_queries_still_run():
    source = ListSource("openalex", ["A", "B"], refuses="boolean")
    ran = run_planned([source], plan_searches(["openalex"], QUERIES, []), SearchCaps(5))
    by = {p.query.name: o for p, o in ran}
    assert by["boolean"].failure == "HTTP 400: Request URL too long" and by["boolean"].failure_kind == "query"
    assert by["string-01"].failure is None and len(by["string-01"].hits) == 2
    assert source.asked == ["boolean", "string-01"]


def test_the_boolean_query_is_read_deeper_than_the_search_strings():
    source = ListSource("openalex", [f"T{i}" for i in range(10)])
    ran = run_planned([source], plan_searches(["openalex"], QUERIES, []), SearchCaps(strings=3, boolean=8))
    assert {p.query.name: len(o.hits) for p, o in ran} == {"boolean": 8, "string-01": 3}
    # a Boolean cap below the strings' never makes the sensitive search shallower
    ran = run_planned([source], plan_searches(["openalex"], QUERIES, []), SearchCaps(strings=4, boolean=2))
    assert {p.query.name: len(o.hits) for p, o in ran} == {"boolean": 4, "string-01": 4}


def test_seeds_are_the_included_papers_then_the_best_ranked_not_excluded():
    papers = [paper(i, f"P{i}", doi=f"10.1/{i}" if i != 4 else None) for i in range(1, 7)]
    papers[4] = paper(5, "P5", provenance={"format": "openalex"})
    papers[4] = PaperRow(**{**papers[4].__dict__, "source_id": "https://openalex.org/W55"})
    seeds = choose_seeds(papers, included=[6], excluded={2}, ranked=[2, 3, 4, 5, 1], top=3,
                         sighted_ids={3: "W33"})
    assert [(s.paper_id, s.why, s.work_id) for s in seeds] == [(6, "included", "doi:10.1/6"), (3, "rank 2", "W33"),
                                                                (4, "rank 3", None)]
    assert [s.paper_id for s in choose_seeds(papers, [6, 1], set(), [5], top=1, sighted_ids={})] == [6, 1]


def test_the_living_review_updates_active_searched_idle_projects():
    view = LivingView("p", active=True, has_queries=True, last_search=date(2026, 11, 20), in_flight=False)
    assert living_decision(view) == (True, "update: search since 2026-11-20")
    never = LivingView("p", True, True, None, False)
    assert living_decision(never) == (True, "update: search in full (never searched)")
    for change, why in [({"active": False}, "deleted"), ({"has_queries": False}, "no search queries"),
                        ({"in_flight": True}, "queued or running")]:
        go, reason = living_decision(LivingView(**{**view.__dict__, **change}))
        assert not go and why in reason


def test_prisma_rows_carry_every_box_and_the_boxes_add_up():
    counts = PrismaCounts(identified={"openalex": 30, "pubmed": 12, "import:refs.ris": 8}, duplicates_by_importer=2,
                          duplicates_across_sources=9, unusable_removed=1, screened=38, scored=30,
                          not_scored={"below cut-off": 5, "budget": 0, "pending": 3},
                          labelled_included=2, labelled_excluded=1)
    rows = {r["box"]: r["count"] for r in counts.rows()}
    assert rows["records identified: openalex"] == 30 and rows["records identified: total"] == 50
    assert rows["records identified: import:refs.ris"] == 8
    assert rows["duplicates removed"] == 11 and rows["duplicates removed: by the importer"] == 2
    assert rows["records removed: unusable"] == 1 and rows["records screened"] == 38
    assert rows["records excluded (labelled)"] == 1 and rows["studies included (labelled)"] == 2
    assert rows["records not yet screened"] == 35
    assert rows["records scored"] == 30 and rows["records not scored"] == 8 and rows["not scored: pending"] == 3
    assert not any("threshold" in box for box in rows)  # PRISMA's "included" is what a person included
    assert counts.problems() == []
    # "scored" counted as every row (the old bug): the check says so
    wrong = counts.model_copy(update={"scored": 38})
    assert wrong.problems() == ["scored 38 + not scored 8 != screened 38"]
    # the importer's unusable rows left out of the removals: identification no longer adds up
    assert counts.model_copy(update={"unusable_removed": 0}).problems() == [
        "identified 50 - duplicates 11 - unusable 0 != screened 38"]
    assert counts.model_copy(update={"labelled_excluded": 37}).problems() == ["labelled 39 > screened 38"]


def test_a_lake_echo_is_not_another_identification():
    from agentr_dagster.stages.prisma import paper_origins

    assert paper_origins({"source": "lake"}, {"openalex", "lake"}) == {"openalex"}
    assert paper_origins({"source": "lake"}, {"lake"}) == {"lake"}
    assert paper_origins({"file": "refs.ris", "format": "ris"}, {"lake", "pubmed"}) == {"import:refs.ris", "pubmed"}


def test_found_by_names_every_way_a_paper_arrived():
    assert paper_found_by({"file": "scopus.ris", "format": "ris"}, ["openalex:boolean"]) == [
        "import:scopus.ris", "openalex:boolean"]
    assert paper_found_by({"source": "lake", "found_by": ["boolean", "string-02"]}, ["lake:boolean"]) == [
        "lake:boolean", "lake:string-02"]
    assert paper_found_by({"source": "search", "found_by": ["pubmed:boolean"]}, ["pubmed:boolean", "backward:3"]) \
        == ["pubmed:boolean", "backward:3"]
