"""Screening / ranking of candidate papers against a research question (pure logic, no Dagster).

Three layers, all offline and deterministic:

* **Zero-shot hybrid ranker** (:func:`zero_shot_scores`): BM25 with weighted question terms (the first,
  topical sentence weighs more than the criteria after it; sentences on where the records come from and on
  what is not wanted are dropped) and dense cosine (static model2vec embeddings,
  :mod:`agentr_dagster.domain.embeddings`) of the question against two *fields* of each record (title +
  abstract, and title alone), fused as a weighted sum of z-scores (not plain RRF: a weak lexical ranker drags
  RRF down); the dense query is the whole question mixed with its first sentence alone, and the BM25 query is
  then expanded (RM3-style) with the terms most typical of the top of that first fused list; plus a
  study-design prior (:func:`design_prior`: cues of the designs the question asks for, such
  as randomised trials or systematic reviews, up; case reports, letters, animal/in-vitro work, narrative
  reviews and title-only records down, unless asked for); followed by one round of pseudo-relevance feedback
  (a logistic regression trained on the top of that list as pseudo-includes and the bottom half as
  pseudo-excludes, over TF-IDF features), blended back with the prior.
* **Active-learning re-ranker** (:class:`ActiveRanker`): learns from include/exclude labels with a linear
  SVM over TF-IDF uni+bigrams (ASReview's strongest classic setting), combined with the zero-shot prior at a
  high starting weight (4x the classifier) that halves every 10 includes found: the question carries the early
  ranking, the labels the later one.
* **Evaluation** (:func:`wss_at`, :func:`recall_at`, :func:`evaluate_order`) and the **simulation protocol**
  (:func:`choose_priors`, :func:`simulate_active`), plus the :func:`screen` contract used by ``agentr screen``.

Labels from evaluation data are never an input to the zero-shot ranker.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import sparse

from agentr_dagster.domain.text import RETRIEVAL_STOPWORDS, clean_cell, plural_stem

if TYPE_CHECKING:  # pragma: no cover
    from agentr_dagster.domain.embeddings import Embedder

__all__ = [
    "ActiveConfig",
    "ActiveRanker",
    "ScreeningFeatures",
    "ZeroShotConfig",
    "bm25_baseline_scores",
    "bm25_scores",
    "build_features",
    "choose_priors",
    "clean_question",
    "clean_text",
    "dense_baseline_scores",
    "design_prior",
    "evaluate_order",
    "expansion_term_weights",
    "order_from_scores",
    "question_designs",
    "question_term_weights",
    "recall_at",
    "screen",
    "simulate_active",
    "tokenize",
    "weighted_bm25_scores",
    "wss_at",
    "zero_shot_scores",
]

# --------------------------------------------------------------------------------------------------------------
# Text handling
# --------------------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_SENT_SPLIT = re.compile(r"(?<=[.?!;])\s+")
# Sentences of a question that describe what is NOT wanted: their words would pull excluded records up.
_NEGATIVE_CUE = re.compile(
    r"\b(not relevant|irrelevant|are not (?:eligible|included|relevant|wanted)|(?:are|were|is) excluded|"
    r"exclusion criteria|we exclude|excluding|not of interest)\b",
    re.IGNORECASE,
)

STOPWORDS = RETRIEVAL_STOPWORDS
clean_text = clean_cell  # any cell (None, NaN, bytes, HTML, controls) as clean single-spaced text
_stem = plural_stem


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words, lightly stemmed; digits kept (doses, years, type 2)."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return [_stem(w) for w in _TOKEN.findall(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def clean_question(question: str) -> str:
    """Drop sentences that describe what is *not* wanted (they would attract exactly those records)."""
    text = clean_text(question)
    sents = [s for s in _SENT_SPLIT.split(text) if s.strip()]
    kept = [s for s in sents if not _NEGATIVE_CUE.search(s)]
    return " ".join(kept) if kept else text


def _z(values: np.ndarray) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return v
    v = np.where(np.isfinite(v), v, 0.0)
    sd = v.std()
    if sd <= 1e-12:
        return np.zeros_like(v)
    return (v - v.mean()) / sd


# --------------------------------------------------------------------------------------------------------------
# Lexical and dense scorers
# --------------------------------------------------------------------------------------------------------------


def bm25_scores(query_tokens: list[str], docs_tokens: list[list[str]], *, k1: float = 1.5, b: float = 0.75):
    """BM25 (Lucene variant, via ``bm25s``) of one tokenised query against tokenised documents."""
    n = len(docs_tokens)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in docs_tokens]
    if not vocab:
        return np.zeros(n, dtype=np.float64)
    q = [vocab[t] for t in query_tokens if t in vocab]
    if not q:
        return np.zeros(n, dtype=np.float64)
    retriever = bm25s.BM25(k1=k1, b=b)
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    return np.asarray(retriever.get_scores_from_ids(q), dtype=np.float64)


def bm25_baseline_scores(question: str, texts: list[str]) -> np.ndarray:
    """The *plain* BM25 baseline: ``bm25s`` defaults (its tokenizer, English stop words, no stemming)."""
    import bm25s

    n = len(texts)
    if n == 0:
        return np.zeros(0)
    safe = [t if t.strip() else "" for t in texts]
    corpus = bm25s.tokenize(safe, stopwords="en", show_progress=False)
    q = bm25s.tokenize([question], stopwords="en", show_progress=False, return_ids=False)[0]
    q = [t for t in q if t in corpus.vocab]
    if not q:
        return np.zeros(n)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    return np.asarray(retriever.get_scores(q), dtype=np.float64)


def dense_baseline_scores(question: str, texts: list[str], embedder: Embedder) -> np.ndarray:
    """Plain dense cosine similarity of the question with each text."""
    if not texts:
        return np.zeros(0)
    q = embedder.encode([question])[0]
    return embedder.encode(texts).astype(np.float64) @ q.astype(np.float64)


# --------------------------------------------------------------------------------------------------------------
# Features shared by the zero-shot and the active rankers
# --------------------------------------------------------------------------------------------------------------


@dataclass
class ScreeningFeatures:
    """Per-record representations computed once per candidate set."""

    titles: list[str]
    abstracts: list[str]
    texts: list[str]  # title + abstract
    tokens: list[list[str]]
    title_tokens: list[list[str]]
    emb: np.ndarray  # (n, d) L2-normalised, title + abstract
    emb_title: np.ndarray  # (n, d)
    embedder: Any = None
    _tfidf: sparse.csr_matrix | None = field(default=None, repr=False)
    _tfidf_words: sparse.csr_matrix | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def tfidf(self) -> sparse.csr_matrix:
        """TF-IDF of word uni+bigrams (sublinear tf, l2 rows) over the stemmed tokens; built lazily."""
        if self._tfidf is None:
            from sklearn.feature_extraction.text import TfidfVectorizer

            n = len(self.texts)
            if n == 0:
                self._tfidf = sparse.csr_matrix((0, 1))
                return self._tfidf
            vec = TfidfVectorizer(
                analyzer=_identity_analyzer_bigrams,
                sublinear_tf=True,
                min_df=1,
                max_df=0.95 if n >= 20 else 1.0,
                dtype=np.float32,
            )
            try:
                self._tfidf = vec.fit_transform(self.tokens).tocsr()
            except ValueError:  # empty vocabulary (all texts empty)
                self._tfidf = sparse.csr_matrix((n, 1), dtype=np.float32)
        return self._tfidf

    @property
    def tfidf_words(self) -> sparse.csr_matrix:
        """TF-IDF as ASReview builds it: sklearn word tokens of title + " " + abstract, uni+bigrams, sublinear
        tf, max_df 0.95; built lazily."""
        if self._tfidf_words is None:
            from sklearn.feature_extraction.text import TfidfVectorizer

            n = len(self.texts)
            docs = [f"{t} {a}" for t, a in zip(self.titles, self.abstracts, strict=True)]
            vec = TfidfVectorizer(
                ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95 if n >= 20 else 1.0, dtype=np.float32
            )
            try:
                self._tfidf_words = vec.fit_transform(docs).tocsr()
            except ValueError:  # empty vocabulary
                self._tfidf_words = sparse.csr_matrix((n, 1), dtype=np.float32)
        return self._tfidf_words


def _identity_analyzer_bigrams(tokens: list[str]) -> list[str]:
    return list(tokens) + [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]


def build_features(titles: Iterable[Any], abstracts: Iterable[Any], embedder: Embedder) -> ScreeningFeatures:
    """Clean the texts, tokenise them and embed them (full text and title field)."""
    t = [clean_text(x) for x in titles]
    a = [clean_text(x) for x in abstracts]
    if len(t) != len(a):
        raise ValueError("titles and abstracts differ in length")
    texts = [f"{ti}. {ab}".strip(". ").strip() if ab else ti for ti, ab in zip(t, a, strict=True)]
    tokens = [tokenize(x) for x in texts]
    title_tokens = [tokenize(x) for x in t]
    emb = embedder.encode(texts) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
    emb_t = embedder.encode(t) if t else np.zeros((0, embedder.dim), dtype=np.float32)
    return ScreeningFeatures(t, a, texts, tokens, title_tokens, emb, emb_t, embedder)


# --------------------------------------------------------------------------------------------------------------
# Zero-shot hybrid ranker
# --------------------------------------------------------------------------------------------------------------


# Sentences that only say where the records come from (data set, collection, review project): their words
# (project names, "records", "collection") describe every candidate alike and only add noise to the query.
_PROVENANCE = re.compile(
    r"\b(?:records? (?:come|came|were (?:retrieved|drawn|collected)|are (?:drawn|taken))|test collection|"
    r"data ?set|collection of (?:records|citations)|source of the records)\b",
    re.IGNORECASE,
)

# Study-design lexicon: name -> (pattern that says the question wants this design, cue of it in a record).
_DESIGNS: dict[str, tuple[str, str]] = {
    "rct": (
        r"randomi[sz]ed|controlled (?:clinical )?trials?|\brcts?\b|clinical trials?",
        r"randomi[sz]|double[- ]blind|single[- ]blind|placebo|controlled (?:clinical )?trial|cross-?over",
    ),
    "systematic_review": (
        r"systematic (?:literature )?reviews?|meta-analy|literature reviews?|tertiary|secondary stud|mapping stud",
        r"systematic (?:literature )?review|meta-analy|systematic mapping|mapping stud|literature review|"
        r"tertiary stud|structured review",
    ),
    "observational": (
        r"observational|cohort|case-control|registry|population-based|longitudinal",
        r"observational|cohort|case-control|retrospective|prospective|registry|population-based|longitudinal|"
        r"follow-up",
    ),
    "qualitative": (r"qualitative|interviews?|focus groups?", r"qualitative|interview|focus group|thematic"),
    "survey": (r"surveys?|questionnaires?|cross-sectional", r"survey|questionnaire|cross-sectional"),
    "diagnostic": (
        r"diagnostic accuracy|sensitivity and specificity",
        r"sensitivity|specificity|diagnostic accuracy|roc curve|area under",
    ),
}
# Publication types that screening almost always excludes, unless the question asks for them:
# name -> (pattern that says the question wants them, cue in a record).
_EXCLUDED_TYPES: dict[str, tuple[str, str]] = {
    "case_report": (
        r"case reports?|case series",
        r"\bcase reports?\b|\ba case of\b|we (?:report|describe|present) (?:a|an|two|three) (?:case|patient)",
    ),
    "letter": (
        r"letters?|editorials?|comments?\b|commentar",
        r"\bletter to the editor\b|\beditorial\b|\bin reply\b|\berratum\b|\bcomment on\b",
    ),
    "animal_or_in_vitro": (
        r"animals?|\brats?\b|\bmice\b|in vitro|preclinical",
        r"\b(?:rats?|mice|mouse|murine|rabbits?|dogs?|pigs?|rodents?)\b|\bin vitro\b|\bcell lines?\b",
    ),
}
# A narrative review (title says review/overview/update, nothing says systematic): excluded both by reviews of
# primary studies and by reviews of systematic reviews, unless the question asks for review articles.
_NARRATIVE_WANTED = re.compile(r"narrative reviews?|review articles?|overviews?", re.IGNORECASE)
_NARRATIVE_TITLE = re.compile(r"\breview\b|\boverview\b|\bupdate\b", re.IGNORECASE)
_SYSTEMATIC = re.compile(r"systematic|meta-analy|pooled analysis|mapping", re.IGNORECASE)


@dataclass(frozen=True)
class ZeroShotConfig:
    lexical_weight: float = 0.6  # share of BM25 (vs dense) inside each field's fusion
    title_weight: float = 0.5  # weight of the title-field fusion relative to the full-text fusion
    first_sentence_weight: float = 1.0  # query-term weight of the question's first sentence (the topic)
    other_sentence_weight: float = 0.5  # query-term weight of the other sentences (criteria, outcomes)
    design_weight: float = 0.25  # bonus (in z units) for a record with a cue of a design the question wants
    excluded_type_weight: float = 0.25  # malus per cue of an excluded publication type (case report, letter...)
    narrative_weight: float = 0.5  # malus of a narrative review
    empty_abstract_penalty: float = 0.25  # malus of a title-only record (mostly letters/comments in MEDLINE)
    prf: bool = True  # pseudo-relevance feedback round
    prf_top_frac: float = 0.10  # top share of the fused list taken as pseudo-includes
    prf_min_top: int = 10
    prf_bottom_frac: float = 0.5  # bottom share taken as pseudo-excludes
    prf_prior_weight: float = 0.5  # weight of the fused prior blended with the PRF classifier
    prf_min_records: int = 40  # below this, PRF is skipped
    topic_dense_weight: float = 0.5  # extra dense query of the first sentence alone (the topic), vs full question
    expansion_weight: float = 0.3  # RM3-style BM25 query expansion: weight of the top added term (0 = off)
    expansion_terms: int = 20  # terms added from the top of the first fused list


def _question_sentences(question: str) -> list[str]:
    """The question's sentences that say what is wanted: no negative criteria, no provenance sentences."""
    sents = [s for s in _SENT_SPLIT.split(clean_question(question)) if s.strip()]
    kept = [s for s in sents if not _PROVENANCE.search(s)]
    return kept or sents


