"""Lexical text utilities for the offline backend: normalisation, sentences, tokens, stems and key phrases.

Everything here is pure Python, deterministic and explainable:

* :func:`normalize` - Unicode NFKC, control / zero-width characters removed, whitespace collapsed.
* :func:`split_sentences` - rule-based sentence splitter (., !, ?, newlines; keeps "e.g." and "i.e." intact).
* :func:`tokenize` - word tokens (letters/digits, inner hyphens kept: "real-time", "state-of-the-art").
* :func:`stem` - a light suffix stripper (plurals, -ing, -ed) used only for matching, never for display.
* :func:`extract_phrases` - RAKE/YAKE-style key phrases: maximal runs of content words between stopwords and
  punctuation (capped at four words), scored by frequency, word co-occurrence degree and position of first
  occurrence, then de-duplicated by stem containment.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

# --------------------------------------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Function words (English). They split candidate phrases and never appear in one.
FUNCTION_WORDS = _words(
    """
    a about above across after afterwards again against all almost alone along already also although
    always am among amongst an and another any anyhow anyone anything anyway anywhere are around as at
    be became because become becomes becoming been before beforehand behind being below beside besides
    between beyond both but by can cannot could did do does doing done down during each eg e.g either
    else elsewhere enough etc even ever every everyone everything everywhere except few for former
    formerly from further furthermore had has have having he hence her here hereby herein hers herself
    him himself his how however i ie i.e if in indeed into is it its itself just last latter latterly
    least less many may me meanwhile might mine more moreover most mostly much must my myself namely
    neither never nevertheless next no nobody none noone nor not nothing now nowhere of off often on
    once one only onto or other others otherwise our ours ourselves out over own per perhaps please
    quite rather re same seem seemed seeming seems several she should since so some somehow someone
    something sometime sometimes somewhere still such than that the their theirs them themselves then
    thence there thereafter thereby therefore therein thereupon these they this those though through
    throughout thru thus to together too toward towards under until up upon us very via was we well were
    what whatever when whence whenever where whereafter whereas whereby wherein whereupon wherever
    whether which while whither who whoever whole whom whose why will with within without would yet you
    your yours yourself yourselves let lets within upon amid amidst unlike like versus vs toward onto
    thereof whereof two three four five six seven eight nine ten first second third et al
    """
)

#: Function words of a few other European languages, so non-English abstracts still split into phrases.
FOREIGN_FUNCTION_WORDS = _words(
    """
    der die das und von zu mit auf für ist im den des ein eine einer eines einem nicht sich dem als auch
    werden aus hat dass sie nach wird bei noch wie über zum zur haben nur oder aber vor bis mehr durch
    dann soll wir ihr sind kann können mittels sowie unter le la les du un une et est que qui dans pour
    sur avec au aux ces il elle nous vous ils sont pas plus ou cette leur leurs el los las del y en un
    una por para es se su al lo como más pero sus ya este esta entre cuando muy sobre también il di da
    della delle dei degli nel nella per che non uma um os as dos das em na no ao com não
    """
)

#: Academic filler: verbs, evaluative adjectives and discourse nouns that carry no topic. They also split
#: phrases ("the proposed model outperforms baselines" -> "model", "baselines").
FILLER_WORDS = _words(
    """
    accurate accurately reasonable comprehensive unified holistic powerful hard easy difficult unable
    lose loses lost end ends ended happen happens happened makes
    exhibit exhibits exhibited capture captures captured fail fails failed run runs ran depend depends
    affect affects affected reduce reduces reduced increase increases increased decrease decreases
    decreased recover recovers recovered treat treats treated support supports supported ensure ensures
    ensured produce produces produced generate generates generating generated predict predicts predicted
    identify identifies identified determine determines determined establish establishes established
    assess assesses assessed measure measures measured observe observes observed estimate estimates
    estimated represent represents represented remain contribute contributes rely relies relied handle
    handles handled solve solves solved focus exist exists emerged emerge emerges tend tends become
    benefit benefits facilitate facilitates facilitated integrate integrates integrated explain explains
    explained adapt adapts adapted allows extend extends extended serve serves served take takes taken
    need needs needed want wants try tries tried aims seeks offers achieves
    paper papers work works study studies article articles manuscript research researchers author
    authors propose proposes proposed proposing present presents presented presenting introduce
    introduces introduced introducing show shows showed shown showing demonstrate demonstrates
    demonstrated demonstrating describe describes described describing discuss discusses discussed
    report reports reported reporting find finds found finding investigate investigates investigated
    investigating explore explores explored exploring examine examines examined examining address
    addresses addressed addressing consider considers considered focus focuses focused achieve achieves
    achieved achieving obtain obtains obtained improve improves improved improving outperform
    outperforms outperformed outperforming evaluate evaluates evaluated evaluating use uses used using
    utilize utilizes utilized utilizing utilise utilises utilised leverage leverages leveraged
    leveraging employ employs employed employing apply applies applied applying adopt adopts adopted
    adopting enable enables enabled enabling allow allows allowed allowing provide provides provided
    providing require requires required requiring remain remains remained make makes made making yield
    yields yielded give gives gave given based include includes included including contain contains
    contained involve involves involved develop develops developed developing design designs designed
    designing build builds built building perform performs performed aim aims aimed aiming seek seeks
    sought help helps helped lead leads led result results resulted conclude concludes concluded suggest
    suggests suggested indicate indicates indicated reveal reveals revealed compare compares compared
    comparing achieve offers offer offered combine combines combined combining called named known termed
    referred can't won't isn't aren't doesn't don't novel new existing recent recently current currently
    various different several significant significantly important importantly key main major many
    numerous overall previous prior promising effective effectively efficiently extensive extensively
    experimental experimentally better best good great able possible potential potentially specific
    specifically particular particularly typically generally widely commonly often usually first finally
    respectively furthermore moreover additionally thereby simple simply state-of-the-art stateof-the-
    art sota etc approach approaches way ways aspect aspects issue issues example examples case cases
    number numbers kind kinds set sets part parts lot lots terms term order addition respect basis fact
    means end years year today day days people thing things point points area areas experiment
    experiments evaluation evaluations findings conclusion conclusions contribution contributions
    insight insights implication implications evidence proposal question questions purpose goal goals
    objective objectives aim result performance performances comparison comparisons baseline baselines
    benchmark benchmarks improvement improvements accuracy outcome outcomes effect effects impact
    impacts total
    """
)

#: Generic nouns: allowed inside a phrase, but a phrase made only of generic words (and weak modifiers) is
#: dropped ("the model", "this problem", "large data").
GENERIC_WORDS = _words(
    """
    method methods methodology methodologies technique techniques framework frameworks model models
    system systems tool tools scheme schemes strategy strategies solution solutions mechanism mechanisms
    procedure procedures process processes task tasks problem problems challenge challenges setting
    settings scenario scenarios application applications domain domains field fields data dataset
    datasets analysis analyses based driven oriented aware end-to-end type types
    """
)

#: Trimmed from the right edge of a phrase ("a hybrid clustering framework" -> "hybrid clustering";
#: "results are high" -> dropped). Nouns such as "model" or "system" are kept ("language model").
TRIM_RIGHT = _words(
    """
    method methods methodology methodologies technique techniques framework frameworks scheme schemes
    strategy strategies solution solutions mechanism mechanisms procedure procedures tool tools high
    higher highest low lower lowest large larger largest small smaller smallest fast faster
    """
)
WEAK_MODIFIERS = _words("high higher highest low lower lowest large larger largest small smaller smallest")

STOPWORDS = FUNCTION_WORDS | FOREIGN_FUNCTION_WORDS | FILLER_WORDS

#: "-ly" words that are not adverbs (kept as content words).
_LY_NOUNS = _words("anomaly anomalies assembly family families italy supply reply monopoly july rally ally")

# --------------------------------------------------------------------------------------------------------
# Normalisation, sentences, tokens
# --------------------------------------------------------------------------------------------------------

_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,200})?/?>")
_HYPHEN_BREAK_RE = re.compile(r"(\w)-[ \t]*\r?\n[ \t]*(\w)")
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff\ufff0-\uffff]")
_ZERO_WIDTH_RE = re.compile("[\u200b-\u200f\u2028\u2029\u2060-\u2064\ufeff\u00ad]")
_SPACE_RE = re.compile(r"\s+")
_DASHES_RE = re.compile("[\u2010\u2011\u2012\u2013\u2212]")


def normalize(text: str) -> str:
    """NFKC-normalise, drop control/zero-width characters, unify dashes, collapse whitespace."""
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text)
    text = _TAG_RE.sub(" ", text)
    text = _ZERO_WIDTH_RE.sub("", text)
    text = _DASHES_RE.sub("-", text)
    text = _CONTROL_RE.sub(" ", text)
    return _SPACE_RE.sub(" ", text).strip()


# A sentence ends at . ! ? (optionally followed by a closing quote/bracket) followed by whitespace and an
# upper-case letter, digit or opening bracket; or at a newline in the raw text; or at " - " list separators.
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "fig.", "eq.", "approx.", "resp.", "no.")
_SENT_BOUNDARY_RE = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F\u0370-\u1FFF])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (deterministic, rule based). Empty input gives an empty list.

    Hard-wrapped text is re-joined ("scien-\\ntific" -> "scientific"); blank lines separate paragraphs.
    """
    out: list[str] = []
    text = _HYPHEN_BREAK_RE.sub(r"\1\2", text)
    for block in re.split(r"\r?\n[ \t]*\r?\n", text):
        block = normalize(block)
        if not block:
            continue
        start = 0
        for match in _SENT_BOUNDARY_RE.finditer(block):
            candidate = block[start : match.start()].strip()
            lowered = candidate.casefold()
            if any(lowered.endswith(abbr) for abbr in _ABBREVIATIONS):
                continue
            if candidate:
                out.append(candidate)
            start = match.end()
        tail = block[start:].strip()
        if tail:
            out.append(tail)
    return out


