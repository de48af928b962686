"""Paper profiles for the lake: clean text, lexical terms and a static embedding, computed in one pass.

One scan of each text yields BERT-style pre-tokens (lower-cased, accents stripped, punctuation split off: the
same segmentation the embedding model's tokenizer starts from). Each *distinct* pre-token is then analysed once
per process: its lexical term (stop words dropped, light plural stemming) and its WordPiece ids in the static
embedding model. A text's embedding is the mean of its first 512 WordPiece vectors, exactly what
``model2vec.StaticModel.encode`` computes, but built as one sparse (texts x pieces) @ (pieces x dim) product
instead of tokenising every text again with the Rust tokenizer (about 10x faster on abstracts; the bench and
``tests/test_lake.py`` check cosine agreement with :func:`agentr_dagster.domain.embeddings.Embedder.encode`).

Pure logic: no Dagster, no files.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
from scipy import sparse

from agentr_dagster.domain.text import RETRIEVAL_STOPWORDS, clean_cell, plural_stem

ANALYZER_VERSION = "lake-analyzer-v1"  # stored in every generation's manifest: terms are only comparable within one
MAX_PIECES = 512  # model2vec's default max_length: pieces past it do not count towards the embedding
MAX_TERM_CHARS = 40
_CHUNK = 4000  # texts per scan chunk: bounds the transient Python strings

_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _punctuation_class() -> str:
    """BERT's punctuation: ASCII non-alphanumeric symbols and every Unicode P* character (BMP)."""
    chars = {chr(c) for c in (*range(33, 48), *range(58, 65), *range(91, 97), *range(123, 127))}
    chars.update(chr(c) for c in range(0x80, 0x10000) if unicodedata.category(chr(c)).startswith("P"))
    return "".join(re.escape(c) for c in sorted(chars))


_PUNCT = _punctuation_class()
# CJK ideographs are single tokens in BERT's basic tokenizer, like punctuation.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PRETOKEN = re.compile(f"[{_PUNCT}{_CJK}]|[^\\s{_PUNCT}{_CJK}]+")

STOPWORDS = RETRIEVAL_STOPWORDS | {"et", "al"}
clean_text = clean_cell


def paper_text(title: Any, abstract: Any) -> str:
    """The text a paper is profiled on: its title, then its abstract."""
    t, a = clean_text(title), clean_text(abstract)
    if t and a:
        return f"{t}. {a}" if t[-1] not in ".?!" else f"{t} {a}"
    return t or a


def pretokens(text: str) -> list[str]:
    """BERT basic-tokenizer segmentation: lower case, accents stripped, punctuation as its own token."""
    low = text.lower()
    if not low.isascii():
        low = _MARKS.sub("", unicodedata.normalize("NFD", low))
    return _PRETOKEN.findall(low)


_stem = plural_stem


def lexical_term(pretoken: str) -> str | None:
    """The index term of a pre-token, or None (punctuation, stop words, one letter, absurdly long)."""
    if not pretoken or len(pretoken) > MAX_TERM_CHARS or pretoken in STOPWORDS:
        return None
    if not pretoken[0].isalnum():
        return None
    if len(pretoken) == 1 and not pretoken.isdigit():
        return None
    return _stem(pretoken)


def analyze(text: str) -> list[str]:
    """Lexical terms of a text, in order (what the lake's BM25 index is built on)."""
    return [t for t in (lexical_term(w) for w in pretokens(text)) if t]


@dataclass
class Profiles:
    """Profiles of ``n`` texts: L2-normalised float32 embeddings and term ids as CSR rows."""

    emb: np.ndarray  # (n, dim) float32
    term_ids: np.ndarray  # flat int32 ids into the vocabulary the profiler was given
    offsets: np.ndarray  # (n + 1,) int64: terms of text i are term_ids[offsets[i]:offsets[i + 1]]

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def empty(cls, dim: int) -> Profiles:
        return cls(np.zeros((0, dim), np.float32), np.zeros(0, np.int32), np.zeros(1, np.int64))