def question_term_weights(question: str, cfg: ZeroShotConfig = ZeroShotConfig()) -> dict[str, float]:
    """Query terms with weights: the first sentence (the topic: population, intervention, named drugs or
    methods) weighs more than the eligibility and outcome boilerplate after it. Each term counts once."""
    weights: dict[str, float] = {}
    for i, sent in enumerate(_question_sentences(question)):
        w = cfg.first_sentence_weight if i == 0 else cfg.other_sentence_weight
        for t in tokenize(sent):
            weights[t] = max(weights.get(t, 0.0), w)
    return weights


def weighted_bm25_scores(
    term_weights: Mapping[str, float], docs_tokens: list[list[str]], *, k1: float = 1.5, b: float = 0.75
) -> np.ndarray:
    """BM25 (Lucene idf, same formula as ``bm25s``' default) with a weight per query term."""
    n = len(docs_tokens)
    terms = [t for t, w in term_weights.items() if w > 0]
    if n == 0 or not terms:
        return np.zeros(n, dtype=np.float64)
    col = {t: j for j, t in enumerate(terms)}
    rows: list[int] = []
    cols: list[int] = []
    for i, doc in enumerate(docs_tokens):
        for t in doc:
            j = col.get(t)
            if j is not None:
                rows.append(i)
                cols.append(j)
    tf = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, len(terms)), dtype=np.float64)
    tf.sum_duplicates()
    dl = np.array([len(d) for d in docs_tokens], dtype=np.float64)
    avgdl = dl.mean() if dl.mean() > 0 else 1.0
    df = np.bincount(tf.indices, minlength=len(terms)).astype(np.float64)
    idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    norm = k1 * (1.0 - b + b * dl / avgdl)
    tf = tf.tocoo()
    sat = tf.data * (k1 + 1.0) / (tf.data + norm[tf.row])
    qw = np.array([term_weights[t] for t in terms], dtype=np.float64)
    return np.bincount(tf.row, weights=sat * idf[tf.col] * qw[tf.col], minlength=n).astype(np.float64)