#: A token: letters/digits with optional inner hyphens or apostrophes ("real-time", "model's").
_TOKEN_RE = re.compile(r"[^\W_](?:[^\W_]|[-'](?=[^\W_]))*")
#: Phrase-breaking punctuation inside a sentence.
_BREAK_RE = re.compile(r"[,;:()\[\]{}\"“”«»|/!?…=+<>&*#@~^%$§]|\s-\s|\.(?=\s|$)")
MAX_TOKEN_CHARS = 40


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens; possessive 's dropped; absurdly long 'words' (URLs, hashes) skipped."""
    tokens = []
    for raw in _TOKEN_RE.findall(text):
        if len(raw) > MAX_TOKEN_CHARS:
            continue
        tok = raw.casefold()
        if tok.endswith("'s"):
            tok = tok[:-2]
        tokens.append(tok)
    return tokens


@lru_cache(maxsize=200_000)
def is_stopword(token: str) -> bool:
    """Function words, academic filler, pure numbers, single characters and -ly adverbs."""
    t = token.casefold()
    if t in STOPWORDS or len(t) < 2 or t.replace("-", "").isdigit():
        return True
    return t.endswith("ly") and len(t) > 5 and t not in _LY_NOUNS


_VOWELS = set("aeiouy")


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """Light, deterministic suffix stripping for matching ("networks"->"network", "learning"->"learn")."""
    t = token.casefold()
    if len(t) <= 3:
        return t
    if t.endswith("ies") and len(t) > 4:
        t = t[:-3] + "y"
    elif t.endswith("sses"):
        t = t[:-2]
    elif t.endswith("s") and not t.endswith(("ss", "us", "is", "ys")) and len(t) > 3:
        t = t[:-1]
    for suffix in ("ing", "ed"):
        if t.endswith(suffix) and len(t) - len(suffix) >= 4 and _VOWELS & set(t[: -len(suffix)]):
            t = t[: -len(suffix)]
            if len(t) > 3 and t[-1] == t[-2] and (t[-1] not in "lsz" or t.endswith("ell")):
                t = t[:-1]
            break
    if t.endswith("isation"):
        t = t[:-7] + "ization"
    elif t.endswith("ise") and len(t) > 6:
        t = t[:-3] + "ize"
    return t


