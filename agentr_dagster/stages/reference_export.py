"""The project's candidates as files a reference manager imports (Zotero, EndNote, Mendeley, JabRef): RIS and
BibTeX, each record with its DOI, authors, year, venue, URL and abstract, and the review's own facts in fields those
managers keep: the label (a keyword/tag: ``agentr:include``, ``agentr:exclude``, ``agentr:unlabelled``) and the
relevance with its rank (a note). Written from the score export's rows, best first, so the file's order is the
screening order. The project's own importers read both back (tests/integration/stages/test_reference_export.py).

No Dagster here: ``agentr export --format ris|bib`` calls :func:`write_references`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from agentr_dagster.domain.atomic import write_atomically

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

REFERENCE_FORMATS = {"ris": ".ris", "bib": ".bib"}
ONLY = ("included",)  # --only included: the papers labelled include
_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _text(value) -> str:
    """One line of plain text (a missing value is empty): a RIS value and a BibTeX field hold no line breaks."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    return " ".join(_CONTROL.sub(" ", str(value)).split())


def _label(row: dict) -> str:
    return _text(row.get("label")) or "unlabelled"


def review_note(row: dict, total: int) -> str:
    """The review's facts about one paper, as a note: label, relevance (the calibrated probability of inclusion)
    and rank in the screening order."""
    relevance = row.get("relevance")
    parts = [f"agentr label: {_label(row)}"]
    if relevance is not None and not pd.isna(relevance):
        parts.append(f"relevance P(include) {float(relevance):.4f}")
    parts.append(f"rank {int(row['rank'])} of {total}")
    return "; ".join(parts)


def _authors(row: dict) -> list[str]:
    return [a for a in (_text(name) for name in _text(row.get("authors")).split(";")) if a]


def _year(row: dict) -> str:
    year = row.get("year")
    return "" if year is None or pd.isna(year) else str(int(year))


def to_ris(rows: list[dict], total: int) -> str:
    out: list[str] = []
    for row in rows:
        lines = ["TY  - JOUR", f"ID  - agentr-{int(row['paper_id'])}", f"TI  - {_text(row.get('title'))}"]
        lines += [f"AU  - {name}" for name in _authors(row)]
        for tag, value in (("PY", _year(row)), ("T2", _text(row.get("venue"))), ("DO", _text(row.get("doi"))),
                           ("UR", _text(row.get("url"))), ("AB", _text(row.get("abstract")))):
            if value:
                lines.append(f"{tag}  - {value}")
        lines += [f"KW  - agentr:{_label(row)}", f"N1  - {review_note(row, total)}", "ER  - ", ""]
        out.append("\n".join(lines))
    return "\n".join(out)


def _bib(value: str) -> str:
    """Plain text as a BibTeX value: LaTeX's specials escaped; ``--`` and ``''`` split (LaTeX reads them as a dash
    and a quote); other characters as UTF-8, which BibTeX managers read."""
    escaped = "".join(_BIB_SPECIAL.get(ch, ch) for ch in value)
    return re.sub(r"([-`'])(?=\1)", r"\1{}", escaped)


def to_bibtex(rows: list[dict], total: int) -> str:
    out: list[str] = []
    for row in rows:
        fields = [("title", "{" + _bib(_text(row.get("title"))) + "}"),
                  ("author", " and ".join(_bib(name) for name in _authors(row))), ("year", _year(row)),
                  ("journal", _bib(_text(row.get("venue")))),
                  ("doi", re.sub(r"[{}\s\\]", "", _text(row.get("doi")))),
                  ("url", re.sub(r"[{}\s\\]", "", _text(row.get("url")))),
                  ("abstract", _bib(_text(row.get("abstract")))),
                  ("keywords", f"agentr:{_bib(_label(row))}"), ("note", _bib(review_note(row, total)))]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
        out.append(f"@article{{agentr{int(row['paper_id'])},\n{body}\n}}\n")
    return "\n".join(out)


def reference_rows(frame: pd.DataFrame, abstracts: dict[int, str | None], urls: dict[int, str | None],
                   only: str | None = None) -> list[dict]:
    """The export's rows (best first) with each paper's abstract and URL; ``only="included"`` keeps the papers
    labelled include."""
    if only is not None and only not in ONLY:
        raise ValueError(f"--only takes one of {', '.join(ONLY)}")
    chosen = frame[frame["label"] == "include"] if only == "included" else frame
    rows = chosen.to_dict("records")
    for row in rows:
        row["abstract"], row["url"] = abstracts.get(int(row["paper_id"])), urls.get(int(row["paper_id"]))
    return rows


def write_references(store: DomainStore, slug: str, out_dir: Path, fmt: str,
                     only: str | None = None) -> tuple[Path, int]:
    """Write ``<out_dir>/candidates.<ris|bib>`` (``included.<...>`` with ``only="included"``); returns the path
    and the number of records."""
    from agentr_dagster.stages.exports import scores_dataframe

    frame = scores_dataframe(store, slug)
    papers = store.projects.list_papers(slug)
    rows = reference_rows(frame, {p.id: p.abstract for p in papers}, {p.id: p.url for p in papers}, only)
    text = (to_ris if fmt == "ris" else to_bibtex)(rows, len(frame))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{only or 'candidates'}{REFERENCE_FORMATS[fmt]}"
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path, len(rows)
