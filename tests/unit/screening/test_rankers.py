"""Zero-shot rankers: question term weights, weighted BM25, the study-design prior, expansion, dense topic query."""

from __future__ import annotations

import numpy as np

from agentr_dagster.screening.features import build_features, stemmed_terms
from agentr_dagster.screening.rankers import ZeroShotConfig, design_prior, fused_prior, zero_shot_scores
from agentr_dagster.screening.rankers.design import question_designs
from agentr_dagster.screening.rankers.lexical import (
    bm25s_token_scores,
    expansion_term_weights,
    question_term_weights,
    weighted_bm25_scores,
)
from agentr_dagster.screening.scores import order_from_scores
from agentr_dagster.testing.screening import HashEmbedder

RCT_QUESTION = (
    "What is the comparative effectiveness of ACE inhibitors such as enalapril in adults with hypertension? "
    "The records come from the Springfield drug review project collection. "
    "Relevant studies are randomized controlled trials against placebo and systematic reviews of such trials. "
    "Studies in children are not relevant."
)
SLR_QUESTION = (
    "How are systematic literature reviews used in software engineering? "
    "Relevant records report a systematic review of a software engineering topic. "
    "Primary empirical studies, informal literature surveys and opinion papers are not relevant."
)


def _filler(rng: np.random.Generator, k: int) -> str:
    return " ".join(f"w{int(i)}" for i in rng.integers(0, 400, k))


def test_question_term_weights_topic_first_and_no_provenance_or_negatives():
    w = question_term_weights(RCT_QUESTION)
    assert w["enalapril"] == 1.0 and w["hypertension"] == 1.0  # the topic sentence
    assert w["placebo"] == 0.5 and w["randomized"] == 0.5  # criteria sentences weigh less
    assert "springfield" not in w and "collection" not in w  # provenance sentence dropped
    assert "children" not in w  # negative criterion dropped
    # the weights follow the config
    w2 = question_term_weights(RCT_QUESTION, ZeroShotConfig(first_sentence_weight=2.0, other_sentence_weight=0.1))
    assert w2["enalapril"] == 2.0 and w2["placebo"] == 0.1


def test_weighted_bm25_matches_bm25s_and_honours_weights():
    rng = np.random.default_rng(1)
    docs = [stemmed_terms(f"{_filler(rng, 20)} {'enalapril ' * (i % 3)} {'placebo ' * (i % 2)}") for i in range(30)]
    docs.append([])  # an empty record scores 0
    q = ["enalapril", "placebo", "absent"]
    ours = weighted_bm25_scores(dict.fromkeys(q, 1.0), docs)
    ref = bm25s_token_scores(q, docs)
    assert ours.shape == ref.shape and ours[-1] == 0.0
    hit = ref > 0
    assert hit.sum() > 10
    ratio = ours[hit] / ref[hit]  # same formula up to the constant (k1 + 1)
    assert np.allclose(ratio, ratio[0], rtol=1e-6)
    assert np.all(ours[~hit] == 0)
    # up-weighting a term moves the records that have it (and only it) up relative to the others
    up = weighted_bm25_scores({"enalapril": 3.0, "placebo": 1.0}, docs)
    only_e = [i for i, d in enumerate(docs) if "enalapril" in d and "placebo" not in d]
    only_p = [i for i, d in enumerate(docs) if "placebo" in d and "enalapril" not in d]
    assert up[only_e].mean() / up[only_p].mean() > ours[only_e].mean() / ours[only_p].mean()
    assert weighted_bm25_scores({}, docs).tolist() == [0.0] * len(docs)
    assert weighted_bm25_scores({"x": 1.0}, []).shape == (0,)


def test_question_designs_from_wanted_sentences_only():
    wanted, excluded = question_designs(RCT_QUESTION)
    assert "rct" in wanted and "systematic_review" in wanted
    assert {"case_report", "letter", "animal_or_in_vitro"} <= set(excluded)
    wanted, excluded = question_designs(SLR_QUESTION)
    assert wanted == ["systematic_review"]  # "surveys" sits in the not-relevant sentence
    assert "letter" in excluded
    _, excluded = question_designs("Case reports and case series of drug-induced liver injury in mice.")
    assert "case_report" not in excluded and "animal_or_in_vitro" not in excluded
    assert question_designs("") == ([], ["case_report", "letter", "animal_or_in_vitro"])


