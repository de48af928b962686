"""The paper lake: every paper profiled once, shared by all projects, searched with weighted hybrid retrieval.

Write side (:func:`add_files`, :func:`add_records`): parse, de-duplicate against the lake with the import's rules
(:class:`~agentr_dagster.imports.identity.PaperIndex`: DOI; normalised title + year, or the title alone when one
side has no year; near-identical title; never when two DOIs or two abstracts disagree), profile only papers
whose text (content hash) the lake has never seen, rebuild the BM25 index from the stored term ids and publish a
new generation atomically.
Read side (:class:`Lake`): memory-mapped embeddings and BM25 matrix; :meth:`Lake.search` fuses BM25 and dense
cosine with weighted reciprocal rank fusion; :meth:`Lake.boolean_mask` evaluates a Boolean query over every
paper.
"""

from __future__ import annotations

import hashlib
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from agentr_dagster.domain.boolean_query import Node, parse_boolean_query, query_terms
from agentr_dagster.domain.contracts import PaperRecord
from agentr_dagster.domain.hashing import file_sha256
from agentr_dagster.imports import ImportFileError, ImportLimits, content_hash, paper_key_for, parse_file, title_key
from agentr_dagster.imports.identity import PaperIndex, Probe
from agentr_dagster.lake import files as lf
from agentr_dagster.lake.analysis import (
    ANALYZER_VERSION,
    Profiler,
    Profiles,
    clean_text,
    paper_text,
    tokenize_texts,
)
from agentr_dagster.lake.boolean import boolean_mask
from agentr_dagster.lake.fusion import FusionWeights, fuse
from agentr_dagster.lake.lexical import K1, B, bm25_scores, build_bm25, load_bm25, save_bm25

FORMAT_VERSION = 1
# A lake takes big bulk files (an OpenAlex or arXiv dump slice); a project import keeps the stricter defaults.
LAKE_LIMITS = ImportLimits(max_bytes=1_000_000_000, max_rows=2_000_000, max_field_chars=20_000)

PAPER_SCHEMA = pa.schema(
    [
        ("lake_id", pa.int64()),
        ("paper_key", pa.string()),
        ("title_key", pa.string()),
        ("content_hash", pa.string()),
        ("title", pa.string()),
        ("abstract", pa.string()),
        ("year", pa.int32()),
        ("doi", pa.string()),
        ("authors", pa.list_(pa.string())),
        ("venue", pa.string()),
        ("url", pa.string()),
        ("source_id", pa.string()),
        ("source_format", pa.string()),
        ("source_file", pa.string()),
        ("source_row", pa.int64()),
        ("added_at", pa.string()),
    ]
)
SOURCE_SCHEMA = pa.schema(
    [
        ("lake_id", pa.int64()),
        ("sha256", pa.string()),
        ("file", pa.string()),
        ("format", pa.string()),
        ("row", pa.int64()),
        ("added_at", pa.string()),
    ]
)
_META_COLUMNS = ["paper_key", "title", "year", "doi", "venue", "url", "authors", "source_format", "source_file"]

_profiler: Profiler | None = None
_profiler_lock = threading.Lock()


def get_profiler() -> Profiler:
    """Process-wide profiler over the default static embedder (its word cache outlives one call)."""
    global _profiler
    if _profiler is None:
        with _profiler_lock:
            if _profiler is None:
                _profiler = Profiler()
    return _profiler


_blas: Any = None


def _blas_controller():
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController

        _blas = ThreadpoolController()
    return _blas


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------------------------