def question_designs(question: str) -> tuple[list[str], list[str]]:
    """(designs the question asks for, publication types to penalise as the question does not ask for them).

    Only the wanted sentences count (see :func:`clean_question`): "opinion papers are not relevant" neither
    asks for opinion papers nor prevents penalising letters."""
    text = " ".join(_question_sentences(question))
    wanted = [k for k, (q, _) in _DESIGNS.items() if re.search(q, text, re.IGNORECASE)]
    excluded = [k for k, (q, _) in _EXCLUDED_TYPES.items() if not re.search(q, text, re.IGNORECASE)]
    return wanted, excluded


def design_prior(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Study-design prior, in z units to add to the fused relevance: + a cue of a wanted design, - cues of
    excluded publication types, - a narrative review, - no abstract. Zero for every record when nothing
    applies. Generic lexicon, no labels."""
    n = len(feats)
    out = np.zeros(n, dtype=np.float64)
    if n == 0:
        return out
    wanted, excluded = question_designs(question)
    texts = feats.texts
    if wanted and cfg.design_weight:
        cue = re.compile("|".join(f"(?:{_DESIGNS[k][1]})" for k in wanted), re.IGNORECASE)
        out += cfg.design_weight * np.array([1.0 if cue.search(t) else 0.0 for t in texts])
    for k in excluded:
        cue = re.compile(_EXCLUDED_TYPES[k][1], re.IGNORECASE)
        out -= cfg.excluded_type_weight * np.array([1.0 if cue.search(t) else 0.0 for t in texts])
    if cfg.narrative_weight and not _NARRATIVE_WANTED.search(" ".join(_question_sentences(question))):
        narrative = [
            bool(_NARRATIVE_TITLE.search(ti)) and not _SYSTEMATIC.search(f"{ti} {ab[:300]}")
            for ti, ab in zip(feats.titles, feats.abstracts, strict=True)
        ]
        out -= cfg.narrative_weight * np.asarray(narrative, dtype=np.float64)
    if cfg.empty_abstract_penalty:
        out -= cfg.empty_abstract_penalty * np.array([0.0 if ab else 1.0 for ab in feats.abstracts])
    return out


def expansion_term_weights(
    term_weights: Mapping[str, float],
    docs_tokens: list[list[str]],
    top: np.ndarray,
    cfg: ZeroShotConfig = ZeroShotConfig(),
) -> dict[str, float]:
    """RM3-style query expansion: the question's terms plus the terms most typical of the top records
    (length-normalised tf summed over them x log(n / df); terms in a single record only are skipped), weighted
    up to ``cfg.expansion_weight``. A question term keeps the larger of its two weights."""
    out = dict(term_weights)
    n = len(docs_tokens)
    if not cfg.expansion_weight or cfg.expansion_terms <= 0 or n == 0 or len(top) == 0:
        return out
    df: Counter[str] = Counter()
    for doc in docs_tokens:
        df.update(set(doc))
    rel: Counter[str] = Counter()
    for i in top:
        doc = docs_tokens[int(i)]
        for t, c in Counter(doc).items():
            rel[t] += c / len(doc)
    scored = sorted(((v * math.log(n / df[t]), t) for t, v in rel.items() if df[t] >= 2), reverse=True)
    scored = [(v, t) for v, t in scored[: cfg.expansion_terms] if v > 0]
    if not scored:
        return out
    vmax = scored[0][0]
    for v, t in scored:
        out[t] = max(out.get(t, 0.0), cfg.expansion_weight * v / vmax)
    return out


def _field_scores(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig) -> tuple[np.ndarray, ...]:
    """z-scored dense cosine of the question with the full-text and title fields; the question's first
    sentence (the topic) is scored too and mixed in at ``cfg.topic_dense_weight``: the criteria sentences
    after it pull the whole question vector towards boilerplate that every record of a design shares."""
    n = len(feats)
    if feats.embedder is None:
        return np.zeros(n), np.zeros(n)
    sents = _question_sentences(question)
    qv = feats.embedder.encode([" ".join(sents), sents[0] if sents else ""]).astype(np.float64)
    if not np.any(qv[0]):
        return np.zeros(n), np.zeros(n)
    full = _z(feats.emb.astype(np.float64) @ qv[0])
    title = _z(feats.emb_title.astype(np.float64) @ qv[0])
    if cfg.topic_dense_weight and len(sents) > 1 and np.any(qv[1]):
        full = _z(full + cfg.topic_dense_weight * _z(feats.emb.astype(np.float64) @ qv[1]))
        title = _z(title + cfg.topic_dense_weight * _z(feats.emb_title.astype(np.float64) @ qv[1]))
    return full, title


def _fuse(
    q_weights: Mapping[str, float], dense: tuple[np.ndarray, np.ndarray], feats: ScreeningFeatures, cfg: ZeroShotConfig
) -> np.ndarray:
    w = cfg.lexical_weight if feats.embedder is not None else 1.0
    full = w * _z(weighted_bm25_scores(q_weights, feats.tokens)) + (1 - w) * dense[0]
    title = w * _z(weighted_bm25_scores(q_weights, feats.title_tokens)) + (1 - w) * dense[1]
    return full + cfg.title_weight * title


def fused_prior(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Weighted z-score fusion of BM25 (weighted question terms) and dense cosine (whole question and its topic
    sentence) over the full-text and the title fields, then the same with the BM25 query expanded by the
    terms of the top of that first list (see :func:`expansion_term_weights`)."""
    n = len(feats)
    if n == 0:
        return np.zeros(0)
    q_weights = question_term_weights(question, cfg)
    dense = _field_scores(question, feats, cfg)
    fused = _fuse(q_weights, dense, feats, cfg)
    if not cfg.expansion_weight or not np.any(fused):
        return fused
    top = np.argsort(-(_z(fused) + design_prior(question, feats, cfg)), kind="stable")[: _prf_top_k(n, cfg)]
    return _fuse(expansion_term_weights(q_weights, feats.tokens, top, cfg), dense, feats, cfg)


def _prf_top_k(n: int, cfg: ZeroShotConfig) -> int:
    return min(max(cfg.prf_min_top, int(cfg.prf_top_frac * n)), n // 4)


def zero_shot_scores(question: str, feats: ScreeningFeatures, cfg: ZeroShotConfig = ZeroShotConfig()) -> np.ndarray:
    """Zero-shot relevance scores (higher = more likely to be included). Uses no labels.

    z(fused relevance) + study-design prior, then one round of pseudo-relevance feedback: a logistic regression
    over TF-IDF learns the top of that list against its bottom half and is blended back with it."""
    prior = fused_prior(question, feats, cfg)
    if not len(prior) or not np.any(prior):
        return prior
    prior = _z(prior) + design_prior(question, feats, cfg)
    n = len(prior)
    if not cfg.prf or n < cfg.prf_min_records:
        return prior
    order = np.argsort(-prior, kind="stable")
    pos = order[: _prf_top_k(n, cfg)]
    neg = order[int(n * (1 - cfg.prf_bottom_frac)) :]
    X = feats.tfidf
    if X.shape[1] <= 1:
        return prior
    from sklearn.linear_model import LogisticRegression

    idx = np.r_[pos, neg]
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    clf = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    clf.fit(X[idx], y)
    return _z(clf.decision_function(X)) + cfg.prf_prior_weight * _z(prior)


# --------------------------------------------------------------------------------------------------------------
# Active learning
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActiveConfig:
    C: float = 0.11  # linear SVM regularisation (ASReview's tuned ELAS u4 value)
    # "balanced" sample weights: each exclude weighs n_incl / (ratio * n_excl). ASReview uses 9.8; 3 suits the
    # strong prior better (the prior already pushes excludes down; leave-one-review-out on 13 reviews).
    neg_ratio: float = 3.0
    emb_weight: float = 0.0  # optional dense block next to the l2-normalised TF-IDF block (0 = off)
    # Weight of the z-scored zero-shot prior beside the z-scored SVM margin, and the includes found after which
    # it halves. A strong, fast-decaying prior: a margin from a handful of includes is noisy (it buries the
    # includes unlike the first ones), but after some tens of includes the classifier knows better.
    prior_weight: float = 4.0
    prior_half_life: float = 10.0
    # The prior's weight is also scaled by how well it separates the labels so far (its AUC over labelled
    # include/exclude pairs, shrunk towards ``prior_auc_expected`` by ``prior_auc_pseudo_pairs`` pseudo-pairs):
    # full weight at the expected AUC or better, none at chance. A misleading question then stops steering.
    prior_auc_expected: float = 0.75
    prior_auc_pseudo_pairs: float = 4.0


class ActiveRanker:
    """Re-ranks records from include/exclude labels, keeping the zero-shot prior as a decaying component.

    Model: LinearSVC (squared hinge) over TF-IDF word uni+bigrams (sublinear tf) of title + abstract, with
    ASReview-style balanced sample weights; score = z(margin) + prior_weight * 0.5 ** ((n_incl - 1) / half_life)
    * trust * z(zero-shot prior), where trust (0..1) says how well the prior ranks the labels so far. With
    labels of one class only, the prior (plus, for includes, similarity to them) is used.
    """

    def __init__(self, feats: ScreeningFeatures, prior: np.ndarray, cfg: ActiveConfig = ActiveConfig()):
        self.cfg = cfg
        self.prior = _z(np.asarray(prior, dtype=np.float64))
        blocks = [feats.tfidf_words]
        if cfg.emb_weight > 0 and feats.emb.shape[0]:
            blocks.append(sparse.csr_matrix(feats.emb.astype(np.float32) * cfg.emb_weight))
        self.X = sparse.hstack(blocks).tocsr() if len(blocks) > 1 else blocks[0].tocsr()

    def prior_weight(self, n_included: int) -> float:
        return self.cfg.prior_weight * 0.5 ** (max(n_included - 1, 0) / max(self.cfg.prior_half_life, 1e-9))

    def prior_trust(self, labeled: np.ndarray, y: np.ndarray) -> float:
        """0..1: how far the prior's shrunk AUC over the labelled (include, exclude) pairs is above chance."""
        pos = self.prior[labeled[y == 1]]
        neg = self.prior[labeled[y == 0]]
        a0, k = self.cfg.prior_auc_expected, self.cfg.prior_auc_pseudo_pairs
        if a0 <= 0.5:
            return 1.0
        d = pos[:, None] - neg[None, :]
        wins = float(np.sum(d > 0) + 0.5 * np.sum(d == 0))
        auc = (wins + k * a0) / (d.size + k) if d.size + k > 0 else a0
        return float(np.clip((auc - 0.5) / (a0 - 0.5), 0.0, 1.0))

    def scores(self, labeled: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Scores for every record given labelled indices and their 0/1 labels."""
        labeled = np.asarray(labeled, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        n_pos = int(y.sum())
        n_neg = int(len(y) - n_pos)
        if n_pos == 0 or n_neg == 0:
            if n_pos and len(labeled):  # only includes: add similarity to their centroid
                c = np.asarray(self.X[labeled].mean(axis=0)).ravel()
                return self.prior + _z(self.X @ c)
            return self.prior.copy()
        from sklearn.svm import LinearSVC

        w = np.where(y == 1, 1.0, n_pos / (self.cfg.neg_ratio * n_neg))
        clf = LinearSVC(C=self.cfg.C, loss="squared_hinge", max_iter=5000, random_state=0)
        clf.fit(self.X[labeled], y, sample_weight=w)
        weight = self.prior_weight(n_pos) * self.prior_trust(labeled, y)
        return _z(clf.decision_function(self.X)) + weight * self.prior


# --------------------------------------------------------------------------------------------------------------
# Simulation protocol and metrics
# --------------------------------------------------------------------------------------------------------------


def order_from_scores(scores: np.ndarray) -> np.ndarray:
    """Indices best first; ties keep input order (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def choose_priors(labels: np.ndarray, seed: int = 0) -> tuple[int, int]:
    """One included and one excluded record index, drawn with a fixed seed (``numpy.random.default_rng``)."""
    y = np.asarray(labels).astype(int)
    inc = np.flatnonzero(y == 1)
    exc = np.flatnonzero(y == 0)
    if len(inc) == 0 or len(exc) == 0:
        raise ValueError("need at least one included and one excluded record")
    rng = np.random.default_rng(seed)
    return int(rng.choice(inc)), int(rng.choice(exc))


def default_schedule(n_labeled: int) -> int:
    """Labels to reveal before the next re-training: 1 until 100 labels, then 1 % of the labelled count."""
    return 1 if n_labeled < 100 else max(1, n_labeled // 100)


def simulate_active(
    score_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    labels: np.ndarray,
    priors: Iterable[int],
    *,
    schedule: Callable[[int], int] = default_schedule,
    stop_when_all_found: bool = True,
) -> np.ndarray:
    """Simulate screening: reveal ``priors`` first, then repeatedly ask for the best-scored unlabelled records.

    ``score_fn(labeled_idx, labels_of_labeled) -> scores for all records`` is re-run after every batch
    (batch size from ``schedule(n_labeled)``). Returns the full screening order (every index once). With
    ``stop_when_all_found`` the records left after the last include has been shown are appended in the last
    model's order (as ASReview's simulation does); this changes nothing in WSS or recall.
    """
    y = np.asarray(labels).astype(np.int64)
    n = len(y)
    order: list[int] = []
    seen = np.zeros(n, dtype=bool)
    for p in priors:
        if not seen[p]:
            order.append(int(p))
            seen[p] = True
    total_pos = int(y.sum())
    while len(order) < n:
        idx = np.asarray(order, dtype=np.int64)
        s = np.asarray(score_fn(idx, y[idx]), dtype=np.float64)
        cand = order_from_scores(np.where(seen, -np.inf, s))
        cand = cand[~seen[cand]]
        if stop_when_all_found and int(y[idx].sum()) >= total_pos:
            order.extend(int(i) for i in cand)
            break
        k = max(1, int(schedule(len(order))))
        for i in cand[:k]:
            order.append(int(i))
            seen[i] = True
    return np.asarray(order, dtype=np.int64)


def _labels_in_order(labels_in_order: Iterable[int]) -> np.ndarray:
    return np.asarray(list(labels_in_order), dtype=np.int64)


def wss_at(labels_in_order: Iterable[int], recall: float = 0.95) -> float:
    """Work saved over sampling at ``recall`` (Cohen et al. 2006).

    With N records of which R are included, screened in the given order, let n be the number screened when
    ``ceil(recall * R)`` includes have been found. WSS = (N - n) / N - (1 - recall). NaN if R == 0.
    """
    y = _labels_in_order(labels_in_order)
    n_total = len(y)
    r = int(y.sum())
    if n_total == 0 or r == 0:
        return float("nan")
    target = max(1, math.ceil(recall * r - 1e-9))
    n_screened = int(np.searchsorted(np.cumsum(y), target) + 1)
    return (n_total - n_screened) / n_total - (1.0 - recall)


def recall_at(labels_in_order: Iterable[int], fraction: float) -> float:
    """Share of includes found after screening ``ceil(fraction * N)`` records. NaN if there are none."""
    y = _labels_in_order(labels_in_order)
    r = int(y.sum())
    if len(y) == 0 or r == 0:
        return float("nan")
    k = math.ceil(fraction * len(y) - 1e-9)
    return float(y[:k].sum()) / r


def evaluate_order(labels_in_order: Iterable[int]) -> dict[str, float]:
    """WSS@95, recall at 10 % and 20 % of the list."""
    y = _labels_in_order(labels_in_order)
    return {"wss95": wss_at(y, 0.95), "recall10": recall_at(y, 0.10), "recall20": recall_at(y, 0.20)}


# --------------------------------------------------------------------------------------------------------------
# screen(): the `agentr screen` contract
# --------------------------------------------------------------------------------------------------------------

_ID_CANDIDATES = ("record_id", "id", "paper_id", "key")


def _column(df: pd.DataFrame, *names: str) -> pd.Series | None:
    lower = {str(c).strip().lower(): c for c in df.columns}
    for name in names:
        if name in lower:
            return df[lower[name]]
    return None


def normalise_label(value: Any) -> int | None:
    """include/exclude, yes/no, 1/0, true/false, relevant/irrelevant -> 1/0; anything else -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return 1 if int(value) > 0 else 0
    if isinstance(value, float):
        return None if math.isnan(value) else (1 if value > 0 else 0)
    s = str(value).strip().lower()
    if s in {"1", "include", "included", "yes", "y", "true", "t", "relevant", "in", "+"}:
        return 1
    if s in {"0", "exclude", "excluded", "no", "n", "false", "f", "irrelevant", "out", "-", "-1"}:
        return 0
    return None


def screen(
    question: str,
    papers: pd.DataFrame,
    labels: Mapping[str, int] | None = None,
    *,
    embedder: Embedder | None = None,
    zero_shot: ZeroShotConfig = ZeroShotConfig(),
    active: ActiveConfig = ActiveConfig(),
) -> pd.DataFrame:
    """Rank ``papers`` (columns ``record_id,title,abstract[,year,doi]``) against ``question``.

    Returns a DataFrame with columns ``record_id, rank, score, label, method``: every distinct input record
    exactly once, best first (rank 1 = read first). Records with a missing ``record_id`` get ``row-<i>``
    (1-based row number); repeated ``record_id`` rows are merged (the longest title/abstract kept).
    With ``labels`` (record_id -> 1 include / 0 exclude; other values ignored) the ranking is re-learned from
    them (active-learning model) and labelled records are placed first (includes) or last (excludes).
    """
    if embedder is None:
        from agentr_dagster.domain.embeddings import get_embedder

        embedder = get_embedder()
    df = papers if isinstance(papers, pd.DataFrame) else pd.DataFrame(papers)
    n_rows = len(df)
    ids_col = _column(df, *_ID_CANDIDATES)
    raw_ids = [clean_text(v) for v in ids_col] if ids_col is not None else [""] * n_rows
    ids = [rid if rid else f"row-{i + 1}" for i, rid in enumerate(raw_ids)]
    titles_col = _column(df, "title", "ti", "primary_title")
    abstracts_col = _column(df, "abstract", "ab", "abstract_note", "notes_abstract")
    titles = [clean_text(v) for v in titles_col] if titles_col is not None else [""] * n_rows
    abstracts = [clean_text(v) for v in abstracts_col] if abstracts_col is not None else [""] * n_rows

    # merge duplicate ids, keep the most informative text
    first: dict[str, int] = {}
    u_ids: list[str] = []
    u_titles: list[str] = []
    u_abs: list[str] = []
    for rid, ti, ab in zip(ids, titles, abstracts, strict=True):
        j = first.get(rid)
        if j is None:
            first[rid] = len(u_ids)
            u_ids.append(rid)
            u_titles.append(ti)
            u_abs.append(ab)
        else:
            if len(ti) > len(u_titles[j]):
                u_titles[j] = ti
            if len(ab) > len(u_abs[j]):
                u_abs[j] = ab
    n = len(u_ids)
    if n == 0:
        return pd.DataFrame({"record_id": [], "rank": [], "score": [], "label": [], "method": []}).astype(
            {"record_id": object, "rank": np.int64, "score": np.float64, "label": object, "method": object}
        )

    feats = build_features(u_titles, u_abs, embedder)
    scores = zero_shot_scores(clean_text(question), feats, zero_shot)
    method = "zero-shot"

    lab = np.full(n, -1, dtype=np.int64)
    for rid, v in (labels or {}).items():
        j = first.get(clean_text(rid))
        lv = normalise_label(v)
        if j is not None and lv is not None:
            lab[j] = lv
    labeled = np.flatnonzero(lab >= 0)
    if len(labeled):
        ranker = ActiveRanker(feats, scores, active)
        scores = ranker.scores(labeled, lab[labeled])
        method = "active"
    scores = _z(scores)
    # labelled includes first, labelled excludes last, both kept in model order
    key = scores.copy()
    span = (float(np.max(np.abs(key))) if n else 0.0) + 1.0
    key[lab == 1] += 2 * span
    key[lab == 0] -= 2 * span
    order = order_from_scores(key)
    out = pd.DataFrame(
        {
            "record_id": [u_ids[i] for i in order],
            "rank": np.arange(1, n + 1, dtype=np.int64),
            "score": np.round(key[order], 6),
            "label": [("include" if lab[i] == 1 else "exclude" if lab[i] == 0 else "") for i in order],
            "method": method,
        }
    )
    return out
