"""How far a learned order moved from the zero-shot order, on the unlabelled records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agentr_dagster.screening.active import ActiveRanker
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.presets import get_preset
from agentr_dagster.screening.screen import screen, zero_shot_inputs
from agentr_dagster.screening.versus import (
    CAUTION_INCLUDES,
    VersusZeroShot,
    compare_with_zero_shot,
    spearman,
    top_size,
)


def test_top_size_is_a_fifth_capped_at_200_and_at_least_10():
    assert top_size(1692) == 200 and top_size(500) == 100 and top_size(30) == 10 and top_size(6) == 6
    assert top_size(0) == 0


def test_identical_orders_overlap_fully_and_reversed_ones_not_at_all():
    zero = np.linspace(1.0, 0.0, 60)
    labels = np.full(60, -1)
    labels[[0, 59]] = [1, 0]  # two labelled records, left out of the comparison
    same = compare_with_zero_shot(zero * 3 + 1, zero, labels)  # any increasing transform: the same order
    assert (same.unlabelled, same.top_k, same.overlap) == (58, 12, 12)
    assert same.spearman == pytest.approx(1.0) and same.overlap_share == 1.0
    assert (same.labels, same.includes, same.prior_weight) == (2, 1, None)
    reversed_ = compare_with_zero_shot(-zero, zero, labels, prior_weight=0.5)
    assert reversed_.overlap == 0 and reversed_.spearman == pytest.approx(-1.0)
    assert reversed_.prior_weight == 0.5


def test_only_unlabelled_records_are_compared():
    zero = np.arange(40, dtype=float)[::-1]  # record 0 best
    learned = zero.copy()
    learned[:5] = -100.0  # the labelled records moved to the bottom: not a change of the unlabelled order
    labels = np.full(40, -1)
    labels[:5] = 1
    out = compare_with_zero_shot(learned, zero, labels)
    assert out.unlabelled == 35 and out.overlap == out.top_k == 10 and out.spearman == pytest.approx(1.0)


def test_spearman_uses_ranks_and_is_none_without_variation():
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 200.0, 3000.0])) == pytest.approx(1.0)
    assert spearman(np.ones(5), np.arange(5.0)) is None and spearman(np.ones(1), np.ones(1)) is None


def test_the_sentence_says_what_moved_and_cautions_on_little_evidence():
    calm = VersusZeroShot(labels=12, includes=3, unlabelled=1692, top_k=200, overlap=151, spearman=0.81,
                          prior_weight=0.8)
    assert not calm.caution
    assert calm.sentence == ("after 12 labels (3 includes) the re-rank keeps 151 of the zero-shot top 200 of the "
                             "1,692 unlabelled papers (76%); rank correlation with the zero-shot order 0.81; "
                             "prior weight 0.80 (the classifier's 1)")
    far = VersusZeroShot(labels=10, includes=CAUTION_INCLUDES - 1, unlabelled=1694, top_k=200, overlap=80,
                         spearman=0.4, prior_weight=2.0)
    assert far.caution and "Caution: on only 4 includes the learner has moved far" in far.sentence
    # far but on enough includes: the labels may know better, no caution
    assert not VersusZeroShot(**{**far.as_dict(), "includes": CAUTION_INCLUDES}).caution
    assert VersusZeroShot.from_dict({**far.as_dict(), "extra": 1}) == far  # as stored and read back


def test_under_llm_top_the_sentence_names_the_engines_order_before_the_llm():
    moved = VersusZeroShot(labels=6, includes=2, unlabelled=340, top_k=68, overlap=30, spearman=0.35,
                           prior_weight=1.5)
    assert moved.describe() == moved.sentence
    assert moved.describe(llm_top=25) == (
        "after 6 labels (2 includes) the engine's re-rank (before the LLM re-ordered its top 25) keeps 30 of the "
        "zero-shot top 68 of the 340 unlabelled papers (44%); rank correlation with the zero-shot order 0.35; "
        "prior weight 1.50 (the classifier's 1). Caution: on only 2 includes the learner has moved far from the "
        "question's order; label a few more papers before trusting the new order")


def _texts():
    rng = np.random.default_rng(0)
    on = ["sleep apnea", "airway pressure", "snoring adults", "oxygen desaturation"]
    off = ["wheat yield", "coral reefs", "tern migration", "glacier retreat"]
    titles, abstracts, truth = [], [], []
    for i in range(80):
        topic = on if i % 4 == 0 else off
        words = list(rng.choice(topic, 3))
        titles.append(f"{words[0]} study {i}")
        abstracts.append(f"We report {' and '.join(words)} in cohort {i}.")
        truth.append(int(topic is on))
    return titles, abstracts, np.array(truth)


def test_the_ranker_keeps_the_weight_it_gave_the_prior(fake_embedder):
    titles, abstracts, truth = _texts()
    feats = build_features(titles, abstracts, fake_embedder)
    prior = np.linspace(1.0, 0.0, len(titles))
    ranker = ActiveRanker(feats, prior)
    assert ranker.last_prior_weight is None
    labeled = np.array([0, 1, 2, 4])
    scores = ranker.scores(labeled, truth[labeled])
    w = ranker.last_prior_weight
    assert w is not None and 0 <= w <= ranker.cfg.prior_weight
    margin = scores - w * ranker.prior  # what is left is the z-scored classifier margin
    assert margin.std() == pytest.approx(1.0) and margin.mean() == pytest.approx(0.0, abs=1e-9)
    # includes only: the pseudo-excludes stand in for excludes, the prior keeps its decayed, trusted weight
    ranker.scores(np.array([0]), np.array([1]))
    assert ranker.last_prior_weight is not None and 0 < ranker.last_prior_weight <= ranker.cfg.prior_weight
    ranker.scores(np.array([1]), np.array([0]))  # excludes only: the prior alone
    assert ranker.last_prior_weight is None


def test_screen_reports_the_comparison_only_when_it_learns(fake_embedder):
    titles, abstracts, truth = _texts()
    papers = pd.DataFrame({"record_id": [f"r{i}" for i in range(len(titles))], "title": titles,
                           "abstract": abstracts})
    question = "Continuous positive airway pressure for obstructive sleep apnea in adults"
    assert "versus_zero_shot" not in screen(question, papers, dedupe=False).attrs
    labels = {f"r{i}": int(truth[i]) for i in range(8)}
    out = screen(question, papers, labels, dedupe=False)
    versus = out.attrs["versus_zero_shot"]
    # the same comparison from the zero-shot scores and the learner, built here apart
    feats, zero = zero_shot_inputs(get_preset("default"), question, titles, abstracts, fake_embedder)
    lab = np.full(len(titles), -1)
    lab[:8] = truth[:8]
    learner = ActiveRanker(feats, zero)
    learned = learner.scores(np.arange(8), truth[:8])
    assert versus == compare_with_zero_shot(learned, zero, lab, learner.last_prior_weight)
    assert (versus.labels, versus.includes, versus.unlabelled, versus.top_k) == (8, int(truth[:8].sum()), 72, 14)


def test_agentr_screen_with_labels_prints_the_sentence(tmp_path, fake_embedder):
    from click.testing import CliRunner

    from agentr_dagster.cli.screen import screen_command

    titles, abstracts, truth = _texts()
    pd.DataFrame({"record_id": [f"r{i}" for i in range(len(titles))], "title": titles,
                  "abstract": abstracts}).to_csv(tmp_path / "papers.csv", index=False)
    (tmp_path / "q.txt").write_text("Airway pressure for sleep apnea in adults", encoding="utf-8")
    pd.DataFrame({"record_id": [f"r{i}" for i in range(8)], "label": truth[:8]}).to_csv(tmp_path / "labels.csv",
                                                                                        index=False)
    args = ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "papers.csv"), "--out",
            str(tmp_path / "out.csv")]
    plain = CliRunner().invoke(screen_command, args)
    assert plain.exit_code == 0 and "the re-rank keeps" not in plain.output  # nothing learnt, nothing to compare
    learnt = CliRunner().invoke(screen_command, [*args, "--labels", str(tmp_path / "labels.csv")])
    assert learnt.exit_code == 0, learnt.output
    assert f"after 8 labels ({int(truth[:8].sum())} includes) the re-rank keeps" in learnt.output