@dataclass
class LakeHit:
    lake_id: int
    rank: int
    score: float
    cosine: float
    bm25: float
    lexical_rank: int | None
    dense_rank: int | None
    paper_key: str = ""
    title: str = ""
    year: int | None = None
    doi: str | None = None
    venue: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class Lake:
    """A read-only view of one generation. Cheap to open: embeddings and the BM25 matrix are memory-mapped,
    paper metadata and texts load on first use."""

    def __init__(self, root: Path, generation: Path, profiler: Profiler | None = None):
        self.root = root
        self.path = generation
        self.manifest = lf.read_json(generation / "manifest.json")
        self.n = int(self.manifest["papers"])
        self.generation = lf.generation_number(generation)
        self.emb = np.load(generation / "emb.npy", mmap_mode="r")
        self.bm25 = load_bm25(generation / "bm25", mmap=True)
        self.vocab: dict[str, int] = self.bm25.vocab_dict
        self._profiler = profiler
        self._meta: pa.Table | None = None
        self._full: pa.Table | None = None
        self._lowered: pa.ChunkedArray | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, root: Path | None = None, profiler: Profiler | None = None) -> Lake | None:
        """The live generation, or None when the lake is empty. Retries if a writer prunes what it just read."""
        root = Path(root) if root is not None else lf.lake_dir()
        for _ in range(5):
            generation = lf.current_generation(root)
            if generation is None:
                return None
            try:
                lake = cls(root, generation, profiler)
            except FileNotFoundError:
                continue
            return lake if lake.n else None
        raise RuntimeError(f"lake at {root}: the live generation kept changing while opening it")

    @property
    def profiler(self) -> Profiler:
        if self._profiler is None:
            self._profiler = get_profiler()
        return self._profiler

    def check_model(self) -> None:
        """Query vectors must come from the model the lake was profiled with."""
        if self.manifest.get("model") != self.profiler.model_name or self.manifest.get("dim") != self.profiler.dim:
            raise RuntimeError(
                f"the lake was profiled with {self.manifest.get('model')!r}, this process embeds with "
                f"{self.profiler.model_name!r}: run `agentr lake rebuild`"
            )

    # -- scoring ------------------------------------------------------------------------------------------

    def query_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """(BM25, dense cosine) of a free-text query against every paper."""
        self.check_model()
        text = clean_text(query)
        prof = self.profiler.profile([text], self.vocab, grow=False)
        lexical = bm25_scores(self.bm25, prof.term_ids.tolist())
        q = prof.emb[0]
        if not np.any(q):
            return lexical, np.zeros(self.n, dtype=np.float32)
        # One thread: a matrix-vector product gains little from BLAS threads and loses a lot when the cores are
        # busy (measured 22 ms vs 1.3 ms at 10k papers on a loaded 2-core box).
        with _blas_controller().limit(limits=1, user_api="blas"):
            dense = self.emb @ q
        return lexical, np.asarray(dense, dtype=np.float32)

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        weights: FusionWeights | None = None,
        mask: np.ndarray | None = None,
        min_cosine: float | None = None,
        with_meta: bool = True,
    ) -> list[LakeHit]:
        """The ``k`` best papers for ``query`` by weighted RRF of BM25 and dense cosine.

        ``mask`` limits the search (e.g. to a Boolean query's matches); ``min_cosine`` drops papers whose dense
        cosine is below it (a floor against off-topic filler when the lake holds other fields). A query with
        nothing to match on (empty, or only characters the model does not know) finds nothing."""
        weights = weights or FusionWeights()
        lexical, dense = self.query_scores(query)
        if not dense.any():  # nothing embeddable (empty, or only unknown symbols): no dense ranking to fuse
            if not lexical.any():
                return []
            weights = replace(weights, dense=0.0, lexical=weights.lexical or 1.0)
        if min_cosine is not None:
            floor = dense >= min_cosine
            mask = floor if mask is None else (mask & floor)
        ids, fused, lex_rank, dense_rank = fuse(lexical, dense, k, weights=weights, mask=mask)
        hits = [
            LakeHit(
                lake_id=d, rank=r, score=s, cosine=float(dense[d]), bm25=float(lexical[d]),
                lexical_rank=lr or None, dense_rank=dr or None,
            )
            for r, (d, s, lr, dr) in enumerate(
                zip(ids.tolist(), fused.tolist(), lex_rank.tolist(), dense_rank.tolist(), strict=True), start=1
            )
        ]
        if with_meta and hits:
            meta = self.metadata([h.lake_id for h in hits])
            for hit, row in zip(hits, meta, strict=True):
                hit.paper_key, hit.title, hit.year = row["paper_key"], row["title"], row["year"]
                hit.doi, hit.venue = row["doi"], row["venue"]
        return hits

    def boolean_mask(self, query: str | Node) -> np.ndarray:
        """Which papers a Boolean query matches (same semantics as ``boolean_query.matches``)."""
        return boolean_mask(query, self.lowered_texts())

    def keys_mask(self, keys: Collection[str]) -> np.ndarray:
        """Which papers have one of ``keys`` as their paper key (a project's own papers, to weigh terms by the
        other papers only)."""
        column = self._meta_table()["paper_key"]
        return np.asarray(pc.is_in(column, value_set=pa.array(list(keys), type=pa.string())).to_numpy(
            zero_copy_only=False), dtype=bool)

    # -- papers -------------------------------------------------------------------------------------------

    def _table(self) -> pa.Table:
        """Every column (abstracts included): read on first need, e.g. to hand papers to a project."""
        with self._lock:
            if self._full is None:
                self._full = pq.read_table(self.path / "papers.parquet")
            return self._full

    def _meta_table(self) -> pa.Table:
        """What a search result shows (no abstracts): a fraction of the file, so a first search stays quick."""
        with self._lock:
            if self._full is not None:
                return self._full
            if self._meta is None:
                self._meta = pq.read_table(self.path / "papers.parquet", columns=_META_COLUMNS)
            return self._meta

    def lowered_texts(self) -> pa.ChunkedArray:
        with self._lock:
            if self._lowered is None:
                table = pq.read_table(self.path / "papers.parquet", columns=["title", "abstract"])
                joined = pc.binary_join_element_wise(table["title"], table["abstract"], ". ")
                self._lowered = pc.utf8_lower(joined)
            return self._lowered

    def metadata(self, ids: Sequence[int], columns: Sequence[str] = _META_COLUMNS) -> list[dict[str, Any]]:
        table = (self._meta_table() if set(columns) <= set(_META_COLUMNS) else self._table()).select(list(columns))
        return table.take(pa.array(list(ids), type=pa.int64())).to_pylist()

    def records(self, ids: Sequence[int]) -> list[PaperRecord]:
        """The papers as import records (original format, file and row kept as their source)."""
        rows = self._table().take(pa.array(list(ids), type=pa.int64())).to_pylist()
        return [
            PaperRecord(
                title=r["title"], abstract=r["abstract"] or "", year=r["year"], doi=r["doi"],
                authors=list(r["authors"] or []), venue=r["venue"], url=r["url"], source_id=r["source_id"],
                source_format=r["source_format"] or "unknown", source_file=r["source_file"],
                source_row=r["source_row"],
            )
            for r in rows
        ]

    def stats(self) -> dict[str, Any]:
        m = self.manifest
        return {
            "path": str(self.root), "generation": self.generation, "papers": self.n,
            "records_seen": m.get("records_seen"), "files": len(m.get("files", [])),
            "vocabulary": len(self.vocab), "model": m.get("model"), "analyzer": m.get("analyzer"),
            "created_at": m.get("created_at"),
        }