def tokenize_texts(texts: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Pre-tokens of many texts as (distinct pre-tokens, flat int32 ids into them, CSR offsets). Needs no
    model, so parse workers run it in parallel and the profiler only maps the distinct words."""
    index: dict[str, int] = {}
    flats: list[np.ndarray] = []
    lengths: list[int] = []
    for start in range(0, len(texts), _CHUNK):  # a chunk at a time: token strings are transient
        per_text = [pretokens(t) if isinstance(t, str) else [] for t in texts[start : start + _CHUNK]]
        lengths.extend(map(len, per_text))
        tokens = list(chain.from_iterable(per_text))
        del per_text
        for w in dict.fromkeys(tokens):  # first-seen order: reproducible ids
            if w not in index:
                index[w] = len(index)
        flats.append(np.fromiter(map(index.__getitem__, tokens), dtype=np.int32, count=len(tokens)))
    flat = np.concatenate(flats) if flats else np.zeros(0, np.int32)
    return list(index), flat, np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)


def _concat_profiles(parts: list[Profiles], dim: int) -> Profiles:
    if not parts:
        return Profiles.empty(dim)
    lengths = np.concatenate([np.diff(p.offsets) for p in parts])
    return Profiles(np.concatenate([p.emb for p in parts]), np.concatenate([p.term_ids for p in parts]),
                    np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))


def _static_parts(embedder: Any):
    """(tokenizer, float32 piece matrix, unk id) of a model2vec-backed embedder; None if it is something else
    (then texts are embedded with ``embedder.encode``, slower but the same vectors)."""
    model = getattr(embedder, "_model", None)
    tokenizer = getattr(model, "tokenizer", None)
    matrix = getattr(model, "embedding", None)
    if tokenizer is None or matrix is None or getattr(model, "token_mapping", None) is not None:
        return None
    if getattr(model, "weights", None) is not None or np.asarray(matrix).dtype == np.int8:
        return None
    return tokenizer, np.asarray(matrix, dtype=np.float32), getattr(model, "unk_token_id", None)


class Profiler:
    """Profiles texts against an append-only term vocabulary (``dict`` term -> id, extended in place).

    Thread-safe; keeps a per-process cache of every distinct pre-token seen (its term and WordPiece ids).
    """

    def __init__(self, embedder: Any = None):
        if embedder is None:
            from agentr_dagster.domain.embeddings import get_embedder

            embedder = get_embedder()
        self.embedder = embedder
        self.dim = int(embedder.dim)
        self.model_name = str(getattr(embedder, "name", type(embedder).__name__))
        self._static = _static_parts(embedder)
        self._lock = threading.RLock()
        self._word_id: dict[str, int] = {}
        self._word_term: list[str | None] = []
        self._word_list: list[str] = []
        self._piece_chunks: list[np.ndarray] = []
        self._ptr_chunks: list[np.ndarray] = []
        self._piece_ids = np.zeros(0, np.int32)
        self._piece_ptr = np.zeros(1, np.int64)
        self._dirty = False

    @property
    def exact_static(self) -> bool:
        """True when embeddings come from the fast WordPiece-sum path."""
        return self._static is not None

    # -- words --------------------------------------------------------------------------------------------

    def _add_words(self, words: list[str]) -> None:
        base = len(self._word_term)
        for i, w in enumerate(words):
            self._word_id[w] = base + i
            self._word_term.append(lexical_term(w))
            self._word_list.append(w)
        if self._static is None:
            return
        tokenizer, _, unk = self._static
        encodings = tokenizer.encode_batch_fast(words, add_special_tokens=False)
        lists = [[i for i in e.ids if i != unk] if unk is not None else e.ids for e in encodings]
        lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        flat = np.fromiter((i for x in lists for i in x), dtype=np.int32, count=int(lengths.sum()))
        self._piece_chunks.append(flat)
        self._ptr_chunks.append(lengths)
        self._dirty = True

    def _word_pieces(self) -> tuple[np.ndarray, np.ndarray]:
        if self._dirty:
            lengths = np.concatenate(self._ptr_chunks)
            self._piece_ids = np.concatenate([self._piece_ids, *self._piece_chunks])
            self._piece_ptr = np.concatenate([self._piece_ptr, self._piece_ptr[-1] + np.cumsum(lengths)])
            self._piece_chunks, self._ptr_chunks, self._dirty = [], [], False
        return self._piece_ids, self._piece_ptr

    def word_ids(self, words: list[str]) -> np.ndarray:
        """Process-wide ids of distinct pre-tokens (new ones are analysed now, in sorted order so that a
        given sequence of calls always gives the same ids)."""
        with self._lock:
            known = self._word_id
            new = sorted(set(words).difference(known))
            if new:
                self._add_words(new)
            return np.array(list(map(known.__getitem__, words)), dtype=np.int64)

    # -- profiles -----------------------------------------------------------------------------------------

    def profile(self, texts: list[str], vocab: dict[str, int], *, grow: bool = True) -> Profiles:
        """Profiles of ``texts`` (already cleaned). With ``grow=False`` unknown terms are left out."""
        texts = [t if isinstance(t, str) else "" for t in texts]
        parts = []
        for start in range(0, len(texts), _CHUNK):
            chunk = texts[start : start + _CHUNK]
            local, flat, offs = tokenize_texts(chunk)
            words = self.word_ids(local)[flat] if len(flat) else np.zeros(0, np.int64)
            parts.append(self._profile_chunk(words, offs, vocab, grow, chunk))
        return _concat_profiles(parts, self.dim)

    def profile_words(self, words: np.ndarray, offsets: np.ndarray, vocab: dict[str, int], *,
                      grow: bool = True) -> Profiles:
        """Profiles of texts given as process-wide word ids (from :meth:`word_ids`) in CSR rows."""
        offsets = np.asarray(offsets, dtype=np.int64)
        parts = []
        for start in range(0, len(offsets) - 1, _CHUNK):
            stop = min(start + _CHUNK, len(offsets) - 1)
            a, b = int(offsets[start]), int(offsets[stop])
            chunk = np.asarray(words[a:b], dtype=np.int64)  # widened a chunk at a time, not the whole corpus
            parts.append(self._profile_chunk(chunk, offsets[start : stop + 1] - a, vocab, grow, None))
        return _concat_profiles(parts, self.dim)

    def _profile_chunk(self, words: np.ndarray, offs: np.ndarray, vocab: dict[str, int], grow: bool,
                       texts: list[str] | None) -> Profiles:
        n = len(offs) - 1
        with self._lock:
            if self._static:
                emb = self._embed_words(words, offs)
            else:
                if texts is None:  # texts given as words: BERT-style tokenizers see the same tokens again
                    texts = [" ".join(self._word_list[w] for w in words[offs[i] : offs[i + 1]]) for i in range(n)]
                emb = self._embed_slow(texts)
            tids = self._term_ids(words, vocab, grow)
        keep = tids >= 0
        doc = np.repeat(np.arange(n), np.diff(offs))
        lengths = np.bincount(doc[keep], minlength=n)
        return Profiles(emb.astype(np.float32, copy=False), tids[keep].astype(np.int32),
                        np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    def _term_ids(self, words: np.ndarray, vocab: dict[str, int], grow: bool) -> np.ndarray:
        """Term id of each word occurrence (-1: not a term, or unknown with ``grow=False``)."""
        if not len(words):
            return np.zeros(0, np.int64)
        unique, inverse = np.unique(words, return_inverse=True)
        ids = np.full(len(unique), -1, dtype=np.int64)
        for i, w in enumerate(unique.tolist()):
            term = self._word_term[w]
            if term is None:
                continue
            tid = vocab.get(term)
            if tid is None and grow:
                tid = vocab[term] = len(vocab)
            if tid is not None:
                ids[i] = tid
        return ids[inverse]

    def _embed_words(self, words: np.ndarray, offs: np.ndarray) -> np.ndarray:
        """Mean of the first MAX_PIECES WordPiece vectors of each text, L2-normalised."""
        _, matrix, _ = self._static
        piece_ids, piece_ptr = self._word_pieces()
        n = len(offs) - 1
        starts = piece_ptr[words]
        lens = piece_ptr[words + 1] - starts
        total = int(lens.sum())
        # expand each word to its pieces: position p of word j reads piece_ids[starts[j] + p]
        word_of_piece = np.repeat(np.arange(len(words)), lens)
        first_piece = np.cumsum(lens) - lens
        flat = piece_ids[starts[word_of_piece] + (np.arange(total) - first_piece[word_of_piece])]
        text_of_word = np.repeat(np.arange(n), np.diff(offs))
        text_pieces = np.bincount(text_of_word, weights=lens, minlength=n).astype(np.int64)
        text_of_piece = np.repeat(np.arange(n), text_pieces)
        text_start = np.cumsum(text_pieces) - text_pieces
        keep = (np.arange(total) - text_start[text_of_piece]) < MAX_PIECES
        kept = np.minimum(text_pieces, MAX_PIECES)
        # rows are already grouped by text, so the CSR is built directly; repeated pieces in a row simply add up
        counts = sparse.csr_matrix(
            (np.ones(int(kept.sum()), np.float32), flat[keep], np.concatenate([[0], np.cumsum(kept)])),
            shape=(n, matrix.shape[0]),
        )
        vecs = np.asarray(counts @ matrix, dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)

    def _embed_slow(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.embedder.encode(texts), dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embeddings only (queries): same vectors as the profiles."""
        return self.profile(texts, {}, grow=False).emb


__all__ = [
    "ANALYZER_VERSION",
    "MAX_PIECES",
    "STOPWORDS",
    "Profiler",
    "Profiles",
    "analyze",
    "clean_text",
    "lexical_term",
    "paper_text",
    "pretokens",
    "tokenize_texts",
]
