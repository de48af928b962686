"""Named presets compose a ranker and a learner; the default one is the ranking every command runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agentr_dagster.screening.active import ActiveRanker
from agentr_dagster.screening.features import build_features
from agentr_dagster.screening.presets import DEFAULT, PRESETS, Preset, get_preset
from agentr_dagster.screening.rankers import zero_shot_scores
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.screening.screen import screen
from agentr_dagster.testing.screening import HashEmbedder, synthetic_review

QUESTION = "ACE inhibitors such as enalapril for patients with hypertension (blood pressure treatment)"


def _papers(n=120, n_inc=12):
    titles, abstracts, y = synthetic_review(n=n, n_inc=n_inc, seed=3)
    return pd.DataFrame({"record_id": [f"r{i}" for i in range(n)], "title": titles, "abstract": abstracts}), y


def test_presets_by_name_and_unknown_names():
    assert set(PRESETS) == {"default", "lexical", "classic"}
    assert get_preset("default") is DEFAULT and get_preset(DEFAULT) is DEFAULT
    with pytest.raises(ValueError, match="known: default"):
        get_preset("nope")


def test_default_preset_is_the_zero_shot_ranker_then_the_active_ranker():
    papers, y = _papers()
    emb, transformer = HashEmbedder(), HashEmbedder()  # a stand-in second-stage encoder too
    feats = build_features(papers["title"], papers["abstract"], emb, transformer)
    expected = [f"r{i}" for i in order_from_scores(zero_shot_scores(QUESTION, feats))]
    assert screen(QUESTION, papers, embedder=emb, transformer=transformer)["record_id"].tolist() == expected
    static_only = build_features(papers["title"], papers["abstract"], emb)
    assert expected != [f"r{i}" for i in order_from_scores(zero_shot_scores(QUESTION, static_only))]
    labels = {"r0": int(y[0]), "r1": int(y[1]), **{f"r{i}": 1 for i in np.flatnonzero(y)[:2]}}
    out = screen(QUESTION, papers, labels, embedder=emb, transformer=transformer, preset="default")
    assert out["method"].iloc[0] == "active"
    assert isinstance(DEFAULT.learner(feats, zero_shot_scores(QUESTION, feats)), ActiveRanker)


def test_the_classic_preset_keeps_asreviews_fixed_c_while_the_default_picks_it():
    feats = build_features(["a b", "c d", "e f"], ["", "", ""], HashEmbedder())
    prior = np.zeros(3)
    classic, default = PRESETS["classic"].learner(feats, prior), DEFAULT.learner(feats, prior)
    assert (classic.cfg.C, classic.cfg.C_pick_every, classic.cfg.prior_weight) == (0.11, 0, 0.0)
    assert default.cfg.C_pick_every == 25


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_ranks_every_record_once(name):
    papers, y = _papers()
    labels = {f"r{i}": int(y[i]) for i in range(0, 40, 3)}
    out = screen(QUESTION, papers, labels, embedder=HashEmbedder(), preset=name)
    assert sorted(out["record_id"]) == sorted(papers["record_id"])
    assert out["rank"].tolist() == list(range(1, len(papers) + 1))


def test_a_preset_of_ones_own_roles():
    papers, _ = _papers(n=30, n_inc=3)
    by_title_length = Preset("short", "shortest title first", lambda q, f: -np.array([len(t) for t in f.titles]),
                             DEFAULT.learner)
    out = screen(QUESTION, papers, embedder=HashEmbedder(), preset=by_title_length)
    lengths = papers.set_index("record_id").loc[out["record_id"], "title"].str.len().tolist()
    assert lengths == sorted(lengths)
