"""The project's seed studies are evidence for the relevance ranking (issue 33): a seed among the candidates is a
labelled include unless the person labelled that paper, a seed outside them trains the learner and is never
ranked, and the fingerprint covers the seeds (adding one re-ranks)."""

from __future__ import annotations

import pandas as pd

from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.relevance import current_relevance, rank_project
from agentr_dagster.stages.seeds import save_seeds

SLUG = "seeded"
# The question fits the allotment studies and the school meal studies alike; only the seeds say which are wanted.
QUESTION = "What do households and children in cities eat? Studies of diet and food intake in urban settings."
TOPICS = {
    "garden": ("Allotment gardening and household vegetable intake, cohort {i}",
               "Urban households tending allotment plots grew their own produce; vegetable servings were recorded "
               "over {i} growing seasons of garden plot use."),
    "meals": ("School lunch menus and pupils' food intake, survey {i}",
              "Canteen menus of {i} city schools were audited; pupils' lunch intake of fried food and sweetened "
              "drinks was weighed at the canteen."),
    "bridge": ("Fatigue cracks in steel railway bridges, case {i}",
               "Strain gauges on riveted girders measured stress cycles over {i} years; cracks grew at welded joints "
               "under freight loads."),
}
OUTSIDE_SEED = ("Canteen lunches and sweetened drinks among city pupils",
                "Weighed school lunch intake of pupils in urban school canteens: fried food and sweetened drinks "
                "on the menu.")


def _project(store, tmp_path) -> dict[str, list[int]]:
    add_project(store, SLUG, QUESTION)
    rows = [{"title": t.format(i=i), "abstract": a.format(i=i), "year": 1990 + i, "doi": f"10.1000/{name}.{i}"}
            for i in range(8) for name, (t, a) in TOPICS.items()]
    csv = tmp_path / "papers.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    add_papers_file(store, SLUG, csv)
    papers = store.projects.list_papers(SLUG)
    return {name: [p.id for p in papers if (p.doi or "").startswith(f"10.1000/{name}.")] for name in TOPICS}


def _seeds(store, tmp_path, rows: list[dict[str, str]]) -> None:
    path = tmp_path / "seeds.csv"
    pd.DataFrame(rows, columns=["title", "abstract", "doi"]).to_csv(path, index=False)
    save_seeds(store, SLUG, path)


def _order(store) -> list[int]:
    stored = current_relevance(store, SLUG)
    return sorted(stored, key=lambda pid: stored[pid].rank)


def _mean_rank(store, ids: list[int]) -> float:
    stored = current_relevance(store, SLUG)
    return sum(stored[pid].rank for pid in ids) / len(ids)


def test_an_outside_seed_changes_the_order_and_is_never_ranked(sqlite_store, tmp_path):
    ids = _project(sqlite_store, tmp_path)
    zero = rank_project(sqlite_store, SLUG)
    assert zero.method == "zero-shot" and zero.seeds_used == 0
    meals_before = _mean_rank(sqlite_store, ids["meals"])
    order_before = _order(sqlite_store)

    _seeds(sqlite_store, tmp_path, [{"title": OUTSIDE_SEED[0], "abstract": OUTSIDE_SEED[1], "doi": ""}])
    seeded = rank_project(sqlite_store, SLUG)
    assert not seeded.reused and seeded.input_hash != zero.input_hash  # the seed changed the fingerprint
    assert seeded.method == "active"
    assert (seeded.seeds_used, seeded.seeds_matched, seeded.seeds_outside) == (1, 0, 1)
    # the question orders these clusters confidently (the learner keeps trusting it): the seed re-orders within them
    assert _order(sqlite_store) != order_before
    assert _mean_rank(sqlite_store, ids["meals"]) <= meals_before
    # the seed is no candidate: the stored ranking holds the project's papers, ranked 1..n, and nothing labelled
    stored = current_relevance(sqlite_store, SLUG)
    assert set(stored) == {pid for group in ids.values() for pid in group}
    assert sorted(r.rank for r in stored.values()) == list(range(1, len(stored) + 1))
    assert seeded.labels == [""] * len(stored) and seeded.estimate is not None and seeded.estimate.found == 0
    # the export lists the project's papers in the seeded order, the seed nowhere, and says the ranking learnt
    from agentr_dagster.stages.exports import scores_dataframe

    frame = scores_dataframe(sqlite_store, SLUG)
    assert sorted(frame["paper_id"]) == sorted(stored) and OUTSIDE_SEED[0] not in set(frame["title"])
    assert list(frame["paper_id"]) == sorted(stored, key=lambda pid: stored[pid].rank)
    assert not frame["relevance_low_info"].any()
    # unchanged inputs: reused, the seeds still reported
    again = rank_project(sqlite_store, SLUG)
    assert again.reused and again.input_hash == seeded.input_hash and again.seeds_outside == 1


