"""A paper's identity: its paper key (DOI, else normalised title and year), title key and content hash.

:func:`paper_key` is the one key every path into a project uses (file imports, lake retrieval), so the same paper
arriving both ways is one paper. Pure logic: no Dagster imports.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from agentr_dagster.domain.contracts import PaperRecord

_NON_WORD = re.compile(r"[\W_]+")


def normalise_title(title: str) -> str:
    """Case-folded, accents removed, punctuation to single spaces: "The Café, Revisited!" -> "the cafe revisited"."""
    text = unicodedata.normalize("NFKD", title.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    normal = _NON_WORD.sub(" ", text).strip()
    return normal or " ".join(title.casefold().split())



PAPER_KEY_MAX_CHARS = 255  # the store's papers.paper_key column (PostgreSQL refuses a longer value)


def title_key(title: str, year: int | None) -> str:
    """``t:<normalised title>|<year>``, unbounded: for matching titles exactly (:func:`paper_key` bounds it)."""
    return f"t:{normalise_title(title)}|{year if year is not None else ''}"


def paper_key(record: PaperRecord) -> str:
    """Stable de-duplication key: ``doi:<doi>`` when a DOI is known, else ``t:<normalised title>|<year>``;
    at most PAPER_KEY_MAX_CHARS characters. The one key every path into a project uses (file imports, lake
    retrieval), so the same paper arriving both ways is one paper."""
    return paper_key_for(record.doi, None if record.doi else title_key(record.title, record.year))


def paper_key_for(doi: str | None, tkey: str | None) -> str:
    """:func:`paper_key` from the record's DOI or, without one, its :func:`title_key` (for callers that keep
    the title key too). A longer key keeps its start and ends in a hash of the whole, so distinct long keys
    (a 1,000-character title) stay distinct."""
    key = f"doi:{doi}" if doi else tkey
    if key is None:
        raise ValueError("paper_key_for needs a DOI or a title key")
    if len(key) <= PAPER_KEY_MAX_CHARS:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{key[: PAPER_KEY_MAX_CHARS - len(digest) - 1]}#{digest}"


def content_hash(record: PaperRecord) -> str:
    """sha256 (hex) of the whitespace/Unicode-normalised title and abstract: the text scoring depends on."""
    title = " ".join(unicodedata.normalize("NFC", record.title).split())
    abstract = " ".join(unicodedata.normalize("NFC", record.abstract or "").split())
    payload = f"{title}\n{abstract}".encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(payload).hexdigest()