def boolean_positive_text(query: str) -> str:
    """The positive terms of a Boolean query as one free-text query (for ranking its matches)."""
    return " ".join(t.rstrip("*") for t in query_terms(parse_boolean_query(query)))


# ------------------------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------------------------


@dataclass
class FileReport:
    name: str
    sha256: str = ""
    format: str = ""
    records: int = 0
    added: int = 0
    duplicates: int = 0
    dropped: int = 0
    already_ingested: bool = False
    error: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class AddReport:
    files: list[FileReport]
    generation: int
    papers: int
    added: int
    profiled: int  # papers whose profile was computed now
    reused_profiles: int  # new papers whose text the lake had already profiled
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def rejected(self) -> list[FileReport]:
        return [f for f in self.files if f.error]


RECORD_SCHEMA = pa.schema([f for f in PAPER_SCHEMA if f.name not in ("lake_id", "added_at")])
_PROFILE_CHUNK = 20_000  # papers profiled per step: bounds the Python strings alive at once


def records_table(records: Iterable[PaperRecord]) -> tuple[pa.Table, list[str]]:
    """Parsed records as one compact Arrow table (what crosses processes) with their keys, content hash and
    pre-tokens: a ``words`` column of ids into the returned list of distinct pre-tokens."""
    cols: dict[str, list] = {f.name: [] for f in RECORD_SCHEMA}
    for rec in records:
        tkey = title_key(rec.title, rec.year)
        cols["paper_key"].append(paper_key_for(rec.doi, tkey))  # = imports.paper_key(rec), title normalised once
        cols["title_key"].append(tkey)
        cols["content_hash"].append(content_hash(rec))
        cols["title"].append(rec.title)
        cols["abstract"].append(rec.abstract or "")
        cols["year"].append(rec.year)
        cols["doi"].append(rec.doi)
        cols["authors"].append(list(rec.authors))
        cols["venue"].append(rec.venue)
        cols["url"].append(rec.url)
        cols["source_id"].append(rec.source_id)
        cols["source_format"].append(rec.source_format)
        cols["source_file"].append(rec.source_file)
        cols["source_row"].append(rec.source_row)
    table = pa.table(cols, schema=RECORD_SCHEMA)
    texts = [paper_text(t, a) for t, a in zip(cols["title"], cols["abstract"], strict=True)]
    del cols
    vocab, flat, offsets = tokenize_texts(texts)
    words = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(flat, pa.int32()))
    return table.append_column("words", words), vocab


