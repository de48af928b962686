"""Screening decisions in from files: a labels table (CSV/TSV/XLSX with an ``included``/``label`` column) or an
ASReview LAB project export (``.asreview``), from ``agentr labels SLUG --import FILE`` or the drop folder.

Each decision is matched to one of the project's live papers by the user's record id (the ``source_id`` their
paper file gave it), then by DOI, then by normalised title; a record id or DOI whose paper has a different
title is not trusted (another tool's internal ids collide with the user's). Unmatched and ambiguous rows are
reported, never guessed. All matched decisions are stored in one transaction; a decision equal to the stored
one changes nothing, so dropping the same file twice does not re-run anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentr_dagster.imports import ImportFileError
from agentr_dagster.imports.asreview import read_asreview_project
from agentr_dagster.imports.identity import normal_doi, normalise_title, titles_alike
from agentr_dagster.imports.labels import (
    LABEL_TABLE_SUFFIXES,
    LabelEntry,
    LabelTable,
    has_decision_column,
    read_label_table,
    table_header,
)
from agentr_dagster.stages.intake import IntakeError, check_input_file, limits_from_env, printable
from agentr_dagster.store.rows import StoreError

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore
    from agentr_dagster.store.rows import LabelRow, PaperRow

ASREVIEW_SUFFIX = ".asreview"
LABEL_FILE_SUFFIXES = (*LABEL_TABLE_SUFFIXES, ASREVIEW_SUFFIX)
# A file called labels.csv or my-decisions.xlsx is a labels file, columns or not (papers_unlabeled.csv is not).
_NAMED_AS_LABELS = {"label", "labels", "decision", "decisions"}


@dataclass
class LabelsImported:
    slug: str
    file: str
    format: str
    rows: int  # decisions read from the file
    matched: int
    added: int
    changed: int
    unchanged: int
    unmatched: list[str] = field(default_factory=list)  # "row 7: record id 123: no paper ..." lines
    skipped: list[str] = field(default_factory=list)  # rows without a decision
    matched_by: dict[str, int] = field(default_factory=dict)  # record_id / doi / title -> rows

    def summary(self) -> str:
        how = ", ".join(f"{n} by {way.replace('_', ' ')}" for way, n in self.matched_by.items() if n)
        return (f"{self.file}: {self.rows} decisions, {self.matched} matched" + (f" ({how})" if how else "")
                + f": {self.added} new, {self.changed} changed, {self.unchanged} unchanged; "
                f"{len(self.unmatched)} unmatched, {len(self.skipped)} rows without a decision")


def is_labels_file(path: Path) -> bool:
    """A drop-folder file holding decisions rather than papers: an ASReview project, or a table whose name
    says labels or whose header has a decision column (an ASReview dataset export has ``included``)."""
    suffix = path.suffix.lower()
    if suffix == ASREVIEW_SUFFIX:
        return True
    if suffix not in LABEL_TABLE_SUFFIXES:
        return False
    if _NAMED_AS_LABELS & set(re.split(r"[^a-z0-9]+", path.stem.lower())):
        return True
    try:
        check_input_file(path, limits_from_env().max_bytes)
        return has_decision_column(table_header(path.read_bytes(), suffix))
    except (IntakeError, OSError):
        return False  # the paper import says what is wrong with it


def read_labels_file(path: Path) -> LabelTable:
    limits = limits_from_env()
    check_input_file(path, limits.max_bytes)
    suffix = path.suffix.lower()
    if suffix not in LABEL_FILE_SUFFIXES:
        raise IntakeError(f"{path.name}: a labels file is {', '.join(LABEL_FILE_SUFFIXES)}, not {suffix!r}")
    try:
        data = path.read_bytes()
        return read_asreview_project(data, limits) if suffix == ASREVIEW_SUFFIX else \
            read_label_table(data, suffix, limits)
    except ImportFileError as exc:
        raise IntakeError(f"{path.name}: {exc}") from exc


def _same_title(a: str, b: str) -> bool:
    """Normalised titles that are one paper's: equal, or nearly (a tool may keep a subtitle or a typo fix)."""
    return titles_alike(a, b, 0.85)


class _PaperIndex:
    """The project's live papers by record id, DOI and normalised title (each name -> paper ids)."""

    def __init__(self, papers: list[PaperRow]):
        self.titles = {p.id: normalise_title(p.title) for p in papers}
        self.by: dict[str, dict[str, list[int]]] = {"record_id": {}, "doi": {}, "title": {}}
        for p in papers:
            for way, key in (("record_id", (p.source_id or "").strip()), ("doi", normal_doi(p.doi)),
                             ("title", self.titles[p.id])):
                if key:
                    self.by[way].setdefault(key, []).append(p.id)

    def match(self, entry: LabelEntry) -> tuple[int | None, str]:
        """(paper id, how) or (None, why not)."""
        title = normalise_title(entry.title) if entry.title else None
        reasons: list[str] = []
        for way, key in (("record_id", entry.record_id), ("doi", entry.doi), ("title", title)):
            if not key:
                continue
            ids = self.by[way].get(key, [])
            name = way.replace("_", " ")
            if title and way != "title" and ids:  # an id or DOI whose paper has another title names another one
                agreeing = [i for i in ids if _same_title(self.titles[i], title)]
                if not agreeing:
                    reasons.append(f"the paper with this {name} has another title")
                    continue
                ids = agreeing
            if len(ids) == 1:
                return ids[0], way
            reasons.append(f"{len(ids)} papers share this {name}" if ids else f"no paper with this {name}")
        return None, "; ".join(reasons) or "names no paper"