def stems(text_or_tokens: str | Iterable[str]) -> list[str]:
    """Stems of the content tokens (stopwords removed), in order."""
    toks = tokenize(text_or_tokens) if isinstance(text_or_tokens, str) else list(text_or_tokens)
    return [stem(t) for t in toks if not is_stopword(t)]


def truncate(text: str, limit: int) -> str:
    """Cut text to at most ``limit`` characters at a word boundary, marking the cut with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: max(1, limit - 1)]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


# --------------------------------------------------------------------------------------------------------
# Candidate phrases and key-phrase extraction
# --------------------------------------------------------------------------------------------------------

MAX_PHRASE_WORDS = 4

#: Auxiliaries: an "-ed" word right after one of these is a verb ("have been reviewed"), not a phrase.
_AUX = _words("be been being is are was were has have had am get gets got")
#: A word right after a relative pronoun is (almost always) a verb: "models that capture ...".
_RELATIVE = _words("that which who")
#: Discourse nouns re-attached after an adjective-looking word ("empirical studies", "qualitative analysis").
_REATTACH = _words(
    "study studies approach approaches work analysis evaluation experiments research review reviews survey "
    "surveys methods performance outcomes effects"
)
_ADJ_SUFFIXES = ("ical", "ive", "ous", "able", "ible", "ful", "ary")


@dataclass
class Occurrence:
    """One occurrence of a candidate phrase: its sentence, and the words just before it (its cue context)."""

    sentence: int
    before: tuple[str, ...]  # up to three lower-cased tokens preceding the run inside the same clause
    after: tuple[str, ...]  # up to two lower-cased tokens following it
    run: tuple[str, ...] = ()  # the lower-cased run before trimming (keeps "framework", "method" heads)


@dataclass
class Phrase:
    """A candidate key phrase with its statistics. ``key`` is the tuple of stems used for identity."""

    key: tuple[str, ...]
    words: tuple[str, ...]  # display words of the first occurrence (acronyms keep their case)
    occurrences: list[Occurrence] = field(default_factory=list)
    score: float = 0.0

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def first_sentence(self) -> int:
        return self.occurrences[0].sentence if self.occurrences else 0


@lru_cache(maxsize=200_000)
def _display(raw: str) -> str:
    """Keep acronyms / mixed-case identifiers (LLM, BERT, GPT-4, mRNA); lower-case ordinary words."""
    core = raw[:-2] if raw.endswith(("'s", "'S")) else raw
    if len(core) >= 2 and core[1:] != core[1:].lower():
        return core
    return core.casefold()


def _trim_generic(words: list[str]) -> list[str]:
    """Trim generic heads / weak modifiers from the right edge; drop phrases made only of generic words."""
    hi = len(words)
    while hi > 0 and words[hi - 1].casefold() in TRIM_RIGHT:
        hi -= 1
    words = words[:hi]
    for w in words:
        low = w.casefold()
        if low not in GENERIC_WORDS and low not in WEAK_MODIFIERS:
            return words
    return []


def candidate_runs(sentences: list[str]) -> list[tuple[int, list[str], list[str], list[str]]]:
    """Maximal runs of content words per clause: (sentence index, display words, before ctx, after ctx).

    Runs longer than :data:`MAX_PHRASE_WORDS` are split into windows of that size, aligned on the right.
    """
    runs = []
    for s_idx, sentence in enumerate(sentences):
        for clause in _BREAK_RE.split(sentence):
            raw_tokens = [t for t in _TOKEN_RE.findall(clause) if len(t) <= MAX_TOKEN_CHARS]
            lowered = [t.casefold() for t in raw_tokens]
            stop = [
                is_stopword(t)
                or (t.endswith("ed") and k > 0 and lowered[k - 1] in _AUX)
                or (k > 0 and lowered[k - 1] in _RELATIVE)
                for k, t in enumerate(lowered)
            ]
            i = 0
            while i < len(raw_tokens):
                if stop[i]:
                    i += 1
                    continue
                j = i
                while j < len(raw_tokens) and not stop[j]:
                    j += 1
                if (
                    j < len(raw_tokens)
                    and lowered[j] in _REATTACH
                    and lowered[j - 1].endswith(_ADJ_SUFFIXES)
                    and j - i < MAX_PHRASE_WORDS
                ):
                    j += 1
                # Long runs are cut into windows aligned on the right, where English noun phrases keep their
                # head ("treat attention deficit hyperactivity disorder" -> "attention ... disorder").
                bounds = []
                end = j
                while end > i:
                    start = max(i, end - MAX_PHRASE_WORDS)
                    bounds.append((start, end))
                    end = start
                for start, end in reversed(bounds):
                    words = [_display(t) for t in raw_tokens[start:end]]
                    before = lowered[max(0, start - 3) : start]
                    after = lowered[end : end + 2]
                    runs.append((s_idx, words, before, after))
                i = max(j, i + 1)
    return runs


def collect_phrases(sentences: list[str]) -> list[Phrase]:
    """Candidate phrases (generic heads trimmed) with occurrences, in order of first appearance."""
    table: dict[tuple[str, ...], Phrase] = {}
    for s_idx, words, before, after in candidate_runs(sentences):
        trimmed = _trim_generic(words)
        if not trimmed:
            continue
        key = tuple(stem(w) for w in trimmed)
        phrase = table.get(key)
        if phrase is None:
            phrase = table[key] = Phrase(key=key, words=tuple(trimmed))
        run = tuple(w.casefold() for w in words)
        phrase.occurrences.append(Occurrence(s_idx, tuple(before), tuple(after), run))
    return list(table.values())


_LENGTH_WEIGHT = {1: 0.75, 2: 1.25, 3: 1.2, 4: 0.95}


def score_phrases(phrases: list[Phrase], n_sentences: int) -> list[Phrase]:
    """Score phrases in place and return them best first.

    score = (tf(phrase) + mean over its words of RAKE degree/frequency) x position x length weight, where
    position = 1 + 1 / (1 + first sentence index) (earlier, title-like mentions weigh more) and the length
    weight prefers two- and three-word phrases. Ties break on first occurrence, then alphabetically.
    """
    word_freq: dict[str, int] = {}
    word_degree: dict[str, int] = {}
    for phrase in phrases:
        n = len(phrase.occurrences)
        for w in phrase.key:
            word_freq[w] = word_freq.get(w, 0) + n
            word_degree[w] = word_degree.get(w, 0) + n * len(phrase.key)
    for phrase in phrases:
        tf = len(phrase.occurrences)
        rake = sum(word_degree[w] / word_freq[w] for w in phrase.key) / len(phrase.key)
        position = 1.0 + 1.0 / (1.0 + phrase.first_sentence)
        spread = len({o.sentence for o in phrase.occurrences}) / max(1, n_sentences)
        phrase.score = (tf + 0.5 * rake + spread) * position * _LENGTH_WEIGHT.get(len(phrase.key), 0.9)
    order = {id(p): i for i, p in enumerate(phrases)}
    return sorted(phrases, key=lambda p: (-round(p.score, 9), order[id(p)], p.text))


def is_near_duplicate(key: tuple[str, ...], chosen: Iterable[tuple[str, ...]]) -> bool:
    """True when ``key`` equals, contains or is contained (as a stem set) in an already chosen key."""
    s = set(key)
    for other in chosen:
        o = set(other)
        if s <= o or o <= s:
            return True
    return False


def top_phrases(phrases: list[Phrase], k: int, exclude: Iterable[tuple[str, ...]] = ()) -> list[Phrase]:
    """The ``k`` best phrases (input ranked), skipping near duplicates of each other and of ``exclude``."""
    chosen: list[tuple[str, ...]] = list(exclude)
    out: list[Phrase] = []
    for phrase in phrases:
        if len(out) >= k:
            break
        if is_near_duplicate(phrase.key, chosen):
            continue
        chosen.append(phrase.key)
        out.append(phrase)
    return out


def extract_phrases(text: str) -> list[Phrase]:
    """All candidate key phrases of ``text``, scored and ranked best first."""
    sentences = split_sentences(text)
    return score_phrases(collect_phrases(sentences), len(sentences))


def key_of(text: str) -> tuple[str, ...]:
    """The stem key of a display phrase (as produced by :func:`collect_phrases`)."""
    toks = tokenize(text)
    return tuple(stem(t) for t in toks if not is_stopword(t)) or tuple(stem(t) for t in toks)


ACRONYM_RE = re.compile(r"([A-Za-z][\w-]*(?:\s+[\w-]+){0,6})\s*\(\s*([A-Z][A-Za-z0-9-]{1,9}s?)\s*\)")


def acronyms(text: str) -> list[tuple[str, str]]:
    """(long form, acronym) pairs from "large language models (LLMs)" patterns, checked by initials."""
    out: list[tuple[str, str]] = []
    for match in ACRONYM_RE.finditer(text):
        words = match.group(1).split()
        acro = match.group(2)
        letters = acro.rstrip("s").replace("-", "")
        letters = "".join(c for c in letters if c.isalpha())
        n = len(letters)
        if n < 2 or n > len(words):
            continue
        # The shortest tail of words whose initials spell the acronym (hyphenated parts count separately).
        for size in range(1, len(words) + 1):
            tail = words[-size:]
            initials = "".join(part[0] for w in tail for part in w.split("-") if part)
            if initials.casefold() == letters.casefold() or "".join(w[0] for w in tail).casefold() == (
                letters.casefold()
            ):
                long_form = " ".join(tail)
                if not is_stopword(tail[0]) and not is_stopword(tail[-1]):
                    pair = (long_form.casefold(), acro)
                    if pair not in out:
                        out.append(pair)
                break
    return out


# --------------------------------------------------------------------------------------------------------
# Shared by the screening ranker and the paper lake: cell cleaning, stop words, plural stemming
# --------------------------------------------------------------------------------------------------------

# control and zero-width characters and whitespace runs all become one space (one pass)
_CELL_BLANKS = re.compile(r"[\s\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060-\u2064\ufeff\ufffd]+")
_CELL_TAGS = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,200})?/?>")


def clean_cell(value: object) -> str:
    """Any cell (None, NaN, numbers, bytes, HTML, control characters) as clean single-spaced text."""
    if value is None:
        return ""
    if isinstance(value, float) and value != value:  # NaN
        return ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = str(value)
    if not text:
        return ""
    if not text.isascii():  # ASCII is already NFKC
        text = unicodedata.normalize("NFKC", text)
    if "<" in text:
        text = _CELL_TAGS.sub(" ", text)
    return _CELL_BLANKS.sub(" ", text).strip()


# A compact English stop list for retrieval (BM25's IDF does the rest).
RETRIEVAL_STOPWORDS = _words("""a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not of off on once only or other our ours ourselves out over own same she should so some
    such than that the their theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours yourself yourselves
    may might must shall upon via per within without among whether either neither therefore thus however""")


def plural_stem(word: str) -> str:
    """Plural stripping only (and -ies → -y): conservative, so that a term rarely merges two meanings."""
    n = len(word)
    if n > 4 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if n > 4 and word.endswith("es") and word[-3] in "sxz" and not word.endswith("ses"):
        return word[:-2]
    if n > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ys")):
        return word[:-1]
    return word
