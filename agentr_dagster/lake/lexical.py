"""The lake's lexical index: a ``bm25s`` BM25 (Lucene variant) built from stored term ids.

``bm25s.BM25.index`` walks Python lists of token ids (about 0.5 GB of Python ints and several seconds at 100k
papers); the lake already holds every paper's terms as flat int32 arrays, so the score matrix is computed here
with numpy in the exact layout and formula ``bm25s`` uses (CSC: one column of (doc, score) pairs per term,
score = idf_lucene(df) * tf / (tf + k1 * (1 - b + b * dl / avgdl))) and handed to a ``bm25s.BM25`` object for
scoring, saving and memory-mapped loading. ``tests/test_lake.py`` checks it against ``bm25s``'s own indexing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import sparse

K1 = 1.5
B = 0.75


def build_bm25(term_ids: np.ndarray, offsets: np.ndarray, vocab: dict[str, int], *, k1: float = K1, b: float = B):
    """A ready ``bm25s.BM25`` over ``n = len(offsets) - 1`` documents whose terms are CSR rows of ``term_ids``."""
    import bm25s

    n_docs = len(offsets) - 1
    n_vocab = max(len(vocab), int(term_ids.max()) + 1 if len(term_ids) else 0, 1)
    lengths = np.diff(offsets).astype(np.float32)
    avgdl = float(lengths.mean()) if n_docs and lengths.sum() else 1.0
    # documents x terms with one entry per occurrence; summing duplicates gives term frequencies, and the CSC
    # form is exactly bm25s's layout (per term, its documents in increasing order)
    counts = sparse.csr_matrix(
        (np.ones(len(term_ids), dtype=np.float32), term_ids.astype(np.int32, copy=False), offsets),
        shape=(n_docs, n_vocab),
    )
    counts.sum_duplicates()
    by_term = counts.tocsc()
    del counts
    tf = by_term.data
    docs = by_term.indices.astype(np.int32, copy=False)
    indptr = by_term.indptr.astype(np.int64)
    df = np.diff(indptr).astype(np.float64)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    norm = np.float32(k1) * (np.float32(1.0 - b) + np.float32(b / avgdl) * lengths[docs])
    data = np.repeat(idf, np.diff(indptr)) * tf / (tf + norm)

    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.scores = {"data": data.astype(np.float32, copy=False), "indices": docs, "indptr": indptr,
                        "num_docs": n_docs}
    retriever.vocab_dict = dict(vocab)
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    return retriever


def save_bm25(retriever, directory: Path) -> None:
    retriever.save(str(directory), show_progress=False)


def load_bm25(directory: Path, *, mmap: bool = True):
    import bm25s

    return bm25s.BM25.load(str(directory), mmap=mmap, show_progress=False)


def bm25_scores(retriever, term_ids: list[int]) -> np.ndarray:
    """BM25 of a query (term ids, repeats counted) against every document; zeros when no term is known."""
    n_docs = int(retriever.scores["num_docs"])
    n_terms = len(retriever.scores["indptr"]) - 1
    ids = [t for t in term_ids if 0 <= t < n_terms]
    if not ids or n_docs == 0:
        return np.zeros(n_docs, dtype=np.float32)
    return np.asarray(retriever.get_scores_from_ids(ids), dtype=np.float32)
