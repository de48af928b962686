"""The concept blocks and the plan that combines them into a Boolean query, and how a term is written."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agentr_dagster.domain.specificity import any_share, general_zipf
from agentr_dagster.domain.word_class import noun_lemmas, plural_forms, word_classes
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _JOIN,
    BROAD_SHARE,
    MAX_TERMS_PER_BLOCK,
    QUERY_SHAPE,
    QUERY_SHAPES,
)


@dataclass
class ConceptBlock:
    """One facet: its name, a label (the concept as the question says it) and its search terms."""

    facet: str
    label: str
    terms: list[str] = field(default_factory=list)
    required: bool = True
    n_items: int = 1  # how many variants the question itself lists
    generic: bool = False  # every term common English: never the main block, never required
    items: list[str] = field(default_factory=list)  # those variants, as the question writes them
    independent: bool = False  # a second subject of an abstract's title: AND-ed with the main block
    side: bool = False  # named only by a question's side clause ("..., and how is it measured?"): optional
    aspect: bool = False  # "the prevalence of X", "the pharmacokinetics of X": never the main block before X
    in_query: bool = True  # an optional block the ``main_or_specific_rest`` shape leaves out (:func:`_mark_rest`)
    setting: bool = False  # after "in" / "among" ("... in small samples", "... in rodents"): where, not what
    kinds: list[str] = field(default_factory=list)  # terms of kinds the text names elsewhere (:func:`_join_kinds`)
    # an abstract names the class's members: a list of names or examples ("X such as A, B") joined the block
    members: bool = False
    # the animals the studies are done on ("in rodents", "animal models of X"): AND-ed with the whole query, as an
    # animal-study filter is; a study of the topic in people is not one of them
    organism: bool = False
    # terms the background alone judged broad (common in its records, not in English): an AND narrows them again
    background_broad: list[str] = field(default_factory=list)
    # people by where the text names them: an agent's noun after "among" ("among air traffic controllers",
    # "among school inspectors"), whether its base is a verb or not (:func:`~.who._who_block`)
    agents: bool = False

    def query(self, max_terms: int = MAX_TERMS_PER_BLOCK) -> str:
        chosen = _dedupe(_sendable(t) for t in self.terms)[:max_terms]
        terms = _dedupe(v for t in chosen for v in (t, *_plural_variant(t)))
        return terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"


@dataclass
class ConceptPlan:
    blocks: list[ConceptBlock]
    design: ConceptBlock | None = None
    dropped: list[str] = field(default_factory=list)  # sentences or clauses left out, for the record

    def main(self) -> ConceptBlock | None:
        return next((b for b in self.blocks if b.required), self.blocks[0] if self.blocks else None)

    def boolean_query(self, shape: str = QUERY_SHAPE, max_chars: int = 2000, broad_share: float | None = None) -> str:
        """The blocks combined as ``shape`` (see :data:`QUERY_SHAPES`), within ``max_chars`` (the contract's
        bound: fewer terms per block)."""
        if shape not in QUERY_SHAPES:
            raise ValueError(f"unknown query shape {shape!r}; one of {QUERY_SHAPES}")
        for max_terms in (MAX_TERMS_PER_BLOCK, 25, 15, 8, 4, 2, 1):
            query = self._query(shape, max_terms, BROAD_SHARE if broad_share is None else broad_share)
            if len(query) <= max_chars:
                return query
        return query[:0]

    def _query(self, shape: str, max_terms: int, broad_share: float = BROAD_SHARE) -> str:
        main = self.main()
        if main is None:
            return ""
        organisms = [b for b in self.blocks if b.organism and b is not main]
        if organisms:  # a filter when required, else no part of the query (never "X OR rats")
            inner = ConceptPlan([b for b in self.blocks if b not in organisms], self.design, self.dropped)
            organisms = [b for b in organisms if b.required]
            query = inner._query(shape, max_terms, broad_share)
            animals = ConceptBlock("population", "organisms", _dedupe(t for b in organisms for t in b.terms))
            return f"{_grouped(query)} AND {animals.query(max_terms)}" if query and organisms else query
        rest = [b for b in self.blocks if b is not main]
        a = main.query(max_terms)
        independent = [b for b in rest if b.independent]
        if independent:  # the title's subjects, each an OR-group of its variants, AND-ed
            return " AND ".join([a, *(b.query(max_terms) for b in independent)])
        if shape == "main_or_required_rest":
            rest = [b for b in rest if b.required]
        if shape == "main_or_specific_rest":
            rest = [b for b in rest if b.required or b.in_query]
        if shape == "main" or not rest:
            return a
        parts = [b.query(max_terms) for b in rest]

        def all_of(qs: list[str]) -> str:
            return qs[0] if len(qs) == 1 else "(" + " AND ".join(qs) + ")"

        if shape in ("main_or_rest", "main_or_required_rest", "main_or_specific_rest"):
            return f"{a} OR {all_of(parts)}" if parts else a
        if shape == "two_of":
            everyone = [a, *parts]
            return " OR ".join(f"({x} AND {y})" for i, x in enumerate(everyone) for y in everyone[i + 1:])
        if shape == "main_unless_broad" and any_share(main.terms[:max_terms]) <= broad_share:
            return a
        if shape in ("main_and_any", "main_unless_broad"):
            others = _dedupe(t for b in rest for t in b.terms)
            return a + " AND " + ConceptBlock("other", "other concepts", others).query(max_terms * len(rest))
        if shape == "any":
            return " OR ".join([a, *parts])
        # main_or_two_of_rest
        if len(parts) < 2:
            return " OR ".join([a, *parts])
        return a + " OR " + " OR ".join(f"({x} AND {y})" for i, x in enumerate(parts) for y in parts[i + 1:])


def _grouped(query: str) -> str:
    """``query`` as one operand of an AND: in brackets unless it is one term or one bracketed group already."""
    if " " not in query or query.startswith('"') and query.endswith('"') and query.count('"') == 2:
        return query  # one term, or one phrase
    depth = 0
    for i, ch in enumerate(query):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(query) - 1:
            return f"({query})"
    return query if query.startswith("(") else f"({query})"


#: The plural is searched beside a term only where English uses it: at most this much rarer (Zipf) than the singular
#: ("processes" 4.4 beside "process" 5.3, "exposures" 3.3 beside 4.4; not "anxieties" 3.1 beside 4.5, "researches").
PLURAL_VARIANT_GAP = 1.2


def _plural_variant(term: str) -> tuple[str, ...]:
    """The plural of a term written whole whose last word is a singular noun ("software process", ``proton``): a
    source matches whole words, so ``"charged particle"`` never finds "charged particles" (the bench's substring
    matcher did). None for a stem, a group, an acronym or code, a word the lexicon reads as no singular noun, or a
    plural English seldom uses."""
    if "*" in term or term.startswith("(") or " AND " in term:
        return ()
    quoted = term.startswith('"')
    words = term.strip('"').split(" ")
    head, _, last = words[-1].rpartition("-")
    if not last.isalpha() or not last.islower() or len(last) < 3 or "-" in head:  # "object-in-context": no
        return ()
    low = last.casefold()
    if low not in noun_lemmas(low) and word_classes(low):  # a word the lexicon lacks: a technical noun
        return ()
    # the commonest of the lexicon's plurals ("locus": loci, not "loca", a word of another language)
    plural = max((f for f in plural_forms(low) if f != low and f.isalpha()), key=general_zipf, default="")
    said_zipf = general_zipf(plural)  # 0: a form English never writes ("vorlixamabs", "adherences")
    if not plural or not said_zipf or said_zipf < general_zipf(low) - PLURAL_VARIANT_GAP:
        return ()
    said = " ".join([*words[:-1], f"{head}-{plural}" if head else plural])
    return (f'"{said}"' if quoted else said,)


def _sendable(term: str) -> str:
    """``term`` with a wildcard only where every source's engine takes one: after 4 letters or more of a plain
    word. The translation leaves a stem it cannot send unconstrained, which drops the whole OR it sits in (in
    ``A OR (B AND C)``: the whole query); so ``kid*`` goes as ``kid`` and ``non-stimulant*`` as ``non-stimulant``.
    A bare phrase (a seed study's mined "allergic rhinitis") goes quoted: unquoted, its words would be AND-ed."""
    if " " in term and not term.startswith(('"', "(")):
        term = '"' + term.replace('"', " ").strip() + '"'
    if "*" not in term or term.startswith("("):  # a term of words AND-ed: its stems are long ones already
        return term
    words = [w if re.fullmatch(r"\w{4,}\*", w.strip('"')) else w.replace("*", "") for w in term.split(" ")]
    return " ".join(words)


def _render(term: str) -> str:
    if _JOIN in term and "*" in term:  # a stem cut inside a name of several words ("acceptance and commitm*")
        return ""
    term = term.replace('"', "").replace(_JOIN, " ").strip()
    if not term:
        return ""
    return f'"{term}"' if " " in term else term


def _dedupe(terms: Iterable[str]) -> list[str]:
    out: list[str] = []
    for t in terms:
        if t and t.casefold() not in {o.casefold() for o in out}:
            out.append(t)
    # a term whose wildcard prefix covers another makes that one redundant ("teacher*" covers "teachers")
    def prefix(t: str) -> str:
        return t.strip('"').rstrip("*").casefold()

    kept = []
    for t in out:
        covered = any(o is not t and o.strip('"').endswith("*") and prefix(t).startswith(prefix(o))
                      and (" " in prefix(o)) == (" " in prefix(t)) for o in out)
        if not covered:
            kept.append(t)
    return kept
