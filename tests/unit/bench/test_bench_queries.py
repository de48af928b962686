"""How `agentr bench queries` picks a tuned query shape: within the issue's bars, the fewest records."""

from __future__ import annotations

from agentr_dagster.bench.queries import choose_shape


def _review(**shapes: tuple[float, float, float]) -> dict:
    return {"by_shape": {name: {"recall": r, "off_topic": off, "ratio_n": xn} for name, (r, off, xn) in
                         shapes.items()}}


def test_the_fewest_records_among_shapes_reaching_the_recall_and_within_the_other_bars():
    reviews = [_review(narrow=(0.85, 0.01, 0.5), enough=(0.91, 0.02, 0.8), wider=(0.95, 0.03, 1.2),
                       everything=(0.99, 0.12, 2.0), huge=(0.99, 0.02, 4.0))] * 3
    # "narrow" misses the recall bar, "everything" matches too many other reviews' records, "huge" too many
    # records for N: of the rest, "enough" matches the fewest
    assert choose_shape(reviews, ("narrow", "enough", "wider", "everything", "huge")) == "enough"
    # when no shape is within the bars, the best recall (then the lower off-topic rate)
    assert choose_shape(reviews, ("everything", "huge")) == "huge"


def test_seed_runs_cover_each_grid_at_the_shipped_values_of_the_others():
    from agentr_dagster.bench.queries import GROWTH_GRID, MAJORITY_SHARE_GRID, _seed_runs
    from agentr_dagster.domain.seed_check import MAJORITY_SHARE, MAX_GROWTH

    runs = _seed_runs(fresh=False)
    assert len(runs) == len(set(runs))  # the shipped bounds once, not once per grid
    assert {r[3] for r in runs} == set(MAJORITY_SHARE_GRID)
    assert {r[0] for r in runs if r[1:] == runs[0][1:]} == set(GROWTH_GRID)
    assert all(sum(v != s for v, s in zip(r, runs[0], strict=True)) <= 1 for r in runs)
    # a fresh project has no background to judge a term by: the majority share changes nothing there
    assert {r[3] for r in _seed_runs(fresh=True)} == {MAJORITY_SHARE}
    assert runs[0][0] == MAX_GROWTH


def test_a_value_run_at_one_point_of_its_grid_is_not_judged_leave_one_review_out():
    from agentr_dagster.bench.queries import MAJORITY_SHARE_GRID, leave_one_out_growth

    point = {"recall": 0.9, "off_topic": 0.01, "ratio_n": 1.0}
    fresh = [{"name": n, "seeded": {"by_majority_share": {"0.005": point}}} for n in ("a", "b", "c")]
    assert leave_one_out_growth(fresh, "by_majority_share", MAJORITY_SHARE_GRID) is None
    full = [{"name": n, "seeded": {"by_majority_share": {str(g): point for g in MAJORITY_SHARE_GRID}}}
            for n in ("a", "b", "c")]
    assert leave_one_out_growth(full, "by_majority_share", MAJORITY_SHARE_GRID)["recall"] == 0.9


def test_the_pool_matches_a_term_written_whole_as_whole_words_when_asked_as_a_source_does():
    from agentr_dagster.bench.queries import Pool

    texts = ["Tailoring software processes in small firms", "A software process audit", "Stating the obvious"]
    substring = Pool(texts, ["a", "b", "c"])
    words = Pool(texts, ["a", "b", "c"], whole_words=True)
    assert substring.term_ids("software process") == {0, 1}
    assert words.term_ids("software process") == {1}
    assert substring.term_ids("statin") == {2} and words.term_ids("statin") == frozenset()
    assert words.term_ids("process*") == {0, 1}  # a stem still opens onto its endings
