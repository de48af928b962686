"""Lexical rankers: BM25 of the question's terms against the records' screening terms.

* :func:`weighted_bm25_scores` - ours: BM25 (Lucene idf) with a weight per query term, the weights from
  :func:`question_term_weights` (topic sentence first) and, for the second pass, :func:`expansion_term_weights`.
* :func:`bm25s_token_scores` - the ``bm25s`` library's BM25 of already tokenised text (the reference the
  weighted variant is checked against).
* :func:`bm25_baseline_scores` - the plain baseline of the bench: ``bm25s`` with its own tokenizer.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping

import numpy as np
from scipy import sparse

from agentr_dagster.screening.features import stemmed_terms
from agentr_dagster.screening.question import question_sentences, topic_sentences
from agentr_dagster.screening.rankers.config import ZeroShotConfig

__all__ = [
    "bm25_baseline_scores",
    "bm25s_token_scores",
    "expansion_term_weights",
    "question_term_weights",
    "weighted_bm25_scores",
]


def question_term_weights(
    question: str,
    cfg: ZeroShotConfig = ZeroShotConfig(),
    piece_counts: Callable[[list[str]], list[int]] | None = None,
) -> dict[str, float]:
    """Query terms with weights: the topic (the first sentence: population, intervention, named drugs or
    methods; an abstract's aim too) weighs more than the eligibility and outcome boilerplate after it. Each term
    counts once.

    In an abstract (a text whose aim :func:`topic_sentences` finds; never a question), a name the transformer
    reads as fragments (``piece_counts``: its tokenizer's word pieces per word, 3 or more) weighs as the topic
    wherever it stands: an abstract often names its drugs only in its methods or results, where a question names
    them in its topic sentence."""
    weights: dict[str, float] = {}
    topic = topic_sentences(question)
    for sent in question_sentences(question):
        w = cfg.first_sentence_weight if sent in topic else cfg.other_sentence_weight
        for t in stemmed_terms(sent):
            weights[t] = max(weights.get(t, 0.0), w)
    if piece_counts is not None and len(topic) > 1:
        names = [t for t, w in weights.items() if w < cfg.first_sentence_weight and len(t) >= 4 and t.isalpha()]
        for t, pieces in zip(names, piece_counts(names) if names else [], strict=True):
            if pieces >= 3:
                weights[t] = cfg.first_sentence_weight
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
    rel: defaultdict[str, float] = defaultdict(float)
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


def bm25s_token_scores(query_tokens: list[str], docs_tokens: list[list[str]], *, k1: float = 1.5, b: float = 0.75):
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