def test_a_seed_among_the_candidates_is_a_labelled_include_unless_the_person_says_otherwise(sqlite_store, tmp_path):
    ids = _project(sqlite_store, tmp_path)
    by_doi, by_title = ids["garden"][3], ids["meals"][5]
    papers = {p.id: p for p in sqlite_store.projects.list_papers(SLUG)}
    _seeds(sqlite_store, tmp_path, [
        {"title": "", "abstract": "", "doi": f"https://doi.org/{papers[by_doi].doi.upper()}"},  # the DOI, as given
        {"title": papers[by_title].title.upper() + ".", "abstract": "", "doi": ""},  # the title, normalised
    ])
    outcome = rank_project(sqlite_store, SLUG)
    assert (outcome.seeds_used, outcome.seeds_matched, outcome.seeds_outside) == (2, 2, 0)
    assert outcome.method == "active" and outcome.includes_used == 0  # no person's label yet
    stored = current_relevance(sqlite_store, SLUG)
    assert {stored[by_doi].rank, stored[by_title].rank} == {1, 2}  # labelled includes lead
    assert outcome.labels[:2] == ["include", "include"]
    assert set(outcome.labelled["paper_id"]) == {by_doi, by_title}
    from agentr_dagster.stages.feedback import rerank  # `agentr rerank` learns from the same evidence

    assert list(rerank(sqlite_store, SLUG)["paper_id"]) == sorted(stored, key=lambda pid: stored[pid].rank)

    sqlite_store.labels.set_label(SLUG, by_title, "exclude")  # the person's label wins over the seed
    overruled = rank_project(sqlite_store, SLUG)
    assert not overruled.reused
    assert (overruled.seeds_used, overruled.seeds_matched) == (1, 2)
    stored = current_relevance(sqlite_store, SLUG)
    assert stored[by_doi].rank == 1 and stored[by_title].rank == len(stored)
    assert overruled.labels[0] == "include" and overruled.labels[-1] == "exclude"


def test_adding_a_seed_changes_the_fingerprint(sqlite_store, tmp_path):
    from agentr_dagster.stages.relevance import ranking_is_current

    _project(sqlite_store, tmp_path)
    _seeds(sqlite_store, tmp_path, [{"title": OUTSIDE_SEED[0], "abstract": OUTSIDE_SEED[1], "doi": ""}])
    first = rank_project(sqlite_store, SLUG)
    assert ranking_is_current(sqlite_store, SLUG)
    _seeds(sqlite_store, tmp_path, [{"title": OUTSIDE_SEED[0], "abstract": OUTSIDE_SEED[1], "doi": ""},
                                    {"title": "", "abstract": "", "doi": "10.1000/garden.0"}])
    assert not ranking_is_current(sqlite_store, SLUG)  # the stored ranking is stale: a seed was added
    second = rank_project(sqlite_store, SLUG)
    assert not second.reused and second.input_hash != first.input_hash
    assert (second.seeds_matched, second.seeds_outside) == (1, 1)
    assert ranking_is_current(sqlite_store, SLUG)


def test_the_scoring_queue_learns_from_the_seeds_too(sqlite_store, tmp_path):
    from agentr_dagster.stages.relevance import RelevanceQueue, person_labels, relevance_question, seed_evidence

    ids = _project(sqlite_store, tmp_path)
    rank_project(sqlite_store, SLUG)  # zero-shot: the queue starts from this order
    _seeds(sqlite_store, tmp_path, [{"title": OUTSIDE_SEED[0], "abstract": OUTSIDE_SEED[1], "doi": ""},
                                    {"title": "", "abstract": "", "doi": "10.1000/meals.2"}])
    papers = sqlite_store.projects.list_papers(SLUG)
    queue = RelevanceQueue(relevance_question(sqlite_store, SLUG), papers, person_labels(sqlite_store, SLUG),
                           current_relevance(sqlite_store, SLUG), seeds=seed_evidence(sqlite_store, SLUG, papers))
    before = queue.order()
    queue.rerank({})  # no judgement yet: the seeds alone re-rank
    after = queue.order()
    assert queue.reranked and sorted(after) == sorted(p.id for p in papers)  # the outside seed is no paper
    assert queue.training == {ids["meals"][2]: (1, 1.0)}  # the seed-matched paper, as a person's include
    assert after != before