@dataclass
class _Batch:
    report: FileReport
    table: pa.Table | None  # RECORD_SCHEMA rows + words; None once consumed
    words: list[str] | None = None  # the distinct pre-tokens the table's words column points into


@dataclass
class _State:
    """One generation loaded for writing."""

    papers: pa.Table
    sources: pa.Table
    emb: np.ndarray | None  # None once _assemble_profiles consumed it
    term_ids: np.ndarray | None  # likewise
    offsets: np.ndarray
    vocab: dict[str, int]
    manifest: dict[str, Any]

    @classmethod
    def empty(cls, dim: int) -> _State:
        return cls(
            PAPER_SCHEMA.empty_table(), SOURCE_SCHEMA.empty_table(), np.zeros((0, dim), np.float32),
            np.zeros(0, np.int32), np.zeros(1, np.int64), {}, {"files": [], "records_seen": 0},
        )

    @classmethod
    def load(cls, generation: Path) -> _State:
        retriever = load_bm25(generation / "bm25", mmap=False)
        return cls(
            papers=pq.read_table(generation / "papers.parquet"),
            sources=pq.read_table(generation / "sources.parquet"),
            emb=np.load(generation / "emb.npy"),
            term_ids=np.load(generation / "terms.npy"),
            offsets=np.load(generation / "term_offsets.npy"),
            vocab=dict(retriever.vocab_dict),
            manifest=lf.read_json(generation / "manifest.json"),
        )


def _parse_one(path: Path, limits: ImportLimits) -> tuple[FileReport, pa.Table | None, list[str] | None]:
    report = FileReport(name=path.name)
    try:
        if path.is_symlink():
            raise ImportFileError("symbolic links are not followed")
        report.sha256 = file_sha256(path)
        result = parse_file(path, limits)
    except ImportFileError as exc:
        report.error = str(exc)
        return report, None, None
    except OSError as exc:
        report.error = f"cannot read the file: {exc.strerror or exc}"
        return report, None, None
    report.format = result.format
    report.records = len(result.records)
    report.dropped = len(result.dropped)
    report.notes = [f"row {i.row}: {i.reason}" for i in result.dropped[:50]]
    return report, *records_table(result.records)


def add_files(
    paths: Iterable[Path],
    *,
    root: Path | None = None,
    profiler: Profiler | None = None,
    limits: ImportLimits = LAKE_LIMITS,
    workers: int = 1,
) -> AddReport:
    """Import candidate-paper files into the lake. A bad file is reported (with the parser's reason) and
    skipped; the others still go in. A file already ingested (same sha256) adds nothing."""
    root = Path(root) if root is not None else lf.lake_dir()
    paths = [Path(p) for p in paths]
    started = time.perf_counter()
    seen = _ingested_shas(root)
    batches: list[_Batch | None] = [None] * len(paths)
    todo: list[int] = []
    for i, path in enumerate(paths):
        sha = file_sha256(path) if path.is_file() and not path.is_symlink() else ""
        if sha and sha in seen:
            batches[i] = _Batch(FileReport(name=path.name, sha256=sha, already_ingested=True), None, None)
        else:
            todo.append(i)
    if workers > 1 and len(todo) > 1:
        # parsing and pre-tokenising are pure Python: spread files over processes; each sends back one compact
        # Arrow table and its distinct pre-tokens
        with ProcessPoolExecutor(max_workers=min(workers, len(todo))) as pool:
            for i, parsed in zip(todo, pool.map(_parse_one, [paths[i] for i in todo], [limits] * len(todo)),
                                 strict=True):
                batches[i] = _Batch(*parsed)
    else:
        for i in todo:
            batches[i] = _Batch(*_parse_one(paths[i], limits))
    parse_seconds = time.perf_counter() - started
    report = _write(root, [b for b in batches if b is not None], profiler)
    report.timings = {"parse": round(parse_seconds, 3), **report.timings}
    return report


def add_records(
    records: Iterable[PaperRecord],
    *,
    name: str = "<records>",
    root: Path | None = None,
    profiler: Profiler | None = None,
) -> AddReport:
    """Add records that did not come from a file (already parsed)."""
    records = [r if isinstance(r, PaperRecord) else PaperRecord.model_validate(r) for r in records]
    digest = hashlib.sha256()
    for r in records:
        digest.update(r.model_dump_json().encode())
    report = FileReport(name=name, sha256=digest.hexdigest(), format="records", records=len(records))
    batch = _Batch(report, *records_table(records))
    return _write(Path(root) if root is not None else lf.lake_dir(), [batch], profiler)