def _records(n_filler: int = 60):
    """Three records equally on topic (same words), differing only in design cues, plus off-topic filler."""
    rng = np.random.default_rng(0)
    topic = "enalapril hypertension adults blood pressure ace inhibitors"
    titles = [
        "Enalapril in adults with hypertension: a randomized double-blind placebo-controlled trial",
        "Enalapril in adults with hypertension: editorial",
        "Enalapril in adults with hypertension: a case report",
    ]
    abstracts = [
        f"{topic} {_filler(rng, 30)}",
        f"Letter to the editor. {topic} {_filler(rng, 30)}",
        f"We report a case of {topic} {_filler(rng, 30)}",
    ]
    for _ in range(n_filler):
        titles.append(f"{_filler(rng, 6)} software")
        abstracts.append(_filler(rng, 40))
    return titles, abstracts


def test_design_cue_record_outranks_editorial_and_case_report_for_rct_question():
    titles, abstracts = _records()
    feats = build_features(titles, abstracts, HashEmbedder())
    prior = design_prior(RCT_QUESTION, feats)
    assert prior[0] > 0 > prior[1] and prior[2] < 0
    for cfg in (ZeroShotConfig(), ZeroShotConfig(prf=False)):
        s = zero_shot_scores(RCT_QUESTION, feats, cfg)
        order = order_from_scores(s).tolist()
        assert order[0] == 0 and set(order[:3]) == {0, 1, 2}
        assert np.all(np.isfinite(s))
    # without the design prior the RCT has no edge over the editorial (the topical words are the same)
    off = ZeroShotConfig(
        design_weight=0, excluded_type_weight=0, narrative_weight=0, empty_abstract_penalty=0, prf=False
    )
    assert np.all(design_prior(RCT_QUESTION, feats, off) == 0)
    s_off = zero_shot_scores(RCT_QUESTION, feats, off)
    s_on = zero_shot_scores(RCT_QUESTION, feats, ZeroShotConfig(prf=False))
    assert (s_on[0] - s_on[1]) > (s_off[0] - s_off[1]) + 0.3


def test_narrative_reviews_penalised_unless_asked_for():
    titles = [
        "Software cost estimation: a systematic literature review",
        "Software cost estimation: a review",
        "Software cost estimation: an overview of recent work",
    ]
    abstracts = ["We searched digital libraries.", "We discuss estimation methods.", "Trends in estimation."]
    feats = build_features(titles, abstracts, HashEmbedder())
    p = design_prior(SLR_QUESTION, feats)
    assert p[0] > 0 and p[1] < 0 and p[2] < 0
    p = design_prior("Narrative reviews and overviews of software cost estimation.", feats)
    assert p[1] == 0 and p[2] == 0


def test_zero_shot_with_empty_abstracts_and_no_design_words():
    titles = ["Enalapril for hypertension", "Comment", "", "Enalapril and blood pressure"] * 12
    abstracts = ["", "", "enalapril lowers blood pressure in adults", "randomised trial of enalapril"] * 12
    feats = build_features(titles, abstracts, HashEmbedder())
    for question in ("enalapril in hypertension", RCT_QUESTION, "The records come from a data set."):
        s = zero_shot_scores(question, feats)
        assert s.shape == (48,) and np.all(np.isfinite(s))
    # a title-only record is penalised relative to the same title with an abstract
    p = design_prior("enalapril in hypertension", feats)
    assert p[0] < 0 and p[3] == 0
    empty = build_features([], [], HashEmbedder())
    assert zero_shot_scores(RCT_QUESTION, empty).shape == (0,)
    assert design_prior(RCT_QUESTION, empty).shape == (0,)


def test_expansion_terms_come_from_the_top_records_and_keep_question_weights():
    rng = np.random.default_rng(3)
    docs = [stemmed_terms(f"enalapril captopril lisinopril {_filler(rng, 15)}") for _ in range(5)]
    docs += [stemmed_terms(f"software testing {_filler(rng, 15)}") for _ in range(40)]
    q = {"enalapril": 1.0, "trial": 0.5}
    cfg = ZeroShotConfig(expansion_weight=0.3, expansion_terms=5)
    w = expansion_term_weights(q, docs, np.arange(5), cfg)
    assert w["enalapril"] == 1.0 and w["trial"] == 0.5  # question weights are kept
    added = set(w) - set(q)
    assert {"captopril", "lisinopril"} <= added and len(added) <= 5
    assert "software" not in w and max(w[t] for t in added) == 0.3
    # off, or nothing on top: the question as it is
    assert expansion_term_weights(q, docs, np.arange(5), ZeroShotConfig(expansion_weight=0)) == q
    assert expansion_term_weights(q, docs, np.array([], dtype=int), cfg) == q
    # a record found by the expanded query only (synonym, no question word) moves up
    titles = (
        ["enalapril captopril lisinopril"] * 5 + ["captopril lisinopril study"] + [f"software {i}" for i in range(40)]
    )
    abstracts = [_filler(rng, 10) for _ in titles]
    feats = build_features(titles, abstracts, HashEmbedder())
    off = ZeroShotConfig(expansion_weight=0, topic_dense_weight=0, prf=False)
    on = ZeroShotConfig(topic_dense_weight=0, prf=False)
    assert fused_prior("enalapril", feats, on)[5] > fused_prior("enalapril", feats, off)[5] + 0.5


