"""Features role: records (title, abstract) -> :class:`ScreeningFeatures`, computed once per candidate set.

Contract: :func:`build_features` ``(titles, abstracts, encoder) -> ScreeningFeatures``. The swappable part is
the *encoder*, anything with ``name``, ``dim`` and ``encode(texts) -> (n, dim) L2-normalised array``
(:class:`TextEncoder`; the run-time one is the static model2vec model of
:mod:`agentr_dagster.domain.embeddings`). The lexical features are fixed by the contract:

* :func:`stemmed_terms` - the screening vocabulary (BM25 and the pseudo-relevance TF-IDF read it);
* ``tfidf`` - TF-IDF of those terms' uni+bigrams; ``tfidf_words`` - TF-IDF as ASReview builds it (sklearn word
  tokens), the active learner's input; both built lazily;
* ``emb`` / ``emb_title`` - dense vectors of title + abstract and of the title alone (the static encoder);
* ``temb`` / ``temb_title`` - the same from the *transformer* encoder (all-MiniLM-L6-v2 in ONNX,
  :mod:`agentr_dagster.domain.transformer`, through the per-text cache), or None without one. Each set of vectors
  is versioned by its encoder's ``name`` (``embedder.name``, ``transformer.name``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import sparse

from agentr_dagster.domain.text import RETRIEVAL_STOPWORDS, clean_cell, plural_stem

__all__ = ["ScreeningFeatures", "TextEncoder", "build_features", "stemmed_terms"]

_TERM = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


class TextEncoder(Protocol):
    """A dense text encoder: one L2-normalised row per text."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def stemmed_terms(text: str) -> list[str]:
    """Screening terms: lower-case, accents folded, stop words dropped, plurals stemmed; digits kept (doses,
    years, type 2). Not :func:`agentr_dagster.domain.text.tokenize` (plain word tokens, nothing dropped)."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return [
        plural_stem(w)
        for w in _TERM.findall(text)
        if w not in RETRIEVAL_STOPWORDS and (len(w) > 1 or w.isdigit())
    ]


@dataclass
class ScreeningFeatures:
    """Per-record representations computed once per candidate set."""

    titles: list[str]
    abstracts: list[str]
    texts: list[str]  # title + abstract
    tokens: list[list[str]]  # stemmed_terms of texts
    title_tokens: list[list[str]]  # stemmed_terms of titles
    emb: np.ndarray  # (n, d) L2-normalised, title + abstract
    emb_title: np.ndarray  # (n, d)
    embedder: Any = None
    temb: np.ndarray | None = None  # (n, d2) transformer vectors of title + abstract, or None
    temb_title: np.ndarray | None = None
    transformer: Any = None
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
                analyzer=_terms_and_bigrams,
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


def _terms_and_bigrams(tokens: list[str]) -> list[str]:
    return list(tokens) + [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]


def build_features(
    titles: Iterable[Any],
    abstracts: Iterable[Any],
    embedder: TextEncoder,
    transformer: TextEncoder | None = None,
) -> ScreeningFeatures:
    """Clean the texts, cut them into screening terms and embed them (full text and title field) with the static
    ``embedder`` and, when given, the ``transformer`` too."""
    t = [clean_cell(x) for x in titles]
    a = [clean_cell(x) for x in abstracts]
    if len(t) != len(a):
        raise ValueError("titles and abstracts differ in length")
    texts = [f"{ti}. {ab}".strip(". ").strip() if ab else ti for ti, ab in zip(t, a, strict=True)]
    tokens = [stemmed_terms(x) for x in texts]
    title_tokens = [stemmed_terms(x) for x in t]
    emb = embedder.encode(texts) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
    emb_t = embedder.encode(t) if t else np.zeros((0, embedder.dim), dtype=np.float32)
    feats = ScreeningFeatures(t, a, texts, tokens, title_tokens, emb, emb_t, embedder)
    if transformer is not None:
        both = transformer.encode(texts + t) if texts else np.zeros((0, transformer.dim), dtype=np.float32)
        feats.temb, feats.temb_title, feats.transformer = both[: len(texts)], both[len(texts) :], transformer
    return feats