def rebuild(root: Path | None = None, profiler: Profiler | None = None) -> AddReport:
    """Re-profile every paper (after an analyzer or embedding-model change) into a new generation."""
    return _write(Path(root) if root is not None else lf.lake_dir(), [], profiler, force_reprofile=True)


def _ingested_shas(root: Path) -> set[str]:
    generation = lf.current_generation(root)
    if generation is None:
        return set()
    try:
        return {f["sha256"] for f in lf.read_json(generation / "manifest.json").get("files", [])}
    except FileNotFoundError:
        return set()


def _profile_matches(manifest: dict[str, Any], profiler: Profiler) -> bool:
    return manifest.get("analyzer") == ANALYZER_VERSION and manifest.get("model") == profiler.model_name and (
        manifest.get("dim") == profiler.dim
    )


def _profile_rows(papers: pa.Table, rows: np.ndarray, vocab: dict[str, int], profiler: Profiler) -> Profiles:
    """Profiles of the given rows of a papers table, a chunk at a time."""
    embs, terms, lengths = [], [], []
    for start in range(0, len(rows), _PROFILE_CHUNK):
        part = papers.select(["title", "abstract"]).take(pa.array(rows[start : start + _PROFILE_CHUNK]))
        texts = [paper_text(t, a) for t, a in zip(part["title"].to_pylist(), part["abstract"].to_pylist(),
                                                  strict=True)]
        prof = profiler.profile(texts, vocab)
        embs.append(prof.emb)
        terms.append(prof.term_ids)
        lengths.append(np.diff(prof.offsets))
    if not embs:
        return Profiles.empty(profiler.dim)
    return Profiles(np.concatenate(embs), np.concatenate(terms),
                    np.concatenate([[0], np.cumsum(np.concatenate(lengths))]).astype(np.int64))


def _list_offsets(array: pa.ListArray) -> np.ndarray:
    """Offsets of a (possibly sliced) list array, rebased to start at 0."""
    offsets = array.offsets.to_numpy().astype(np.int64)
    return offsets - offsets[0]


def _gather(values: np.ndarray, offsets: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR rows ``idx`` of (values, offsets), concatenated."""
    starts = offsets[idx]
    lens = offsets[idx + 1] - starts
    out_offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    pos = np.arange(out_offsets[-1]) - np.repeat(out_offsets[:-1] - starts, lens)
    return values[pos], out_offsets


def _cell(column: pa.Array, i: int) -> Any:
    """Row ``i`` of a stored column as a Python value (read only when an identity rule asks for it)."""
    return column[i].as_py()


def _split_title_key(tkey: str, years: dict[str, int | None]) -> tuple[str, int | None]:
    """``t:<normalised title>|<year>`` -> (normalised title, year); ``years`` shares one int per year."""
    title, _, year = tkey[2:].rpartition("|")
    if year not in years:
        years[year] = int(year) if year else None
    return title, years[year]


_REMEMBERED = 20_000  # candidates' surnames and abstract word sets kept while merging: bounded memory


class _Dedupe:
    """Which lake paper a record is: the import's rules (:class:`~agentr_dagster.imports.identity.PaperIndex`:
    same DOI, same title and year, same title with a year missing on one side, near-identical title; never on a
    title when the DOIs or the abstracts disagree), applied across the whole lake, with the lake id as the
    index's slot. The index holds each paper's DOI, normalised title (from the stored title key) and year; a
    candidate's first author and abstract are read from the stored columns (or the batch's) only when a title
    rule needs them."""

    def __init__(self, papers: pa.Table):
        self._stored = papers.select(["authors", "abstract"])  # not copied into Python: read by row on need
        # per batch: (its first new lake id, its authors and abstracts, the rows of its new papers; None once
        # settled, when the table holds only those, in lake-id order)
        self._batches: list[tuple[int, pa.Table, list[int] | None]] = []
        self.index = PaperIndex(lambda i: self._cell("authors", i), lambda i: self._cell("abstract", i),
                                remember=_REMEMBERED)
        self._years: dict[str, int | None] = {}
        for doi, tkey in zip(papers.column("doi").to_pylist(), papers.column("title_key").to_pylist(), strict=True):
            self.index.add(doi, *_split_title_key(tkey, self._years))

    def _cell(self, column: str, lake_id: int) -> Any:
        if lake_id < len(self._stored):
            return self._stored[column][lake_id].as_py()
        first, table, rows = self._batches[bisect_right(self._batches, lake_id, key=lambda b: b[0]) - 1]
        row = lake_id - first
        return table[column][rows[row] if rows is not None else row].as_py()

    def assign(self, table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
        """Each row's lake paper (an existing one, or a new one added now): (lake ids, which rows are new)."""
        rows: list[int] = []
        batch = table.select(["authors", "abstract"])
        self._batches.append((len(self.index), batch, rows))
        owners = np.empty(len(table), dtype=np.int64)
        is_new = np.zeros(len(table), dtype=bool)
        authors, abstracts = batch["authors"], batch["abstract"]
        for i, (doi, tkey) in enumerate(zip(table["doi"].to_pylist(), table["title_key"].to_pylist(), strict=True)):
            probe = Probe(doi, *_split_title_key(tkey, self._years),
                          authors=partial(_cell, authors, i), abstract=partial(_cell, abstracts, i))
            found = self.index.match(probe)
            if found is None:
                owners[i], is_new[i] = self.index.keep(probe), True
                rows.append(i)
            else:
                owners[i] = found[0]
        if not rows:
            self._batches.pop()
        return owners, is_new

    def settle(self, new_rows: pa.Table) -> None:
        """The last batch's new papers, in lake-id order: read them from here, so the batch can go."""
        first = self._batches[-1][0]
        self._batches[-1] = (first, new_rows.select(["authors", "abstract"]), None)