def test_topic_sentence_dense_query_lifts_on_topic_records_over_criteria_boilerplate():
    rng = np.random.default_rng(5)
    question = "Enalapril in hypertension. Relevant studies are randomized trials reporting outcomes and harms."
    titles = ["enalapril hypertension", "randomized trials reporting outcomes harms"]
    titles += [_filler(rng, 5) for _ in range(40)]
    abstracts = [""] * len(titles)
    feats = build_features(titles, abstracts, HashEmbedder())
    dense_only = {"lexical_weight": 0.0, "expansion_weight": 0.0, "prf": False}
    off = fused_prior(question, feats, ZeroShotConfig(topic_dense_weight=0.0, **dense_only))
    on = fused_prior(question, feats, ZeroShotConfig(topic_dense_weight=1.0, **dense_only))
    assert (on[0] - on[1]) > (off[0] - off[1]) + 0.5
    # a one-sentence question is its own topic: the weight changes nothing
    one = "enalapril in hypertension"
    a = fused_prior(one, feats, ZeroShotConfig(topic_dense_weight=0.0, **dense_only))
    b = fused_prior(one, feats, ZeroShotConfig(topic_dense_weight=1.0, **dense_only))
    assert np.allclose(a, b)


class _SynonymTransformer(HashEmbedder):
    """A stand-in transformer: reads "infarction" as "heart attack" (meaning, not words), and knows few names."""

    name = "test:synonym-transformer"
    _known = {"what", "treatment", "after", "heart", "attack", "effect", "drugs", "adults", "with"}

    def encode(self, texts, progress=None):
        return super().encode([str(t).lower().replace("myocardial infarction", "heart attack") for t in texts])

    def piece_counts(self, words):
        return [1 if w in self._known else 4 for w in words]


def _transformer_feats(transformer):
    titles = [f"record {i} about cost of care in clinics" for i in range(60)]
    abstracts = [f"filler text number {i} on hospital budgets" for i in range(60)]
    titles[37] = "Long-term outcome after myocardial infarction"
    return build_features(titles, abstracts, HashEmbedder(), transformer)


def test_transformer_share_falls_to_zero_for_questions_naming_unknown_words():
    from agentr_dagster.screening.rankers.fused import transformer_share, unreadable_share

    feats = _transformer_feats(_SynonymTransformer())
    cfg = ZeroShotConfig(transformer_weight=1.0, transformer_unreadable_cut=0.3)
    plain = "What is the effect of treatment after a heart attack in adults?"
    named = "What is the effect of lisinopril, enalapril and ramipril in adults?"
    assert unreadable_share(plain, feats.transformer) == 0.0
    assert unreadable_share(named, feats.transformer) == 0.5  # 3 of the 6 words of 4+ letters
    assert transformer_share(plain, feats, cfg) == 1.0 and transformer_share(named, feats, cfg) == 0.0
    assert transformer_share(plain, feats, ZeroShotConfig(transformer_weight=0.0)) == 0.0  # weight 0: off
    # with no share the fusion is exactly the static one
    static_only = _transformer_feats(None)
    np.testing.assert_allclose(fused_prior(named, feats, cfg), fused_prior(named, static_only, cfg))


def test_the_transformer_lifts_a_record_that_matches_by_meaning():
    question = "What is the effect of treatment after a heart attack?"
    cfg = ZeroShotConfig(transformer_weight=1.0, prf=False, expansion_weight=0.0)
    with_t = order_from_scores(zero_shot_scores(question, _transformer_feats(_SynonymTransformer()), cfg))
    without = order_from_scores(zero_shot_scores(question, _transformer_feats(None), cfg))
    assert list(with_t).index(37) < list(without).index(37)
    assert list(with_t).index(37) < 5


def test_rerank_tail_reorders_only_the_bottom_and_keeps_the_score_values():
    from agentr_dagster.screening.rankers.zero_shot import rerank_tail

    scores = np.arange(10, dtype=float)  # record 9 on top, record 0 at the bottom
    other = np.zeros(10)
    other[0] = 5.0  # the bottom record is the other ranker's favourite
    out = rerank_tail(scores, other, frac=0.3, weight=2.0)
    assert np.array_equal(out[3:], scores[3:])  # the head (top 70 %) untouched
    assert sorted(out) == sorted(scores)  # the same score values, handed out again
    assert list(order_from_scores(out)[:7]) == [9, 8, 7, 6, 5, 4, 3]
    assert list(order_from_scores(out)[7:]) == [0, 2, 1]  # record 0 now leads the tail, still below the head
    # weight 0 or a tail of fewer than 2 records: nothing moves
    assert np.array_equal(rerank_tail(scores, other, 0.3, 0.0), scores)
    assert np.array_equal(rerank_tail(scores, other, 0.1, 2.0), scores)


