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