@dataclass
class _Merged:
    """The batches' new rows, merged against the live generation. Phases drop what they consumed (set it to
    None) so the next phase's arrays do not sit beside the inputs they came from."""

    new_parts: list[pa.Table] = field(default_factory=list)
    word_parts: list[tuple[np.ndarray, np.ndarray]] | None = field(default_factory=list)  # (word ids, offsets)
    source_parts: list[pa.Table] = field(default_factory=list)
    file_entries: list[dict] = field(default_factory=list)


def _write(root: Path, batches: list[_Batch], profiler: Profiler | None, *, force_reprofile: bool = False):
    """Merge the parsed batches into a new lake generation under the writer lock, and publish it."""
    profiler = profiler or get_profiler()
    timings: dict[str, float] = {}
    with lf.writer_lock(root):
        t0 = time.perf_counter()
        live = lf.current_generation(root)
        state = _State.load(live) if live is not None else _State.empty(profiler.dim)
        timings["load"] = time.perf_counter() - t0
        stale = len(state.papers) > 0 and (force_reprofile or not _profile_matches(state.manifest, profiler))
        if stale:  # terms and vectors from another analyzer or model are not comparable: profile everything again
            state.vocab = {}
            prof = _profile_rows(state.papers, np.arange(len(state.papers)), state.vocab, profiler)
            state.emb, state.term_ids, state.offsets = prof.emb, prof.term_ids, prof.offsets
        n_old = len(state.papers)
        stamp = _now()
        t0, cpu0 = time.perf_counter(), time.process_time()
        merged = _merge_batches(batches, state, profiler, stamp)
        timings["merge"] = time.perf_counter() - t0
        timings["merge_cpu"] = time.process_time() - cpu0  # de-duplication: CPU seconds, as the box may be loaded
        if not merged.source_parts and not stale:
            return AddReport([b.report for b in batches], lf.generation_number(live), n_old, 0, 0, 0, timings)

        t0 = time.perf_counter()
        new_papers = pa.concat_tables(merged.new_parts) if merged.new_parts else PAPER_SCHEMA.empty_table()
        merged.new_parts = []
        source, n_fresh, prof = _profile_new(state, new_papers, merged, profiler)
        timings["profile"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        emb, term_ids, offsets = _assemble_profiles(state, source, n_fresh, prof, profiler.dim)
        del prof
        papers = pa.concat_tables([state.papers, new_papers]) if len(new_papers) else state.papers
        sources = pa.concat_tables([state.sources, *merged.source_parts])
        retriever = build_bm25(term_ids, offsets, state.vocab)
        timings["index"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        number = lf.generation_number(live) + 1
        tmp = lf.new_tmp_dir(root, number)
        pq.write_table(papers, tmp / "papers.parquet", compression="zstd")
        pq.write_table(sources, tmp / "sources.parquet", compression="zstd")
        np.save(tmp / "emb.npy", emb)
        np.save(tmp / "terms.npy", term_ids)
        np.save(tmp / "term_offsets.npy", offsets)
        save_bm25(retriever, tmp / "bm25")
        manifest = {
            "format": FORMAT_VERSION, "generation": number, "papers": len(papers),
            "records_seen": int(state.manifest.get("records_seen", 0)) + len(sources) - len(state.sources),
            "analyzer": ANALYZER_VERSION, "model": profiler.model_name, "dim": profiler.dim,
            "exact_static": profiler.exact_static, "bm25": {"method": "lucene", "k1": K1, "b": B},
            "created_at": stamp, "files": [*state.manifest.get("files", []), *merged.file_entries],
        }
        lf.write_json(tmp / "manifest.json", manifest)
        lf.publish(root, tmp, number)
        lf.prune(root)
        timings["write"] = time.perf_counter() - t0
    timings = {k: round(v, 3) for k, v in timings.items()}
    n_new = len(new_papers)
    return AddReport([b.report for b in batches], number, len(papers), n_new, n_fresh, n_new - n_fresh, timings)


def _merge_batches(batches: list[_Batch], state: _State, profiler: Profiler, stamp: str) -> _Merged:
    """De-duplicate each batch's rows against the lake and the batches before it; keep the new papers, their
    words, and a source row for every record (duplicates included: provenance)."""
    ingested = {f["sha256"] for f in state.manifest.get("files", [])}
    dedupe = _Dedupe(state.papers)
    merged = _Merged()
    for batch in batches:
        rep, table, local_words = batch.report, batch.table, batch.words
        batch.table = batch.words = None  # release the batch as soon as it is merged
        if rep.error or rep.already_ingested or table is None:
            continue
        if rep.sha256 in ingested:  # another writer ingested it between our check and the lock
            rep.already_ingested, rep.records = True, 0
            continue
        ingested.add(rep.sha256)
        owners, is_new = dedupe.assign(table)
        rep.added = int(is_new.sum())
        rep.duplicates = len(table) - rep.added
        if rep.added:
            _keep_new_rows(merged, table, local_words, owners, is_new, profiler, stamp)
            dedupe.settle(merged.new_parts[-1])
        merged.source_parts.append(pa.table({
            "lake_id": pa.array(owners), "sha256": pa.array([rep.sha256] * len(table), pa.string()),
            "file": pa.array([rep.name] * len(table), pa.string()), "format": table["source_format"],
            "row": table["source_row"], "added_at": pa.array([stamp] * len(table), pa.string()),
        }, schema=SOURCE_SCHEMA))
        merged.file_entries.append({
            "sha256": rep.sha256, "name": rep.name, "format": rep.format, "records": rep.records,
            "added": rep.added, "duplicates": rep.duplicates, "dropped": rep.dropped, "at": stamp,
        })
        del table
    return merged


def _keep_new_rows(merged: _Merged, table: pa.Table, local_words, owners: np.ndarray, is_new: np.ndarray,
                   profiler: Profiler, stamp: str) -> None:
    everything_new = bool(is_new.all())  # the bulk case: no copies of the batch
    words = table["words"].combine_chunks()
    if not everything_new:
        words = words.filter(pa.array(is_new))
    global_ids = profiler.word_ids(local_words).astype(np.int32)
    flat = words.flatten().to_numpy(zero_copy_only=False)
    assert merged.word_parts is not None, "a batch's words are kept before profiling consumes them"
    merged.word_parts.append((global_ids[flat] if len(flat) else np.zeros(0, np.int32), _list_offsets(words)))
    del words, flat, global_ids
    fresh = (table if everything_new else table.filter(pa.array(is_new))).drop_columns(["words"])
    fresh = fresh.append_column("lake_id", pa.array(owners[is_new]))
    fresh = fresh.append_column("added_at", pa.array([stamp] * len(fresh), pa.string()))
    merged.new_parts.append(fresh.select(PAPER_SCHEMA.names).cast(PAPER_SCHEMA))


def _profile_new(state: _State, new_papers: pa.Table, merged: _Merged, profiler: Profiler):
    """Profile each distinct new text once; a text the lake already holds reuses its stored profile.
    Returns, per new paper, where its profile comes from (< n_old: an old paper's; else n_old + fresh index),
    the number of fresh profiles, and those profiles."""
    n_old, n_new = len(state.papers), len(new_papers)
    hash_owner = {h: i for i, h in enumerate(state.papers.column("content_hash").to_pylist())}
    source = np.empty(n_new, dtype=np.int64)
    fresh_rows: list[int] = []
    fresh_of: dict[str, int] = {}
    for j, h in enumerate(new_papers.column("content_hash").to_pylist()):
        if h in hash_owner:
            source[j] = hash_owner[h]
        else:
            if h not in fresh_of:
                fresh_of[h] = len(fresh_rows)
                fresh_rows.append(j)
            source[j] = n_old + fresh_of[h]
    del hash_owner, fresh_of
    word_parts, merged.word_parts = merged.word_parts, None
    assert word_parts is not None, "profiling consumes the batches' words once"
    if fresh_rows:
        all_words = np.concatenate([w for w, _ in word_parts])
        ends: np.ndarray = np.cumsum([0] + [int(o[-1]) for _, o in word_parts])
        all_offsets: np.ndarray = np.concatenate(
            [np.zeros(1, np.int64)] + [o[1:] + ends[i] for i, (_, o) in enumerate(word_parts)])
        del word_parts
        if len(fresh_rows) != n_new:  # some new papers share a text: profile each distinct text once
            all_words, all_offsets = _gather(all_words, all_offsets, np.asarray(fresh_rows, dtype=np.int64))
        prof = profiler.profile_words(all_words, all_offsets, state.vocab)
        del all_words, all_offsets
    else:
        del word_parts
        prof = Profiles.empty(profiler.dim)
    pa.default_memory_pool().release_unused()
    return source, len(fresh_rows), prof


def _assemble_profiles(state: _State, source: np.ndarray, n_fresh: int, prof: Profiles, dim: int):
    """The new generation's embeddings and term lists: the old papers', then each new paper's (from a fresh
    profile or an old paper with the same text). Consumes the state's arrays."""
    n_old, n_new = len(state.papers), len(source)
    assert state.emb is not None and state.term_ids is not None, "a generation's arrays are consumed once"
    emb = np.empty((n_old + n_new, dim), dtype=np.float32)
    emb[:n_old] = state.emb
    state.emb = None
    if n_new:
        old_src = source < n_old
        emb[n_old:][old_src] = emb[source[old_src]]
        emb[n_old:][~old_src] = prof.emb[source[~old_src] - n_old]
    if n_fresh == n_new and (n_new == 0 or np.array_equal(source, n_old + np.arange(n_new))):
        new_terms, new_offsets = prof.term_ids, prof.offsets  # the bulk case: every paper new, in order
    else:
        pool = np.concatenate([state.term_ids, prof.term_ids])
        pool_offsets = np.concatenate([state.offsets, state.offsets[-1] + prof.offsets[1:]])
        new_terms, new_offsets = _gather(pool, pool_offsets, source)
        del pool, pool_offsets
    term_ids = np.concatenate([state.term_ids, new_terms]).astype(np.int32, copy=False)
    offsets = np.concatenate([state.offsets, state.offsets[-1] + new_offsets[1:]]).astype(np.int64)
    state.term_ids = None
    return emb, term_ids, offsets


def _background_lake(root: Path | None) -> Lake | None:
    """The lake when it holds at least ``MIN_BACKGROUND_RECORDS`` papers (enough to judge terms by), else None."""
    from agentr_dagster.domain import specificity

    lake = Lake.open(root)
    return lake if lake is not None and lake.n >= specificity.MIN_BACKGROUND_RECORDS else None


def lake_query_share(root: Path | None = None) -> Callable[[Node], float] | None:
    """The share of the lake's papers a Boolean query matches: how far a query widened by seed studies reaches
    into a background of many topics (the seed terms' off-topic bound,
    :data:`agentr_dagster.domain.seed_check.MAX_SEEDED_OFF_TOPIC`). None while the lake holds fewer than
    ``MIN_BACKGROUND_RECORDS`` papers, as :func:`lake_background`."""
    lake = _background_lake(root)
    return None if lake is None else lambda node: float(lake.boolean_mask(node).mean())


def lake_background(root: Path | None = None) -> Callable[[str], float] | None:
    """A search term's share of the lake's papers (its document frequency; a term as the Boolean matcher reads
    it, quoted or not): the background of many topics that tells a topic's words from general words and
    publishers' boilerplate (:func:`agentr_dagster.domain.specificity.is_generic`, the seed terms' filter). None
    while the lake holds fewer than ``MIN_BACKGROUND_RECORDS`` papers: too few to judge by."""
    from agentr_dagster.domain.boolean_query import Term

    lake = _background_lake(root)
    return None if lake is None else lambda term: float(lake.boolean_mask(Term(term.strip().strip('"'))).mean())