def test_tail_rerank_in_zero_shot_moves_only_the_bottom_and_needs_the_transformer():
    question = "What is the effect of treatment after a heart attack?"
    base = ZeroShotConfig(transformer_weight=0.0, prf_transformer_blend=0.0, prf=False, expansion_weight=0.0,
                          tail_transformer_frac=0.0)
    tail = ZeroShotConfig(transformer_weight=0.0, prf_transformer_blend=0.0, prf=False, expansion_weight=0.0,
                          tail_transformer_frac=0.5, tail_transformer_weight=2.0)
    feats = _transformer_feats(_SynonymTransformer())
    before, after = zero_shot_scores(question, feats, base), zero_shot_scores(question, feats, tail)
    moved = before < np.sort(before)[30]  # the bottom half, ties at its edge left in the head
    assert 2 <= moved.sum() <= 30 and not np.array_equal(after, before)
    n_head = len(before) - int(moved.sum())
    assert np.array_equal(order_from_scores(after)[:n_head], order_from_scores(before)[:n_head])
    assert np.array_equal(after[~moved], before[~moved]) and sorted(after[moved]) == sorted(before[moved])
    # without a transformer the knob does nothing
    static_only = _transformer_feats(None)
    np.testing.assert_array_equal(zero_shot_scores(question, static_only, tail),
                                  zero_shot_scores(question, static_only, base))


def test_readable_lexical_weight_acts_only_on_questions_the_transformer_reads():
    feats = _transformer_feats(_SynonymTransformer())
    plain = "What is the effect of treatment after a heart attack in adults?"
    named = "What is the effect of lisinopril, enalapril and ramipril in adults?"
    base = ZeroShotConfig(transformer_weight=1.0, transformer_unreadable_cut=0.3)
    less_bm25 = ZeroShotConfig(transformer_weight=1.0, transformer_unreadable_cut=0.3, readable_lexical_weight=0.2)
    # a question with unreadable names (share 0) keeps the base lexical weight
    np.testing.assert_allclose(fused_prior(named, feats, less_bm25), fused_prior(named, feats, base))
    # a readable one (share 1) leans on the transformer: the record that matches by meaning only climbs
    rank = {c: list(order_from_scores(fused_prior(plain, feats, c))).index(37) for c in (base, less_bm25)}
    assert not np.allclose(fused_prior(plain, feats, less_bm25), fused_prior(plain, feats, base))
    assert rank[less_bm25] < rank[base]


class _ReversingTransformer(HashEmbedder):
    """A stand-in transformer whose cosines differ from the static model's (it hashes the words spelt backwards)
    and which splits every word outside a small vocabulary into 4 pieces."""

    name = "test:reversing-transformer"
    _known = {"what", "effect", "exercise", "sleep", "quality", "adults", "older"}

    def encode(self, texts, progress=None):
        return super().encode([" ".join(w[::-1] for w in str(t).lower().split()) for t in texts])

    def piece_counts(self, words):
        return [1 if w in self._known else 4 for w in words]


def test_defaults_on_an_unreadable_question_leave_the_head_to_bm25_and_the_static_model():
    # the shipped defaults give a question of drug names no transformer share: its list is the static pipeline's
    # except the bottom (tail_transformer_frac), which the transformer's cosine re-orders
    rng = np.random.default_rng(3)
    vocab = ["exercise", "sleep", "quality", "adults", "older", "zolpidem", "melatonin", "trial", "cohort", "night"]
    titles = [" ".join(rng.choice(vocab, 4)) + " " + _filler(rng, 6) for _ in range(80)]
    with_t = build_features(titles, [""] * 80, HashEmbedder(), _ReversingTransformer())
    static = build_features(titles, [""] * 80, HashEmbedder())
    cfg = ZeroShotConfig(prf=False, expansion_weight=0.0)
    n_head = 80 - int(cfg.tail_transformer_frac * 80)

    def heads(question: str) -> tuple[np.ndarray, np.ndarray]:
        a, b = zero_shot_scores(question, with_t, cfg), zero_shot_scores(question, static, cfg)
        return order_from_scores(a)[:n_head], order_from_scores(b)[:n_head]

    named = "What is the effect of zolpidem and melatonin on sleep?"  # 2 of 5 words unreadable
    readable = "What is the effect of exercise on sleep quality in older adults?"
    assert np.array_equal(*heads(named))
    assert not np.array_equal(*heads(readable))  # a readable question: the transformer reaches the head