def import_labels(store: DomainStore, slug: str, table: LabelTable, file_name: str) -> LabelsImported:
    """Match the table's decisions to the project's papers and store the matched ones (one transaction)."""
    index = _PaperIndex(store.projects.list_papers(slug))
    decisions: list[tuple[int, str, str | None]] = []
    unmatched: list[str] = []
    matched_by = {"record_id": 0, "doi": 0, "title": 0}
    for entry in table.entries:
        paper_id, how = index.match(entry)
        if paper_id is None:
            unmatched.append(printable(f"{entry.describe()}: {how}"))
            continue
        matched_by[how] += 1
        decisions.append((paper_id, "include" if entry.label else "exclude", f"from {file_name} ({entry.where})"))
    if not decisions:
        first = f"; the first: {unmatched[0]}" if unmatched else ""
        raise IntakeError(
            f"{file_name}: none of its {len(table.entries)} decisions names a paper of {slug!r} (by record id, "
            f"DOI or title){first}; add the papers first (`agentr papers add {slug} FILE`)"
        )
    written = store.labels.set_labels(slug, decisions)
    skipped = [printable(f"row {row}: {why}") for row, why in table.skipped]
    return LabelsImported(slug, file_name, table.format, len(table.entries), len(decisions), written.added,
                          written.changed, written.unchanged, unmatched, skipped, matched_by)


def import_labels_file(store: DomainStore, slug: str, path: Path) -> LabelsImported:
    """Read ``path`` (a labels table or an ASReview project) and store its decisions on the project's papers.
    IntakeError (nothing stored) when the file is unusable or matches no paper."""
    store.projects.get_project(slug)  # ProjectNotFound before any parsing work
    return import_labels(store, slug, read_labels_file(path), path.name)


def write_labels_report(archived: Path, imported: LabelsImported) -> Path | None:
    """``<file>.labels.txt`` beside the processed file when some rows were not used: which, and why."""
    if not imported.unmatched and not imported.skipped:
        return None
    report = archived.with_name(archived.name + ".labels.txt")
    lines = [imported.summary(), "", "unmatched (no label stored):", *imported.unmatched,
             "", "rows without a decision:", *imported.skipped]
    report.write_text("\n".join(printable(line) for line in lines) + "\n", encoding="utf-8")
    return report


# -- one decision from the command line: `agentr label SLUG PAPER include|exclude|clear` ------------------------

#: Prefixes that say which name PAPER is (needed only when a bare value names two papers in two ways).
REF_PREFIXES = {"id": "id", "source": "source id", "record": "source id"}


def find_paper(store: DomainStore, slug: str, ref: str) -> PaperRow:
    """The live paper of the project that ``ref`` names: its id in the store (``paper_id``), the record's id in
    the user's own file (the export's ``source_id``), its DOI (bare, ``doi:`` or a doi.org URL), its paper key,
    or its exact title (case-insensitive). ``id:N`` and ``source:X`` say which id is meant. StoreError when
    nothing matches, or when the value names different papers in different ways (never a guess)."""
    ref = (ref or "").strip()
    if not ref:
        raise StoreError("name a paper: its paper_id, source_id, DOI or exact title")
    papers = store.projects.list_papers(slug)
    prefix, _, rest = ref.partition(":")
    way = REF_PREFIXES.get(prefix.strip().lower()) if rest else None
    value = rest.strip() if way else ref
    doi = normal_doi(value)
    folded = value.casefold()
    ways = {  # how each paper is named, in the order a person most likely means
        "id": lambda p: value.isdigit() and p.id == int(value),
        "source id": lambda p: (p.source_id or "").strip() == value,
        "DOI": lambda p: bool(p.doi) and p.doi == doi,
        "paper key": lambda p: p.paper_key == value,
        "title": lambda p: p.title.casefold() == folded,
    }
    found: dict[int, tuple[PaperRow, list[str]]] = {}
    for name, matches in ways.items():
        if way and name != way:
            continue
        for paper in papers:
            if matches(paper):
                found.setdefault(paper.id, (paper, []))[1].append(name)
    if not found:
        raise StoreError(f"project {slug!r} has no live paper {ref!r} (by paper_id, source_id, DOI, paper key or "
                         f"title; see the export's paper_id and source_id columns, or `agentr rerank {slug}`)")
    if len(found) > 1:
        named = "; ".join(f"{' and '.join(how)} {value}: paper_id {p.id} \"{p.title[:60]}\""
                          for p, how in list(found.values())[:5])
        raise StoreError(f"{ref!r} names {len(found)} papers of {slug!r} ({named}); say which: "
                         f"`source:{value}` or `id:{value}` (`id:<paper_id>`, `source:<source_id>`)")
    return next(iter(found.values()))[0]


def set_label(store: DomainStore, slug: str, ref: str, label: str, *, note: str | None = None) -> LabelRow | None:
    """Record (or change) the project's decision on the paper ``ref`` names (:func:`find_paper`);
    ``label="clear"`` removes it (returns None). OrphanError for a deleted project or paper."""
    from agentr_dagster.store.labels import LABELS

    label = (label or "").strip().lower()
    if label not in (*LABELS, "clear"):
        raise ValueError(f"label must be include, exclude or clear, not {label!r}")
    return store.labels.set_label(slug, find_paper(store, slug, ref).id, label, note=note)
