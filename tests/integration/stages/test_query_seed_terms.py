"""The offline queries stage improved by the project's seed studies (the objective approach): the seeds'
characteristic terms, weighed against the project's candidate papers, are added to the concept blocks, so the
stored query finds the seeds the question-only query missed without matching many more candidates."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.seed_check import MAX_GROWTH, SeedStudy
from agentr_dagster.domain.text import tokenize
from agentr_dagster.imports import content_hash, paper_key
from agentr_dagster.llm.backends import make_backend
from agentr_dagster.stages.intake import add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import current_queries, run_queries
from agentr_dagster.stages.seeds import SEED_TERMS_STAGE

QUESTION = (
    "Is insufficient sleep associated with depression in adolescents? Include cohort and cross-sectional studies "
    "of adolescents. Exclude studies of shift workers."
)
# relevant studies in the words of their authors: insomnia and low mood, never "sleep" or "depression"
SEEDS = [
    ("Insomnia and low mood in teenagers: a cohort study",
     "Teenagers with insomnia reported low mood more often one year later."),
    ("Insomnia symptoms predict low mood in adolescents",
     "In a school cohort of adolescents, insomnia symptoms at baseline predicted low mood at follow-up."),
    ("Bedtime routines, insomnia and low mood among teenagers",
     "A cross-sectional survey of teenagers on bedtime routines, insomnia and low mood."),
]
OTHERS = [
    *[(f"Sleep duration and school performance of adolescents, wave {i}",
       "Short sleep in adolescents was linked to lower grades.") for i in range(5)],
    *[(f"Depression screening in primary care, site {i}",
       "Screening for depression in adults attending primary care.") for i in range(5)],
    ("Insomnia in older adults treated with melatonin", "A trial of melatonin for insomnia in care homes."),
    ("Low mood after stroke in older adults", "Low mood was common six months after stroke."),
    *[(f"Blood pressure control in hypertension, cohort {i}",
       "Antihypertensive treatment and cardiovascular outcomes in adults.") for i in range(8)],
]


def _matched(query: str, papers) -> int:
    tree = parse_boolean_query(query)
    return sum(matches(tree, SeedStudy(p.title, p.abstract or "").text) for p in papers)


def test_seed_studies_widen_the_stored_offline_query_within_the_growth_bound(store):
    slug = "seed-terms"
    add_project(store, slug, QUESTION)
    store.projects.add_papers(slug, [PaperRecord(title=t, abstract=a) for t, a in SEEDS + OTHERS],
                              key_fn=paper_key, hash_fn=content_hash, provenance={"format": "test"})
    backend = make_backend(None, store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    question_only = current_queries(store, slug).boolean_query
    papers = store.projects.list_papers(slug)
    seeds = [p for p in papers if p.title in {t for t, _ in SEEDS}]
    assert _matched(question_only, seeds) == 0  # the question's words miss every seed
    assert store.results.latest_artifact(slug, SEED_TERMS_STAGE) is None  # no seeds, no mining

    for paper in seeds:  # labelled includes are the project's seed studies
        store.labels.set_label(slug, paper.id, "include")
    outcome = run_queries(store, backend, slug)
    assert not outcome.reused  # new seeds make the stage run again
    improved = current_queries(store, slug).boolean_query
    assert _matched(improved, seeds) == len(seeds)
    # what was added comes from the seeds' own words, and the query matches at most MAX_GROWTH times as many
    # candidates as the question-only query did
    report = store.results.latest_artifact(slug, SEED_TERMS_STAGE).payload
    added = [t for terms in report["added_terms"].values() for t in terms]
    seed_words = {w.casefold() for p in seeds for w in tokenize(f"{p.title} {p.abstract}")}
    assert added and all(any(w.startswith(t.rstrip("*").split()[0]) for w in seed_words) for t in added)
    assert report["seed_recall_before"] == 0.0 and report["seed_recall_after"] == 1.0
    assert report["pool"] == "candidates" and report["pool_size"] == len(papers)
    before, after = _matched(question_only, papers), _matched(improved, papers)
    assert (report["pool_matched_before"], report["pool_matched_after"]) == (before, after)
    assert before < after <= MAX_GROWTH * before

    assert run_queries(store, backend, slug).reused  # same intent and seeds: the stored query is kept


def test_a_block_the_seeds_lack_is_left_out_of_the_stored_query_when_the_lake_allows(store, monkeypatch):
    from agentr_dagster.domain import specificity
    from agentr_dagster.lake import add_records
    from agentr_dagster.lake.files import lake_dir

    slug = "seed-relax"
    add_project(store, slug, QUESTION)
    # studies of insomnia and depression that name neither sleep nor adolescents in the query's words
    seeds = [("Insomnia and depression in pupils", "Pupils with insomnia reported depression."),
             ("Insomnia symptoms and depressive symptoms at school age", "Depression rose with insomnia."),
             ("Bedtime, insomnia and depression among pupils", "A survey of pupils on insomnia and depression.")]
    store.projects.add_papers(slug, [PaperRecord(title=t, abstract=a) for t, a in seeds + OTHERS],
                              key_fn=paper_key, hash_fn=content_hash, provenance={"format": "test"})
    # a lake of other topics, where the relaxed query reaches almost nothing
    add_records([{"title": f"Blood pressure in hypertension, cohort {i}", "abstract": "Antihypertensive drugs."}
                 for i in range(60)], root=lake_dir())
    monkeypatch.setattr(specificity, "MIN_BACKGROUND_RECORDS", 50)
    backend = make_backend(None, store)
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    question_only = current_queries(store, slug).boolean_query
    papers = store.projects.list_papers(slug)
    seed_papers = [p for p in papers if p.title in {t for t, _ in seeds}]
    assert "adolesc" in question_only and _matched(question_only, seed_papers) == 0, question_only
    for paper in seed_papers:
        store.labels.set_label(slug, paper.id, "include")
    run_queries(store, backend, slug)
    improved = current_queries(store, slug).boolean_query
    report = store.results.latest_artifact(slug, SEED_TERMS_STAGE).payload
    assert [b for b in report["relaxed_blocks"] if "adolescen" in b]  # left out, not repaired seed by seed
    assert "adolesc" not in improved and _matched(improved, seed_papers) == len(seed_papers)
