"""What a title, an eligibility sentence or a question's frame says about the blocks: which subject is the
main one, which blocks are AND-ed, which frame words are no concept."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import Background, any_share, general_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import is_graded_adjective, quality_nouns, word_classes
from agentr_dagster.llm.offline.concepts.blocks import (
    _EFFECT_ADJECTIVES,
    _WHO_FIRST,
    NAME_ZIPF,
    _agents_among,
    _is_name,
    _join_named_list,
    _join_names_sharing_a_modifier,
)
from agentr_dagster.llm.offline.concepts.clauses import (
    _COMPARED_MODIFIERS_RE,
    _acronym_pairs,
    _chunks,
    _compared_modifiers,
    _gerunds_after_plurals,
    _is_meta_item,
    _split_items,
    _switched_from,
)
from agentr_dagster.llm.offline.concepts.generic import _drop_generic_terms, _generic_block, _generic_label, _phrase_key
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _dedupe, _render
from agentr_dagster.llm.offline.concepts.sentences import _RESULT_RE, _REVIEW_METHOD_RE, _restore_headings
from agentr_dagster.llm.offline.concepts.spelling import _spellings
from agentr_dagster.llm.offline.concepts.terms import (
    _EXPOSURE_NOUNS,
    DEGREE_MODIFIERS,
    EPONYM_HEADS,
    EVERYDAY_WORD_ZIPF,
    HEAD_ALONE_ZIPF,
    RARE_PART_ZIPF,
    _adverb,
    _phrase_terms,
    _process_noun,
    _run_terms,
    _runs,
    _singular_tail,
    item_terms,
)
from agentr_dagster.llm.offline.concepts.variants import _variants
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _ANSWER_KINDS,
    _BOUNDARY_RE,
    _COMPARATOR_CUE_RE,
    _DESIGN_WORDS,
    _EXCLUSION_ANY_RE,
    _EXCLUSION_START_RE,
    _FUNCTION,
    _GENE_HEADS,
    _GENETIC_FRAME_WORDS,
    _JOIN,
    _JOINING_PREFIXES,
    _SETTING_CUE_RE,
    _SPECIES_WORDS,
    _WORD,
    DEMOGRAPHIC_WORDS,
    DESIGN_TERMS,
    GENERIC_HEADS,
    GENERIC_ZIPF,
    MAX_INDEPENDENT_BLOCKS,
    MAX_TERMS_PER_BLOCK,
    META_PHRASES,
    META_WORDS,
    POPULATION_VARIANTS,
    REVIEW_KIND_TERMS,
    TOPIC_WORD_ZIPF,
    _content_words,
    _person_word,
    _plural,
    _sentences,
)
from agentr_dagster.llm.offline.concepts.who import _as_organisms, _organism_block, _who_block, names_animals

#: A review whose studies are reviews says so where it states its topic: an umbrella review, an overview or a review
#: of reviews, a tertiary study, or reviews in the plural as its subject ("the methodological quality of systematic
#: reviews in X", "Systematic literature reviews in X"; its own kind is singular: "a systematic review of X").
_REVIEWS_STUDIED_RE = re.compile(
    r"\b(?:umbrella reviews?|overviews? of (?:systematic )?reviews|reviews? of (?:systematic |literature )?reviews|"
    r"reviews? of meta-analyses|tertiary stud(?:y|ies)|systematic (?:literature )?reviews|meta-analyses|SLRs)\b",
    re.I)


def _studies_reviews(topic: str) -> bool:
    """The topic sentences say the review's studies are reviews (:data:`_REVIEWS_STUDIED_RE`), not that it updates
    or follows earlier ones ("to update previous systematic reviews of X")."""
    return any(not re.search(r"\b(?:previous|prior|earlier|existing|recent|updat\w*|several|many|other)\W+(?:\w+\W+)?$",
                             topic[max(0, m.start() - 40): m.start()], re.I)
               for m in _REVIEWS_STUDIED_RE.finditer(topic))


def _reviews_first(blocks: list[ConceptBlock], acronyms: dict[str, str]) -> list[ConceptBlock]:
    """The studies of a review of reviews are reviews: the kinds of synthesis, and the acronym the text gives one
    ("SLRs"), are its main block (a block that already names one takes them), the subject the rest: a record with a
    title only names one or the other ("A systematic review of cost estimation studies"). Their words are meta words
    everywhere else, so no other block holds them."""
    own = [f for a, long in acronyms.items() if re.search(r"\breview", long, re.I)
           for f in ([a[:-1], a] if a.endswith("s") else [a, a + "s"])]
    kinds = {t.casefold().strip('"*') for t in [*own, *REVIEW_KIND_TERMS]}
    named = next((b for b in blocks if any(t.casefold().strip('"*') in kinds for t in b.terms)), None)
    block = named or ConceptBlock("population", "systematic reviews", [])
    block.terms = _dedupe([*block.terms, *own, *REVIEW_KIND_TERMS])
    block.required, block.independent, block.generic = True, False, False
    rest = [b for b in blocks if b is not block]
    for b in rest:
        b.independent = False
    return [block, *rest]


def _read_title(blocks: list[ConceptBlock], title: str, aims: list[str], text: str, verbs: frozenset[str],
                acronyms: dict[str, str], generic_zipf: float, background: Background | None,
                generic_share: float) -> list[ConceptBlock]:
    """An abstract's blocks as its title orders them (:func:`_title_subjects`), what its aim says the studies
    investigate first, with what the title's subjects are associated with and the lists of named kinds joined."""
    _drop_factor_frame(blocks, title)
    studied = _studied_subject(blocks, aims, verbs)
    _interaction_frame_off(blocks, title)
    alone = not aims and len(_sentences(text)) == 1  # the title is the whole text
    _everyday_first_subject(blocks, title, alone)
    read = list(blocks)
    blocks = _title_subjects(blocks, title, alone)
    _outcome_restated_by_aim(blocks, [b for b in read if b not in blocks])
    _outcomes_listed(blocks, text, acronyms)
    if studied is not None:
        blocks = _studies_subject_first(blocks, studied)
    _join_associated(blocks, text, verbs, acronyms, generic_zipf, background, generic_share)
    _join_named_list(blocks, text, acronyms)
    _join_names_sharing_a_modifier(blocks, text, acronyms)
    if studied is None:
        blocks = _purpose_not_anded(blocks, title, text, verbs)
    blocks = _factors_of_first(blocks, title)
    _accuracy_acts_off(blocks, title, text)
    _compared_never_said(blocks, title, text)
    _compared_kind_apart(blocks, title)
    _and_only_when_broad(blocks, background, title)
    return blocks


#: A title that appraises a test's accuracy ("Diagnostic accuracy of X for Y", "Accuracy of X for screening for
#: Y", "X for distinguishing A from B: a diagnostic test accuracy meta-analysis").
_ACCURACY_TITLE_RE = re.compile(r"\b(?:accuracy|sensitivity and specificity)\b", re.I)


#: An abstract that says it appraises a test's accuracy (its design subtitle is not in the title read).
_ACCURACY_TEXT_RE = re.compile(r"\b(?:diagnostic (?:test )?accuracy|sensitivity and specificity)\b", re.I)


#: What a test is used to do, which its accuracy studies seldom all say (a general vocabulary of test use).
_TEST_ACT_STEMS = ("diagnos", "screen", "distinguish", "detect", "discriminat", "differentiat", "identif")


def _accuracy_acts_off(blocks: list[ConceptBlock], title: str, text: str) -> None:
    """In a review of a test's accuracy, a block named only by what the test is used for ("diagnosis",
    "screening", "distinguishing") names no concept: the accuracy studies name the test and the condition, not
    always the act (``distinguish*`` was required of every calprotectin study). It leaves the query, as a
    property the title appraises does (:data:`_APPRAISED_PROPERTIES`)."""
    if not (_ACCURACY_TITLE_RE.search(title) or _ACCURACY_TEXT_RE.search(text)) or len(blocks) < 2:
        return
    acts = [b for b in blocks if b.terms and all(
        all(w.casefold().startswith(_TEST_ACT_STEMS) for w in re.findall(_WORD, t)) for t in b.terms)]
    if not acts or len(acts) == len(blocks):
        return
    for b in acts:
        b.required = b.in_query = b.independent = False
    if acts[0] is blocks[0]:
        rest = [b for b in blocks if b not in acts]
        rest[0].independent = False
        blocks[:] = [*rest, *acts]


def _compared_never_said(blocks: list[ConceptBlock], title: str, text: str) -> None:
    """A title "A versus B H" is read "A H versus B H" (:func:`_compared_modifiers`), and "A H" names the main
    block; when the abstract never says "A H" (it says "A with B H", "A and B H", "As"), that phrase finds none of
    the studies, which compare the two: the block also takes A with the compared "B H" (``(narrat* AND
    "statistical evidence")``), never A alone (every narrative review)."""
    head_part = re.split(r"(?<=\w):\s", title, maxsplit=1)[0]
    m = _COMPARED_MODIFIERS_RE.search(head_part)
    if m is None:
        return
    read = _compared_modifiers(m)
    cue = m.group(2)
    if read == m.group(0) or f" {cue} " not in read:
        return
    first_phrase, rest = read.split(f" {cue} ", 1)
    head = first_phrase.split(" ", 1)[1]
    second_phrase = f"{m.group(3)} {head}".casefold()
    body = text.replace(title, " ", 1) if title in text else text
    if re.search(r"\b" + re.escape(first_phrase) + r"\b", body, re.I) or not re.search(
            r"\b" + re.escape(second_phrase) + r"\b", body, re.I):
        return
    quoted = f'"{first_phrase.casefold()}"'
    block = next((b for b in blocks if quoted in (t.casefold() for t in b.terms)), None)
    if block is None or any(second_phrase in t.casefold() for t in block.terms):
        return
    first = (item_terms(m.group(1)) or [m.group(1).casefold()])[0]
    block.terms = _dedupe([*block.terms, f'({first} AND "{second_phrase}")'])


#: A title "A H versus B H ..." (up to the next preposition of what for, where or whom, or the subtitle).
_VERSUS_TITLE_RE = re.compile(
    r"^\W*(.+?)\s+(?:versus|vs\.?|compared (?:with|to))\s+(.+?)(?=\s+(?:for|in|among|on|during|after)\s|:|$)", re.I)


def _compared_kind_apart(blocks: list[ConceptBlock], title: str) -> None:
    """"Long-acting injectable antipsychotics versus oral antipsychotics": two kinds of one head compared, so the
    head alone (``antipsychotic*``) and the other kind (``"oral antipsychotic"``) are every study of either, no
    variant of the first: the main block keeps the first kind's own terms (its studies name the comparison)."""
    m = _VERSUS_TITLE_RE.match(title.replace(_JOIN, " "))
    if m is None or not blocks:
        return
    first, second = (_content_words(g) for g in m.group(1, 2))
    # a class counted in the plural ("antipsychotics"); a drug's own name ("naltrexone") stays the concept
    if (len(first) < 2 or len(second) < 2 or not _plural(first[-1])
            or _singular_tail(first[-1]) != _singular_tail(second[-1])):
        return
    block = blocks[0]
    if not _named_in(block, m.group(1).casefold()):
        return
    other = {t.casefold() for t in _phrase_terms(" ".join(second))} | {_render(truncation(first[-1].casefold()))}
    own = [t for t in block.terms if t.casefold() not in other]
    if own and len(own) < len(block.terms):
        block.terms = own


#: A title that opens with the kind of finding it gathers about what follows ("Risk factors for suicide in ...",
#: "Predictors of relapse after ...", "Determinants of X", "Factors associated with Y", "Factors influencing Y"),
#: or an aim that says it identifies them ("To identify factors associated with Y", "The objective was to
#: explore the determinants of Y"): the frame names no concept of its own.
_FACTORS_OF_TITLE_RE = re.compile(
    r"^\W*(?:(?:[\w-]+\s+){0,8}?to\s+[a-z]+\s+(?:the\s+)?)?"
    r"(?:(?:(?:risk|prognostic|predictive)\s+(?:factors?|markers?)|predictors?|determinants?|correlates?)"
    r"\s+(?:for|of)\b|factors?\s+(?:that\b|[a-z]+(?:ed|ing)\b))", re.I)


def _factors_of_first(blocks: list[ConceptBlock], title: str) -> list[ConceptBlock]:
    """A title "Risk factors for Y" gathers whatever is found to raise the risk of Y: Y is the main block, and a
    block named only by the frame's words (``"risk factor(s)"``) leaves the query, as a question's frame does
    (:func:`_read_relation`): a cohort study of one factor names the factor and Y, seldom "risk factor"."""
    if not _FACTORS_OF_TITLE_RE.match(title.replace(_JOIN, " ")):
        return blocks
    words = _RELATION_WORDS | {"determinant", "determinants", "correlate", "correlates"}
    frame = [b for b in blocks if b.terms and all(
        {w.casefold() for w in re.findall(_WORD, t)} <= words for t in b.terms)]
    if not frame or len(frame) == len(blocks):
        return blocks
    for b in frame:
        b.required = b.in_query = b.independent = False
    rest = [b for b in blocks if b not in frame]
    rest[0].independent = False
    return [*rest, *frame]


def _title_purpose(blocks: list[ConceptBlock], title: str, verbs: frozenset[str]) -> tuple[
        ConceptBlock | None, list[ConceptBlock]]:
    """A title "X for Y" (before any subtitle): the block X names (the head phrase right before "for", past a
    comparison that names no block: "X compared with each other for Y") and the blocks the purpose "for Y ..."
    names (up to the next "in" / "among" or the end). (None, []) when the title has no such head."""
    head = re.split(r"(?<=\w):\s", title, maxsplit=1)[0]
    chunks = _chunks(head, verbs)
    at = next((k for k, c in enumerate(chunks) if k and c.cue.casefold().split()[-1:] == ["for"]), None)
    if at is None:
        return None, []
    named = [b for b in blocks if b.required and not b.generic and b.facet != "comparator"]
    x = None
    for chunk in reversed(chunks[:at]):
        x = next((b for b in named if _named_in(b, chunk.text.casefold().replace(_JOIN, " "))), None)
        # "X compared with each other for Y": a comparison within X (common words only) is passed over; one
        # with another concept ("X versus Z for Y") is no head of Y
        within = _COMPARATOR_CUE_RE.search(chunk.cue) and all(
            general_zipf(w) >= GENERIC_ZIPF for w in _content_words(chunk.text))
        if x is not None or not within:
            break
    purpose = []
    for chunk in chunks[at:]:
        if chunk is not chunks[at] and (_SETTING_CUE_RE.match(chunk.cue) or chunk.cue.startswith(":")):
            break
        low = chunk.text.casefold().replace(_JOIN, " ")
        purpose += [b for b in named if b is not x and b not in purpose and _named_in(b, low)]
    return x, purpose


_RECIPROCAL_RE = re.compile(r"\b(?:each other|one another)\b", re.I)


def _compared_within(block: ConceptBlock, text: str) -> bool:
    """The abstract compares the members of the block's class with each other: a sentence that names the block
    (one of its terms) says "each other" / "one another" ("individual X compared to each other")."""
    stems = [t.strip('"*').casefold() for t in block.terms if len(t.strip('"*')) > 3]
    return any(_RECIPROCAL_RE.search(s) and any(t in s.casefold() for t in stems) for s in _sentences(text))


def _purpose_not_anded(blocks: list[ConceptBlock], title: str, text: str,
                       verbs: frozenset[str]) -> list[ConceptBlock]:
    """In a title "X for Y" X is what the review is about, Y what X is for: when the abstract reviews X as a
    class (it names X's members: a list of names or examples joined X; or it compares them "with each other"),
    X is the main block, however often the abstract names Y, and Y is not AND-ed with it (optional, out of the
    query): a study of one member names the member, not always the use the title names (the trials of a drug
    class cover other indications, healthy volunteers, pharmacokinetics). One intervention for one use ("X for
    Y", no members) keeps its AND (round 12, docs/search-strategies.md)."""
    x, purpose = _title_purpose(blocks, title, verbs)
    if x is None or not purpose or not (x.members or _compared_within(x, text)):
        return blocks
    for b in purpose:
        b.independent = b.required = b.in_query = False
    x.independent = False
    return [x, *(b for b in blocks if b is not x)]


#: An abstract's title subjects are AND-ed only when its main block alone is broader than this share of the
#: background's records (:func:`_and_only_when_broad`): "X for Y", where X alone is narrow, keeps Y optional (the
#: includes of a drug-class review cover any indication). Chosen leave-one-review-out on the written abstracts
#: among the values under which no real abstract of ``review_abstracts.json`` loses its AND (every fold picks
#: 0.0005; docs/search-strategies.md, round 11): those main blocks sit from 0.0024 of the pool up, the drug
#: classes named with their members at 0.0002-0.0003. The share alone does not tell the two apart above that.
TITLE_AND_SHARE = 0.0005


def _and_only_when_broad(blocks: list[ConceptBlock], background: Background | None, title: str) -> None:
    """The title's other subjects (and the animals it names) are AND-ed with the main block only when the main
    block alone is not specific enough: its share of the background's records above :data:`TITLE_AND_SHARE`.
    Else they leave the query
    (optional, out of the rest branch): ``X AND Y`` would lose the studies of X that never name Y, and X alone is
    already narrow. Without a background the AND stays: general English calls any technical word rare
    ("spatio-temporal"), and no threshold of it gained anything held out (round 11)."""
    if background is None or not blocks or not any(b.independent or b.organism for b in blocks[1:]):
        return
    if any_share(blocks[0].terms[:MAX_TERMS_PER_BLOCK], background) > TITLE_AND_SHARE:
        return
    for b in blocks[1:]:
        if b.organism or (b.independent and not _coequal_subject(blocks[0], b, title)):
            # the animals a title names are no filter either
            b.independent = b.required = b.in_query = b.organism = False


def _label_at(block: ConceptBlock, low: str) -> int | None:
    """Where the lower-case title first names the block's label (its first content word, by five letters)."""
    words = [w.casefold() for w in _content_words(block.label)]
    found = re.search(r"\b" + re.escape(words[0][:5]), low) if words else None
    return found.start() if found else None


def _coequal_subject(main: ConceptBlock, other: ConceptBlock, title: str) -> bool:
    """The title names ``other`` as a subject of its own beside the main block: before it ("Psilocybin therapy
    for depression", where the condition became the main block) or joined to it by "and" ("X and Y: a review",
    an exposure and what it is associated with). Only "X for Y" with X first is a class reviewed for any
    indication (:func:`_and_only_when_broad`); here Y is what the review is about as much as X is."""
    low = title.casefold().replace(_JOIN, " ")
    head = re.split(r"(?<=\w):\s", low, maxsplit=1)[0]
    at_main, at_other = _label_at(main, head), _label_at(other, head)
    if at_main is None or at_other is None:
        return False
    if at_other < at_main:
        return True
    # from the end of the main block's label ("A and B blockers for Y" joins two modifiers, not two subjects)
    last = [w.casefold() for w in _content_words(main.label)][-1]
    end = re.search(r"\b" + re.escape(last[:5]) + r"\w*", head[at_main:])
    start = at_main + (end.end() if end else 0)
    link = head[start:at_other]
    if last.startswith("model") and link.strip() == "of":
        # "X models of Y": a model is of what it models ("zebrafish lateral line models of drug-induced
        # ototoxicity": the lateral line alone is all of its sensory biology)
        return True
    # "A, B and C for Y" lists the members of what is reviewed for Y: the "for" links, not the "and"
    return re.search(r"\b(?:and|on)\b", link) is not None and re.search(r"\bfor\b", link) is None


def _read_eligibility(eligibility: list[str], blocks: list[ConceptBlock], verbs: frozenset[str],
                      acronyms: dict[str, str], siblings: bool = False) -> list[str]:
    """The study designs the eligibility sentences name (for the optional design block); their other phrases
    only add variants to blocks already found, never a block of their own (screening decides eligibility). With
    ``siblings`` (an abstract's inclusion sentence, read after the kinds and examples its other sentences name, so
    what it adds does not stand in for them), a list one of whose items joined a block names that block's kinds:
    its other items join it too (:func:`_join_siblings`)."""
    design_terms: list[str] = []
    for sentence in eligibility:
        low = sentence.casefold()
        for term in DESIGN_TERMS:
            if re.search(r"\b" + re.escape(term), low):
                design_terms.extend(item_terms(term))
        for chunk in _chunks(sentence, verbs | _gerunds_after_plurals(sentence)):
            # a verb's form alone is an act without its object ("adopting or rejecting mutation testing":
            # "adopting"), no variant, nor a modifier of the next item's head ("adopting testing")
            items = [i for i in chunk.items if not _bare_verb_form(i)]
            _join_class_members(blocks, items, acronyms)
            before = [list(b.terms) for b in blocks]
            for item in items:
                _join_variant(blocks, item, acronyms, abstract=siblings)
            if siblings:
                _join_siblings(blocks, before, items, acronyms)
            heads = {_content_words(i)[-1].casefold() for b in blocks for i in b.items if _content_words(i)}
            for item in _distributed_heads(items, heads):
                if not (siblings and _names_a_block(item, blocks)):
                    _join_phrase(blocks, item)
    return design_terms


def _names_a_block(item: str, blocks: list[ConceptBlock]) -> bool:
    """A word of the item (or of its hyphenated words) is a block's whole one-word name ("all-dementia disease"
    beside a block of dementia): the item is that block's concept, no kind of another's head."""
    names = {i.casefold() for b in blocks for i in b.items if len(i.split()) == 1}
    return bool({p for w in re.findall(_WORD, item.casefold()) for p in [w, *w.split("-")]} & names)


def _join_siblings(blocks: list[ConceptBlock], before: list[list[str]], items: list[str],
                   acronyms: dict[str, str]) -> None:
    """An abstract's inclusion list one of whose items joined one block ("associations of white matter
    hyperintensities, covert brain infarcts and cerebral microbleeds with ...": the microbleeds joined "cerebral
    small vessel disease" by its word) lists kinds of that concept: the items of two or three words that share no
    word with any block join it too, as their phrases (a lone word of a list, "fruit" of "fibre from cereals,
    fruit or legumes", names a wider thing)."""
    grown = [b for b, old in zip(blocks, before, strict=True) if b.terms != old]
    if len(grown) != 1 or len(items) < 3:
        return
    block = grown[0]
    # every word the blocks say, their heads too ("all-dementia disease" names the other block's concept)
    words = {p for b in blocks for i in b.items for w in re.findall(_WORD, i.casefold()) for p in [w, *w.split("-")]}
    for item in items:
        own = _content_words(item)
        parts = {p for w in re.findall(_WORD, item.casefold()) for p in [w, *w.split("-")]} - _FUNCTION
        # a kind of two words or more: a lone word of a list ("fruit", "colon") names a wider thing
        if not 2 <= len(own) <= 3 or _is_meta_item(item) or parts & words:
            continue
        terms = [t for t in _variants(item, acronyms) if " " in t.strip('"')]
        block.terms = _dedupe(block.terms + terms)


def _bare_verb_form(item: str) -> bool:
    """The item is one word the lexicon knows only as a verb's "-ing" or "-ed" form ("adopting", "rejected")."""
    words = re.findall(_WORD, item)
    return len(words) == 1 and words[0].casefold().endswith(("ing", "ed")) and word_classes(words[0]) == {"VERB"}


#: A class word and a member's name share a stem this long or longer ("gabapentin" in "gabapentinoids", "statin"
#: in "atorvastatin"; not "ine" of "amine" and "lysine").
MEMBER_STEM_LEN = 6


def _member_of(name: str, word: str) -> bool:
    """``name`` (a rare word the lexicon does not know) and a block's rare ``word`` hold one stem, one inside the
    other: the class named after its first member ("gabapentinoids": gabapentin, and so pregabalin beside it) or
    by the stem its members end in ("statins": atorvastatin)."""
    n, w = name.casefold(), _singular_tail(word.casefold())
    if n == w or min(len(n), len(w)) < MEMBER_STEM_LEN or general_zipf(w) >= NAME_ZIPF:
        return False
    return n in w or w in n


def _join_class_members(blocks: list[ConceptBlock], items: list[str], acronyms: dict[str, str]) -> None:
    """An eligibility list of names ("studies of gabapentin or pregabalin") one of which shares its stem with the
    word of a required block (:func:`_member_of`) names that class's members, the way its studies name them (a
    trial names its drug, seldom the class): every name of the list joins the block as a kind. The other names
    hold no stem of the class ("pregabalin"), so the list, not each word, is what joins."""
    # items closed by a name the lexicon does not know ("pregabalin", "intranasal esketamine"; "postmenopausal
    # women" and "venous thromboembolism" are no names)
    named = {i.strip(): w[-1] for i in items if (w := _content_words(i)) and len(w) <= 2 and w[-1].isalpha()
             and _is_name(w[-1]) and not word_classes(w[-1])}
    if not named:
        return
    for block in blocks:
        if not block.required or _who_block(block) or block.setting:
            continue
        words = [w for i in [block.label, *block.items] for w in _content_words(i)]
        if any(_member_of(n, w) for n in named.values() for w in words):
            terms = [t for i in named for t in _variants(i, acronyms)]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)
            return


def _join_phrase(blocks: list[ConceptBlock], phrase: str) -> None:
    """A phrase that shares a word with a block joins it as a kind (:func:`_join_kinds`): the phrase and its
    spellings only, not its parts or its head alone, and its words are no partner of a broad word."""
    words = _shared_words(_content_words(phrase))
    for block in blocks:
        if words & _shared_words([w for i in block.items for w in _content_words(i)]):
            terms = [v for t in _phrase_terms(phrase) for v in _spellings(t)]
            block.kinds += [t for t in terms if t not in block.terms]
            block.terms = _dedupe(block.terms + terms)
            return


def _distributed_heads(items: list[str], heads: set[str]) -> list[str]:
    """A list's bare modifiers with the head of a phrase listed after them when that head is the head of a
    block's phrase ("software metrics (e.g. object-oriented, size or process metrics)": "object-oriented
    metrics"); the first such phrase after the modifier, not the list's last item (a list runs on into the
    sentence's next phrase: "... to extract findings from clinical notes"). The head is a noun of the lexicon,
    not a generic or meta word; the modifier is no name ("Chidamber-Kemerer": capitalised)."""
    out = []
    for k, item in enumerate(items):
        words = _content_words(item)
        if len(words) != 1 or not words[0].replace("-", "").isalpha() or not words[0].islower():
            continue
        later = [_content_words(i)[-1].casefold() for i in items[k + 1:] if len(_content_words(i)) >= 2]
        head = next((h for h in later if h in heads), "")
        if head and "NOUN" in word_classes(head) and head not in GENERIC_HEADS and head not in META_WORDS:
            out.append(f"{words[0]} {head}")
    return out


_NOT_SHARED = GENERIC_HEADS | DEMOGRAPHIC_WORDS | _DESIGN_WORDS | frozenset("study studies".split())


def _shared_words(words: list[str]) -> set[str]:
    """The words an item can share with a block: each word, and a hyphenated word's parts but a joining prefix
    ("non-suicidal" shares "suicidal" with "suicidal thoughts"; "self-" or "non-" alone shares nothing)."""
    out = {w.casefold() for w in words}
    out |= {p for w in out if "-" in w for p in w.split("-") if len(p) >= 4 and p not in _JOINING_PREFIXES}
    return out - _NOT_SHARED


def _join_variant(blocks: list[ConceptBlock], item: str, acronyms: dict[str, str], abstract: bool = False) -> None:
    """An eligibility sentence's item that names a variant of a block's concept (shares a distinctive word
    with its items: "process metrics" with "software metrics") joins that block; it never makes a new one. In an
    ``abstract``'s inclusion sentence, an item sharing only the block's everyday head joins nothing
    (:func:`_shares_only_head`); a question's eligibility names the kinds its author means ("requirements
    engineering" beside "software engineering")."""
    if _is_meta_item(item) or _measured_of(item):
        return
    words = _shared_words(_content_words(item))
    if not words:
        return
    for block in blocks:
        block_words = _shared_words([w for i in block.items for w in _content_words(i)])
        block_words |= _quality_forms(words, block_words)
        if _everyday_share(words & block_words, block):
            continue
        if words & block_words:
            if not _holds_name(item, block) and not _head_of_block(words, block) and not (
                    abstract and _shares_only_head(words & block_words, block)):
                parts = _shared_runs(item, block_words)
                # a part that names another block's concept is that concept, no variant of this one
                others = {w for b in blocks if b is not block for i in b.items
                          for w in _shared_words(_content_words(i))}
                joined = [t for part in parts for t in _variants(part, acronyms)
                          if _variant_of_block(t, part, block_words) and not _names_other(t, others, block_words)]
                # a term's other spellings go with it ("fibre": fiber, which holds no word the block says)
                joined = _dedupe([s for t in joined for s in [t, *_spellings(t)]])
                # what the item says is switched from ("patients switched from originator X to CT-P10", a run of
                # its own) goes AND-ed with the switch, as in the question
                block.terms = _dedupe(block.terms + _switched_from(joined, item))
            return


def _shares_only_head(shared: set[str], block: ConceptBlock) -> bool:
    """The item shares with the block only the head of its phrases, a word of everyday English
    (:data:`TOPIC_WORD_ZIPF`): another thing of the class ("Alzheimer's disease" beside "cerebral small vessel
    disease"), no variant; a rarer head names the field ("process metrics" of "software metrics")."""
    heads = {_content_words(i)[-1].casefold() for i in block.items if len(_content_words(i)) >= 2}
    return bool(shared) and shared <= heads and all(general_zipf(w) >= TOPIC_WORD_ZIPF for w in shared)


def _quality_forms(words: set[str], block_words: set[str]) -> set[str]:
    """The item's rare adjectives whose noun of the quality is a block's word, and its nouns whose adjective is
    ("suicidal ideation" of a block of "suicidality"): one concept in the two forms English derives."""
    def related(adjective: str, noun: str) -> bool:
        return general_zipf(adjective) < TOPIC_WORD_ZIPF and noun in quality_nouns(adjective)

    return {w for w in words for b in block_words if related(w, b) or related(b, w)}


def _everyday_share(shared: set[str], block: ConceptBlock) -> bool:
    """The item shares with the block only nouns of every field (:data:`GENERIC_ZIPF`: "test" of "flaky test
    detection", "risk" of "polygenic risk scores"), none the head of the block's phrases: "automated test suites",
    "a clinical risk model" are other things, no variants (``"test suite"`` is every testing study)."""
    heads = {_content_words(i)[-1].casefold() for i in block.items if _content_words(i)}
    # an adjective both say makes them kinds of one class ("social networks" of "social media")
    return bool(shared) and not shared & heads and all(
        general_zipf(w) >= GENERIC_ZIPF and "ADJ" not in word_classes(w) for w in shared)


def _names_other(term: str, others: set[str], block_words: set[str]) -> bool:
    """The term holds a word of another block and none of this block's: it names that other concept
    (``alzheimer*``, which "Alzheimer's disease given alternate-day fasting" joined to the fasting block)."""
    def stem(w: str) -> str:
        return w.removesuffix("'s").removesuffix("\u2019s")

    words = {stem(w) for w in re.findall(_WORD, term.casefold().replace(_JOIN, " "))}
    theirs = {stem(o) for o in others}
    return bool(words) and not any(w[:5] == stem(b)[:5] for w in words for b in block_words) and any(
        o.startswith(w) or w.startswith(o) for w in words for o in theirs if len(w) >= 4 and len(o) >= 4)


def _head_of_block(words: set[str], block: ConceptBlock) -> bool:
    """An item that is the head of a block's phrase alone ("children" of "anaemic children"): the class the
    phrase narrows, no variant of it (its synonyms, ``pediatric*``, ``infant*``, are every child); and so a
    modifier of everyday English alone ("narrative" of "narrative evidence", named by an abstract's "studies that
    compared narrative with statistical evidence"): the field the phrase narrows (a rare one names the concept:
    "inoculation" of "inoculation theory")."""
    heads = {_content_words(i)[-1].casefold() for i in block.items if len(_content_words(i)) >= 2}
    phrases = [re.findall(_WORD, i) for i in block.items]
    everyday = {m.casefold() for w in phrases if len(w) >= 2 for m in w[:-1]
                if general_zipf(m.casefold()) >= TOPIC_WORD_ZIPF}
    return len(words) == 1 and words <= heads | everyday


def _variant_of_block(term: str, part: str, block_words: set[str]) -> bool:
    """A term an eligibility item's part gives that still names the block's concept: it holds a word the block
    shares ("resistance exercise" of "resistance training"), a name ("crohn*" of "Crohn's disease", "CT-P13"; not
    "periarticular*" of "periarticular dextrose injections") or a hyphenated word of the part, or the part shares
    none (a run of names, :func:`_shared_runs`). The part's other pieces are other things ("exercise programmes"
    of "resistance exercise programmes": every exercise study; a pair's first word is what it names)."""
    if not _shared_words(_content_words(part)) & block_words:
        return True
    words = [w.strip("*").casefold() for w in re.findall(_WORD, term.replace(_JOIN, " "))]
    # a pair names what its first word does ("(inject* AND (intra-articular OR ozone))" is every injection there)
    words = sorted(_shared_words(words[:1] if term.startswith("(") else words))  # "non-violent": "violent"
    # a name is written with a capital or a digit ("Crohn's", "CT-P13"; not "periarticular")
    names = [n.casefold() for n in re.findall(_WORD, part) if n[:1].isupper() or any(c.isdigit() for c in n)]
    # a hyphenated word of the part, however spelled, is one word of it ("self injury" of "non-suicidal self-injury")
    compounds = {w.casefold().replace("-", "") for w in re.findall(_WORD, part) if "-" in w.strip("-")}
    return any(b[:5] in w for w in words for b in block_words) or all(
        any(n.startswith(w) for n in names) for w in words) or re.sub(r"[\s\"*-]", "", term.casefold()) in compounds


#: Heads that close an eligibility item naming what is measured of a thing ("learning outcomes", "consumption
#: outcomes", "performance outcome"): the item is a measure of its modifier, no kind of a concept that shares it.
_MEASURED_HEADS = frozenset("outcome outcomes result results".split())


def _measured_of(item: str) -> bool:
    """The item is a word and an outcome head ("reporting engagement, satisfaction or learning outcomes": "learning
    outcomes" shares "learning" with "online learning" but names what is measured); a longer one ("organisational
    performance outcome") still holds a variant ("organisational performance")."""
    words = re.findall(_WORD, item)
    return len(words) == 2 and words[-1].casefold() in _MEASURED_HEADS and words[0].casefold() not in _FUNCTION


def _shared_runs(item: str, block_words: set[str]) -> list[str]:
    """The runs of an item (:func:`_runs`) that share a word with the block it joins: "participants to an
    inoculation" joins the inoculation block by "inoculation", and "participants" is another thing (every study's
    people), no variant; a run of names stays ("from reference infliximab to CT-P13": what is switched to). An
    item of one run is whole."""
    runs = [r for r in _runs(item) if r]
    if len(runs) <= 1:
        return [item]

    def names(run: list[str]) -> bool:
        return all(not word_classes(w) or general_zipf(w.casefold()) < NAME_ZIPF for w in run)

    return [" ".join(r) for r in runs if _shared_words(r) & block_words or names(r)] or [item]


def _holds_name(item: str, block: ConceptBlock) -> bool:
    """The item holds the block's whole name, words in a row ("using a validated smartphone addiction scale" for
    "smartphone addiction"): the name already finds every record its phrase does, and its parts ("validated
    smartphone") are the sentence's words, no name of the concept."""
    name = tuple(w for w in _phrase_key(" ".join(_content_words(block.label))) if w)
    words = _phrase_key(" ".join(_content_words(item)))
    n = len(name)
    return bool(name) and len(words) > n and any(words[k: k + n] == name for k in range(len(words) - n + 1))


#: A modifier the lexicon knows only as an adjective or adverb, this common in English or more, grades or
#: judges its noun ("significant differences", "relevant metrics"): it names no kind of it.
EVALUATIVE_ZIPF = 4.0


#: At most this many kinds of a block's head join it (the ones the text names most).
MAX_KIND_PHRASES = 4


def _kind_modifiers(run: list[str]) -> list[str]:
    """The run's modifiers without the leading evaluative ones ("traditional source code metrics" -> source,
    code); a hyphenated compound ("object-oriented") or a word that can be a noun stays. None when a modifier
    is no noun, adjective or name ("before relapse", "termed X", "during sleep"): not a kind's name."""
    mods = run[:-1]
    while mods and "-" not in mods[0] and (c := word_classes(mods[0])) and c <= {"ADJ", "ADV"} and (
            general_zipf(mods[0].casefold()) >= EVALUATIVE_ZIPF):
        mods = mods[1:]
    def named(m: str) -> bool:  # a word the lexicon does not know is a name when it is rare ("zebrafish")
        c = word_classes(m)
        return "-" in m or bool(c & {"NOUN", "ADJ", "PROPN"}) or not c and general_zipf(m.casefold()) < EVALUATIVE_ZIPF

    if not all(named(m) for m in mods):
        return []
    return mods


#: "X-related disorders", "X-associated symptoms", "X-induced problems": a modifier that names the concept X.
_RELATION_RE = re.compile(r"([A-Za-z][A-Za-z']{2,})-(?:related|associated|induced)", re.I)


def _generic_head(word: str) -> bool:
    """A head of every field ("disorders", "outcomes", "problems"): what its modifier names is the concept."""
    low = word.casefold()
    return low in GENERIC_HEADS or low in META_WORDS or general_zipf(truncation(low)) >= HEAD_ALONE_ZIPF


def _related_stems(blocks: list[ConceptBlock], text: str = "") -> None:
    """A block whose own phrase is "X-related H" with a generic head ("anxiety-related disorders") is the
    concept X: its studies name X's kinds ("panic disorder", "social anxiety"), hardly ever the umbrella
    phrase, so X's stem joins the block (then it passes the usual generic and broad checks). Only the block's
    label: a later item of a list ("A and obesity-related outcomes") is not the block's concept; and not before
    a specific head ("NSAID-associated ulcers" are ulcers, "noise-induced hearing loss" a hearing loss)."""
    for block in blocks:
        for run in _runs(block.label):
            for i, word in enumerate(run):
                m = _RELATION_RE.fullmatch(word)
                # the head right after it, or none left (a meta head, "outcomes", closed the run)
                if m and (i == len(run) - 1 or i == len(run) - 2 and _generic_head(run[-1])):
                    stem = _render(truncation(m.group(1).casefold()))
                    block.terms = _dedupe(block.terms + _spellings(stem))
    _condition_nouns(blocks, text)


#: The endings of a noun that names a condition or state ("depression", "autism", "psychosis", "anaemia").
_CONDITION_NOUN_ENDINGS = ("ion", "ism", "sis", "ia", "y")


def _condition_nouns(blocks: list[ConceptBlock], text: str) -> None:
    """A block named "M ADJ H" with a condition's head ("major depressive disorder", "psychotic disorders") whose
    adjective's stem the text also uses as a noun of a condition ("... in depression"): the noun with the same
    modifiers joins the block ("major depression"), as its studies often name it. Only a noun the text itself
    says, of the adjective's first letters but its last three (five at least)."""
    words = {w.casefold() for w in re.findall(r"[A-Za-z]+", text)}
    for block in blocks:
        run = [w.casefold() for w in _content_words(block.label)]
        if (len(run) < 2 or _singular_tail(run[-1]) not in EPONYM_HEADS or "ADJ" not in word_classes(run[-2])
                or len(run[-2]) < 8):
            continue
        stem = run[-2][:-3]
        nouns = sorted(w for w in words if w.startswith(stem) and w != run[-2] and w.endswith(_CONDITION_NOUN_ENDINGS)
                       and word_classes(w) == {"NOUN"})
        if nouns:
            block.terms = _dedupe(block.terms + [v for t in _phrase_terms(" ".join([*run[:-2], nouns[0]]))
                                                 for v in _spellings(t)])


def _umbrella(block: ConceptBlock) -> bool:
    """The block's phrase names the things related to its modifier ("anxiety-related disorders"): an umbrella
    over kinds that need not carry the modifier's word."""
    return any(w.casefold().endswith("-related") for i in block.items for w in _content_words(i)[:-1])


def _listed_with_own_kind(items: list[str], head: str, stems: list[str]) -> bool:
    """One of a list's items is a kind of the block by its own modifier ("anxiety disorders, posttraumatic stress
    disorder, and obsessive-compulsive disorder"): the list's other kinds of the same head are those the umbrella
    covers."""
    for item in items:
        words = _content_words(item)
        if len(words) >= 2 and _singular_tail(words[-1]) == head and any(
                p.startswith(s) or s.startswith(p) for p in _stem_parts(words[:-1]) for s in stems):
            return True
    return False


def _stem_parts(words: list[str]) -> list[str]:
    """The parts of a phrase's modifiers that can name its concept: hyphenated parts split, without degree,
    graded, meta or function words and the relation words of :data:`_RELATION_RE` ("high-risk" -> risk)."""
    parts = [p.casefold() for w in words for p in w.split("-")]
    return [p for p in parts if len(p) >= 4 and p not in DEGREE_MODIFIERS and p not in META_WORDS
            and p not in _FUNCTION and p not in ("related", "induced") and not is_graded_adjective(p)]


#: A sentence that says where the review searched (its sources are named there, never a kind of a concept).
_SEARCH_SENTENCE_RE = re.compile(r"\b(?:searched|search(?:es)? (?:of|in|was|were)|specialised register|"
                                 r"specialized register|search methods)\b", re.I)


#: "X, or (the) Y, is ..." / "X, also known as Y, ...": the text names its concept X a second way, Y (a sentence's
#: subject restated between commas: "Retrieval practice, or the testing effect, improves retention").
_RESTATED_RE = re.compile(r"^(?:[A-Z][a-z]+(?: [a-z]+)?:\s+)?([A-Za-z][\w'\- ]{2,60}?)(?:\s+\([A-Z][\w\-]{1,9}\))?,\s+"
                          r"(?:or|also (?:known as|called|termed))\s+(?:the\s+|an?\s+)?([A-Za-z][\w\- ]{2,40}?),\s+\w")


def _join_restatements(blocks: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """A sentence that opens with a block's own name restated between commas ("Age-related hearing loss (ARHL), or
    presbycusis, is heritable") gives that block the other name's terms: a synonym the text itself states, which
    its studies may use alone. The other name is one to four content words, none a meta word."""
    for sentence in _sentences(_restore_headings(text)):
        m = _RESTATED_RE.match(sentence.strip())
        if not m:
            continue
        named, other = m.group(1).casefold(), m.group(2)
        words = _content_words(other)
        if not 1 <= len(words) <= 4 or _is_meta_item(other) or any(w.casefold() in META_WORDS for w in words):
            continue
        for block in blocks:
            if named in {block.label.casefold(), *(i.casefold() for i in block.items)}:
                # the whole name at least: a meta head leaves no term of its own ("spacing effect")
                whole = [v for t in _phrase_terms(" ".join(re.findall(_WORD, other))) for v in _spellings(t)]
                block.terms = _dedupe(block.terms + (_variants(other, acronyms) or whole))
                break


#: The relation word of a compound modifier ("performance-related pay"): the same concept reads "pay for performance".
_RELATION_PARTS = frozenset("related based associated linked oriented".split())


def _join_reordered_compounds(blocks: list[ConceptBlock], text: str) -> None:
    """A hyphenated compound of the text made of a block's own words in another order ("pay-for-performance"
    beside "performance-related pay") names its concept: it joins
    the block, hyphenated and spaced. Function words and a compound modifier's relation word ("related",
    "based") do not count; two words at least."""
    for block in blocks:
        parts = [p for w in _content_words(block.label) for p in w.casefold().split("-")]
        own = set(parts) - _RELATION_PARTS - _FUNCTION
        if len(own) < 2:
            continue
        for compound in dict.fromkeys(re.findall(r"\b[A-Za-z]+(?:-[A-Za-z]+){2,}\b", text)):
            words = [w.casefold() for w in compound.split("-")]
            if set(words) - _RELATION_PARTS - _FUNCTION == own and words != parts:
                spaced = compound.casefold().replace("-", " ")
                block.terms = _dedupe(block.terms + [compound.casefold(), *_phrase_terms(spaced)])


def _join_gerund_nouns(blocks: list[ConceptBlock], text: str) -> None:
    """A block named by a noun and a gerund ("video-calling technology", "text messaging interventions") whose
    act the text also names by the noun of the verb ("video calls", "text messages"): that phrase joins the block,
    as its studies name the thing done. Only a form the text itself says."""
    for block in blocks:
        words = [p for w in _content_words(block.label) for p in w.split("-")]
        for a, b in zip(words, words[1:], strict=False):
            if not b.casefold().endswith("ing") or len(b) < 6 or "NOUN" not in word_classes(a.casefold()):
                continue
            said = re.search(r"\b" + re.escape(a) + r"[\s-]" + re.escape(b[:-3]) + r"e?s?\b", text, re.I)
            if said:
                phrase = " ".join(said.group(0).casefold().replace("-", " ").split()).removesuffix("s")
                block.terms = _dedupe(block.terms + [v for t in _phrase_terms(phrase) for v in _spellings(t)])


def _join_kinds(blocks: list[ConceptBlock], text: str, verbs: frozenset[str], acronyms: dict[str, str]) -> None:
    """A phrase anywhere in the text whose head noun is the head of a required block's phrase names a kind of
    that concept ("oxidative stress assays" beside "toxicity assays", said in a results sentence): it joins the block
    as a variant, when its modifiers are specific (no evaluative adjective, not common English alone). Under a
    generic head ("behaviours", "disorders") only a phrase whose modifier shares a stem with the block's own
    modifier ("risk-taking behaviour", "risky behaviours" beside "high-risk behaviours"): the same concept,
    written as its studies write it."""
    _join_restatements(blocks, text, acronyms)
    _join_reordered_compounds(blocks, text)
    _join_gerund_nouns(blocks, text)
    heads: dict[str, ConceptBlock] = {}
    stems: dict[str, list[str]] = {}  # a generic head -> the block phrase's modifier parts a kind must share
    for block in blocks:
        if not block.required:
            continue
        for item in block.items:
            words = _content_words(item)
            if not words or _is_acronym(words[-1]) or words[-1].casefold() in _NOT_SHARED:
                continue
            # a head of every field ("disease", "performance") groups unrelated things; a rare one ("metrics")
            # names one class of them, as a head alone names the concept (:data:`HEAD_ALONE_ZIPF`)
            if general_zipf(truncation(words[-1].casefold())) < HEAD_ALONE_ZIPF:
                heads.setdefault(_singular_tail(words[-1]), block)
            elif (parts := _stem_parts(words[:-1])) and _singular_tail(words[-1]) not in heads:
                heads[_singular_tail(words[-1])] = block
                stems[_singular_tail(words[-1])] = parts
    if not heads:
        return
    # what X is compared with ("versus oral antipsychotics") is no kind of X, though it shares X's head
    compared = {t.casefold() for b in blocks if b.facet == "comparator" for t in b.terms if " " in t}
    found: dict[int, dict[str, int]] = {}
    listed: set[str] = set()  # kinds an umbrella's list names: the umbrella's members, each of them searched
    for sentence in _sentences(_restore_headings(text)):
        if _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(sentence):
            continue  # a kind the text leaves out is not one to search for
        if _SEARCH_SENTENCE_RE.search(sentence):
            continue  # where the review searched ("the Cochrane Incontinence Specialised Register"): no kind
        for chunk in _chunks(sentence, verbs):
            for item in chunk.items:
                if _is_meta_item(item):
                    continue
                for run in _runs(item):
                    head = _singular_tail(run[-1]) if len(run) >= 2 else ""
                    owner = heads.get(head)
                    mods = _kind_modifiers(run) if owner is not None else []
                    if owner is None or not mods or any(m[0].isdigit() or m.casefold() in _NOT_SHARED for m in mods):
                        continue
                    if head in stems:
                        # a generic head's other kinds ("animal behaviour") are other concepts; the kind starts at
                        # its modifier that shares the stem ("undertaking risky behaviours" -> "risky behaviours")
                        shared = [j for j, m in enumerate(mods) if any(p.startswith(s) or s.startswith(p)
                                                                       for p in _stem_parts([m]) for s in stems[head])]
                        if not shared and _umbrella(owner) and _listed_with_own_kind(chunk.items, head, stems[head]):
                            shared = [0]
                            listed.add(" ".join([*mods, run[-1]]).casefold())
                        if not shared:
                            continue
                        mods = mods[shared[0]:]
                        low = " ".join([*mods, run[-1]]).casefold()
                        if any(" " in t.strip('"') and t.strip('"').casefold() in low for t in owner.terms):
                            continue  # "refractory chronic pain" adds nothing to "chronic pain"
                    phrase = " ".join([*mods, run[-1]])
                    kind_terms = {t.casefold() for t in _phrase_terms(phrase)}
                    if _generic_label(" ".join(mods)) or kind_terms <= {t.casefold() for t in owner.terms} \
                            or kind_terms & compared:
                        continue  # common words, a phrase the block has already, or the comparator
                    kinds = found.setdefault(id(owner), {})
                    kinds[phrase.casefold()] = kinds.get(phrase.casefold(), 0) + 1
    for block in blocks:
        _join_ranked_kinds(block, found.get(id(block), {}), listed, acronyms)


def _join_ranked_kinds(block: ConceptBlock, kinds: dict[str, int], listed: set[str], acronyms: dict[str, str]) -> None:
    """The block's commonest :data:`MAX_KIND_PHRASES` new kinds (and every kind its umbrella's list names) join it."""
    joined = 0
    for phrase in sorted(kinds, key=lambda k: -kinds[k]):  # stable: text order among ties
        # only the kind's own phrase: its parts without the head ("source code") are other concepts
        # (its other spellings too: "risky behaviour" and "risky behavior")
        heads_spelled = {_singular_tail(h.strip('"')) for h in _spellings(_singular_tail(phrase.split()[-1]))}
        terms = [t for t in _variants(phrase, acronyms)
                 if " " in t.strip('"') and _singular_tail(t.strip('"*').split()[-1]) in heads_spelled
                 or phrase in listed and t in acronyms]  # a listed member's own acronym ("PTSD") names it too
        new = [t for t in terms if t.casefold() not in {o.casefold() for o in block.terms}]
        if not new or joined >= MAX_KIND_PHRASES and phrase not in listed:
            continue  # the block's own phrase again ("anxiety disorders") takes no kind's place
        block.kinds += new
        block.terms = _dedupe(block.terms + terms)
        joined += phrase not in listed


#: "Are X effective for Y", "Is X more effective than Z for Y", "Is X safe in Y": X is what is done.
_EFFECTIVE_FRAME_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:are|is|were|was)\s+(.+?)\s+(?:(?:more|less|as|equally|still)\s+)?"
    rf"(?:{_EFFECT_ADJECTIVES}|superior|inferior|non-inferior)\b", re.I)


#: "What are the (long-term) outcomes of X for Y", "What is the safety of X in Y": what a treatment does, asked
#: by its outcomes' noun.
_OUTCOMES_FRAME_RE = re.compile(
    r"^\s*what\s+(?:are|is|were|was)\s+the\s+(?:[\w-]+\s+){0,2}?(?:outcomes|effects?|effectiveness|efficacy|"
    r"safety|harms|benefits)\s+of\s", re.I)


def _effective_frame(blocks: list[ConceptBlock], topic: list[str]) -> None:
    """A question "Are X effective for Y in patients with Z" asks what X does: X's block is what is done (an
    intervention), so it comes before what it is for and who it is given to (:func:`_order_blocks`), however many
    conditions the question lists for them."""
    m = _EFFECTIVE_FRAME_RE.match(topic[0]) if topic else None
    if m is None:
        return
    named = m.group(1).casefold().replace(_JOIN, " ")
    for block in blocks:
        if block.required and block.facet == "exposure" and not block.aspect and _named_in(block, named):
            block.facet = "intervention"
            return


#: "Is X more / less effective than Y", "Is X as safe as Y": the frame names what X is compared with.
_COMPARED_FRAME_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:are|is|were|was)\s+.+?\s+(?:more|less|as|equally)\s+(?:{_EFFECT_ADJECTIVES})\s+"
    r"(?:than|as)\s", re.I)


def _named_comparator_anded(blocks: list[ConceptBlock], topic: list[str]) -> None:
    """"Is X more effective than Y for Z?" asks of trials of X against Y: each names both, so a comparator named
    by a word rare in general English (a drug: "than valproate") is AND-ed with X (``lithium* OR (... valproat*
    ...)`` was every study of lithium); an everyday comparator ("the reference product", "usual care",
    "face-to-face therapy") is named many ways and stays out of the AND."""
    if not topic or not _COMPARED_FRAME_RE.match(topic[0]):
        return
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet != "intervention":
        return
    for b in blocks:
        if (b.required and b.facet == "comparator" and not b.generic
                and any(general_zipf(w) < RARE_PART_ZIPF for w in _content_words(b.label))):
            b.independent = True
            return


#: "... improve the prediction of Y beyond Z": what X is measured against, to the end of its clause.
_BEYOND_RE = re.compile(r"\bbeyond\s+(?:that\s+of\s+|those\s+of\s+)?([^?.;:,]+)", re.I)


def _beyond_comparator_off(blocks: list[ConceptBlock], topic: list[str]) -> None:
    """A question's "beyond Z" ("Does X improve the prediction of Y beyond traditional risk factors?") names
    what X's added value is measured against, which its studies take as given and name many ways ("standard
    risk models", "the Framingham score"): Z is a comparator, no concept of the query (``X OR (Y AND "risk
    factor*")`` required every record of its branch to say it). Not a block also named before the "beyond".
    What is predicted is then the one subject beside X, and every study of X's added value names it: AND-ed
    (``X OR "coronary artery disease"`` was every study of the disease)."""
    m = _BEYOND_RE.search(topic[0].replace(_JOIN, " ")) if topic else None
    if m is None:
        return
    before, after = topic[0][: m.start()].casefold().replace(_JOIN, " "), m.group(1).casefold()
    main = next((b for b in blocks if b.required), None)
    dropped = False
    for b in blocks:
        if b is not main and _named_in(b, after) and not _named_in(b, before):
            b.facet, b.required, b.in_query, b.independent = "comparator", False, False, False
            dropped = True
    subjects = [b for b in blocks if b is not main and b.required and not b.generic and _names_subject(b)]
    if dropped and len(subjects) == 1:
        subjects[0].independent = True


def _taking_part(block: ConceptBlock) -> bool:
    """The block names who takes part and the taking part, no thing ("youth participation", "volunteer
    involvement", "student engagement": a word for people before a process noun): in "Youth participation in
    climate activism" what they take part in is the subject, the more specific one, and comes first."""
    words = [w.casefold() for w in _content_words(block.label.replace(_JOIN, " "))]
    if len(words) != 2 or not _process_noun(words[1], conversion=False):
        return False
    who = words[0].removesuffix("'s").removesuffix("'")
    return _person_word(who) or any(who.startswith(t.strip('"*')) for variants in POPULATION_VARIANTS.values()
                                    for t in variants if " " not in t and len(t.strip('"*')) >= 4)


#: A title that opens "X on Y" (a related pair, :func:`_related_pair`): X, before the "on".
_PAIR_ON_RE = re.compile(r"^([^:]+?)\s+on\s+\w")


def _order_blocks(blocks: list[ConceptBlock], text: str = "", title: str = "") -> None:
    """Required blocks first, never a generic one (every term common English) as the main block. In a
    question the main block is the concept it spells out most (the most listed variants): the one a relevant
    study is likeliest to name in some form. In an abstract (``title``: its first sentence) it is the concept of
    the title that the most sentences name (an abstract names its subject again and again)."""
    if not title:
        # who the studies are about ("in rats and mice", "in adolescents") is the main block only when the
        # question names nothing else: a population is every study of it, whatever the topic
        # an aspect asked about ("the prevalence of", "the pharmacokinetics of") or a comparator ("more effective
        # than X", "versus X") is not the subject either
        # nor, beside what is done, what it is done for ("the effect of X on A, B and C": the outcomes listed are
        # every study of them)
        doing = any(b.required and b.facet == "intervention" and not b.aspect for b in blocks)
        blocks.sort(key=lambda b: (not b.required, b.generic, _who_block(b) or _organism_block(b),
                                   b.aspect or b.facet == "comparator" or b.setting,
                                   doing and b.facet in ("outcome", "population"), -b.n_items))
        return
    sentences = [s.casefold().replace(_JOIN, " ") for s in _sentences(text)]
    title_low = title.casefold().replace(_JOIN, " ")
    # who the studies are about ("in rodents"), where ("in small samples") and a comparator ("versus X") come
    # after what the studies are about, and so does a concept of common words alone
    # "Effects of X on Y": what is done comes before what it is done to, however often the abstract says Y
    # and so in "X on Y", as :func:`_related_pair` reads a title's "X and Y" that another sentence relates
    pair = _PAIR_ON_RE.match(title_low)
    done_in = title_low if _EFFECT_OF_ON_RE.search(title_low) else pair.group(1) if pair else ""
    doing = bool(done_in) and any(
        b.required and b.facet == "intervention" and not b.aspect and _named_in(b, done_in) for b in blocks)
    # a sentence names a block by the acronym the text defines for it too ("Polygenic risk scores (PRS) ... adding
    # a PRS"), which a short acronym's block does not carry as a term (it would sit inside other words)
    acronyms = _acronym_pairs(text)
    abbreviated = {id(b): [a.rstrip("s") for a, long in acronyms.items()
                           if long.casefold() in {b.label.casefold(), *(i.casefold() for i in b.items)}]
                   for b in blocks}

    def times_named(b: ConceptBlock) -> int:
        return sum(_named_in(b, s) or any(re.search(r"\b" + re.escape(a.casefold()) + r"s?\b", s)
                                          for a in abbreviated[id(b)]) for s in sentences)

    blocks.sort(key=lambda b: (not b.required, b.generic, not _named_in(b, title_low),
                               _who_block(b) or _organism_block(b), b.setting, _taking_part(b), _measure_aspect(b),
                               _generic_block(b), b.facet == "comparator",
                               doing and b.facet == "outcome", -times_named(b), -len(_content_words(b.label))))


#: A property only a drug (or another substance given) has: "the pharmacokinetics of X" names X as what the studies
#: give and measure, whatever state changes the property ("How does pregnancy affect the pharmacokinetics of X").
_DRUG_PROPERTY_RE = re.compile(
    r"\b(?:pharmacokinetics?|pharmacodynamics?|bioavailability|bioequivalence|plasma (?:levels?|concentrations?))\s+"
    r"of\s+((?:(?!\b(?:in|among|during|with|for|after|before|by|on|and|or)\b)[^,;:?.])+)", re.I)


def _drug_of_property_first(blocks: list[ConceptBlock], topic: str) -> None:
    """A question about a drug's pharmacokinetics (:data:`_DRUG_PROPERTY_RE`) is about that drug: its block is the
    main one, before the state that the question says changes it (pregnancy, obesity: every study of them, most
    of which give no drug). The state stays a required block of the rest."""
    m = _DRUG_PROPERTY_RE.search(topic)
    if not m:
        return
    drug = next((b for b in blocks if b.required and not b.aspect and not _who_block(b) and not _organism_block(b)
                 and _named_in(b, m.group(1).casefold())), None)
    if drug is not None and blocks and drug is not blocks[0]:
        blocks.remove(drug)
        blocks.insert(0, drug)


def _question_subject_first(blocks: list[ConceptBlock], topic: list[str]) -> None:
    """A question's subject the ordering put behind another block: a drug whose property is asked
    (:func:`_drug_of_property_first`), a service named by who gives it (:func:`_done_by_people_first`)."""
    if topic:
        _done_by_people_first(blocks, topic[0])
        _users_behind(blocks, topic[0])
        _undergone_behind(blocks, topic[0])
    _drug_of_property_first(blocks, " ".join(topic))


#: "patients receiving X", "adults undergoing X", "patients on X": what the people named before undergo.
_UNDERGONE_RE = re.compile(r"\b([a-z]+)\s+(?:receiving|undergoing|on)\s+(?:the\s+)?([^,;:?.]+)", re.I)


def _undergone_behind(blocks: list[ConceptBlock], topic: str) -> None:
    """"In patients receiving CRRT, what beta-lactam doses ...?", "In patients on opioid therapy, does naloxegol
    ...?": the treatment the people undergo says who the studies are about; ordered first (it is said first), it
    was the main block and the query every study of it. The question's other concept, a required one that is no
    population, aspect, setting or comparator, comes before it; the treatment stays a required block of the
    rest, and who undergo it are optional."""
    m = _UNDERGONE_RE.search(topic)
    if m is None or not blocks or not _person_word(m.group(1).casefold()):
        return
    undergone = blocks[0]
    if _who_block(undergone) or not _named_in(undergone, m.group(2).casefold().replace(_JOIN, " ")):
        return
    other = next((b for b in blocks[1:] if b.required and not (_who_block(b) or _organism_block(b) or b.aspect
                                                              or b.setting or b.facet == "comparator")), None)
    if other is None:
        return
    blocks.remove(other)
    blocks.insert(0, other)
    # the people who undergo it are named by it: a record on the treatment need not say who again ("septic ICU
    # patients receiving CRRT" of "critically ill patients receiving CRRT")
    for people in blocks:
        if _who_block(people) and (people.label.split() or [""])[-1].casefold() == m.group(1).casefold():
            people.required = people.in_query = False


#: "How do librarians use X ...?": the subject of "use" in a "How do" question, up to three words.
_HOW_USE_RE = re.compile(r"^\s*how\s+(?:do|does|did)\s+((?:[\w'-]+\s+){0,2}?[\w'-]+)\s+(?:use|make use of)\s", re.I)


def _users_behind(blocks: list[ConceptBlock], topic: str) -> None:
    """"How do librarians use reference chatbots to ...?": who uses the thing are people, though no role list knows
    them (a plural noun of an agent's ending, :func:`_agents_among`); read as a subject they were the main block
    (``librarian* OR ...``: every study of librarians). They are who the studies are about, after what they use."""
    m = _HOW_USE_RE.match(topic)
    if m is None or not blocks:
        return
    head = m.group(1).split()[-1].casefold()
    users = blocks[0]
    if not (_agents_among(head) and (users.label.split() or [""])[-1].casefold() == head and not _who_block(users)):
        return
    users.agents = True
    nxt = next((i for i, b in enumerate(blocks) if b is not users and b.required and not _who_block(b)), None)
    if nxt is not None:
        blocks.remove(users)
        blocks.insert(nxt, users)


def _done_by_people_first(blocks: list[ConceptBlock], topic: str) -> None:
    """"Are peer support workers effective in reducing readmissions among ...?": the X the effect frame asks of
    (:data:`_EFFECTIVE_FRAME_RE`) is what is done, though its head names people ("workers", "doulas", "nurse
    practitioners": a service by who gives it); ordered as who the studies are about, it came after what it is
    for, and the query was that alone (``readmiss* OR ...``: every readmission study). Its block, the one
    phrase of people the frame names, is the main one. Not the animals studied."""
    m = _EFFECTIVE_FRAME_RE.match(topic)
    if m is None or not blocks:
        return
    named = m.group(1).casefold().replace(_JOIN, " ")
    people = [b for b in blocks if b.required and _who_block(b) and not _organism_block(b) and not b.organism
              and not b.setting and _named_in(b, named)]
    if len(people) == 1 and people[0] is not blocks[0] and not any(
            b.required and not _who_block(b) and _named_in(b, named) for b in blocks):
        blocks.remove(people[0])
        blocks.insert(0, people[0])
        people[0].facet = "intervention"


#: What a review measures of its subject ("The prevalence of X"): a general vocabulary of epidemiology.
_MEASURE_HEADS = frozenset(
    "prevalence incidence frequency epidemiology burden occurrence rate rates trends trend".split())


def _measure_aspect(block: ConceptBlock) -> bool:
    """An aspect block that names a measure or a kind of finding of what follows ("The prevalence of X", "risk
    factors of X"): never an abstract's main block; other aspects ("Mitochondrial inheritance of X") may be."""
    words = _content_words(block.label)
    return block.aspect and bool(words) and words[-1].casefold() in _MEASURE_HEADS | _ANSWER_KINDS


def _names_subject(block: ConceptBlock) -> bool:
    """The block names what the studies are about: not who they are about, an aspect asked about, a setting or a
    comparator."""
    return not (block.aspect or block.setting or block.facet == "comparator" or _who_block(block)
                or _organism_block(block))


def _common_subject_first(blocks: list[ConceptBlock]) -> list[ConceptBlock]:
    """A question whose subject is a common word and whose other blocks only say who, where or which aspect ("the
    prevalence of depression among medical students", where a background holds much depression): the subject is
    still the main block, AND-ed with who or where (never "prevalence OR medical students"), the aspect left out."""
    required = [b for b in blocks if b.required]
    if not required or any(_names_subject(b) for b in required):
        return blocks
    subject = next((b for b in blocks if b.generic and _names_subject(b) and not _generic_label(b.label)), None)
    if subject is None:
        return blocks
    subject.required, subject.generic = True, False
    for b in required:
        if b.aspect:
            b.required = b.in_query = False
        else:
            b.independent = True
    return [subject, *(b for b in blocks if b is not subject)]


#: A question that asks how two concepts go together: "the relationship / association / link between X and Y",
#: "Is X associated / related / linked with Y", "How does X relate to Y", "Is X a risk factor / predictor for Y",
#: "Does X predict Y".
_RELATION_RES = tuple(re.compile(p, re.I) for p in (
    r"\b(?:relationships?|associations?|links?|correlations?|relations?)\s+between\s+(?P<x>.+?)\s+and\s+(?P<y>.+)",
    r"\b(?:is|are|was|were)\s+(?P<x>.+?)\s+(?:(?:positively|negatively|independently)\s+)?"
    r"(?:associated|related|linked|correlated)\s+(?:with|to)\s+(?P<y>.+)",
    r"\bhow\s+(?:does|do)\s+(?P<x>.+?)\s+(?:relate|correlate)\s+(?:to|with)\s+(?P<y>.+)",
    r"\b(?:is|are)\s+(?P<x>.+?)\s+(?:an?\s+)?(?:independent\s+)?"
    r"(?:(?:risk|prognostic|predictive)\s+(?:factors?|markers?)|predictors?)\s+(?:for|of)\s+(?P<y>.+)",
    r"\b(?:does|do)\s+(?P<x>.+?)\s+predict\s+(?P<y>.+)",
))


#: The words of such a frame, which name no concept of their own ("relationship*", "risk factor").
_RELATION_WORDS = frozenset("relationship relationships association associations link links correlation "
                            "correlations relation relations risk factor factors predictor predictors prognostic "
                            "predictive marker markers independent possible potential novel modifiable".split())


#: A title's "X as a risk / prognostic factor for Y" ("Frailty as a prognostic factor for postoperative delirium"):
#: the frame between X and Y.
_FACTOR_FRAME_RE = re.compile(
    r"\bas\s+an?\s+(?:(?:independent|possible|potential|novel|modifiable)\s+)?"
    r"(?:(?:risk|prognostic|predictive)\s+(?:factor|marker)|predictor)\s+(?:for|of)\b", re.I)


def _drop_factor_frame(blocks: list[ConceptBlock], title: str) -> None:
    """A title "X as a prognostic factor for Y" names no concept by its frame: the frame's terms leave the
    blocks (``"prognostic factor"`` was an alternative of X's block), as :func:`_read_relation` does for a
    question's."""
    if not _FACTOR_FRAME_RE.search(title.replace(_JOIN, " ")):
        return
    for b in blocks:
        frame = [t for t in b.terms if {w.casefold() for w in re.findall(_WORD, t)} <= _RELATION_WORDS]
        if frame and len(frame) < len(b.terms):
            b.terms = [t for t in b.terms if t not in frame]


def _read_relation(blocks: list[ConceptBlock], topic: str) -> list[ConceptBlock]:
    """A question relating two subjects (:data:`_RELATION_RES`) keeps its shape (the first subject, or the second
    alone with what else it names: a relation's studies name its constructs many ways, so neither is required
    of the other), but the frame names no concept: its words leave the blocks ("relationship*", "risk factor"),
    a gene is its symbol, not what is studied of it ("variants in the APOE gene": never ``variant*`` alone), and
    an outcome is not graded ("associated with lower stress": any study of stress)."""
    sentence = topic.replace(_JOIN, " ")
    match = next((m for r in _RELATION_RES for m in [r.search(sentence)] if m), None)
    if match is None or not blocks:
        return blocks
    for b in blocks:
        frame = [t for t in b.terms if {w.casefold() for w in re.findall(_WORD, t)} <= _RELATION_WORDS]
        if frame and len(frame) < len(b.terms):
            b.terms = [t for t in b.terms if t not in frame]
        elif frame:
            b.required = b.in_query = False
    y = match.group("y").casefold()
    for b in blocks:
        words = _content_words(b.label)
        if len(words) >= 2 and words[0].casefold() in _COMPARED_DEGREES and not b.aspect and _named_in(b, y):
            b.terms = _dedupe(v for t in _run_terms(words[1:]) for v in _spellings(t)) or b.terms
    main = next((b for b in blocks if b.required), blocks[0])
    gene = next((b for b in blocks if _gene_block(b)), None)
    if gene is None:
        return blocks
    if _only_gene_heads(main):
        main.required = main.in_query = False
        gene.required, gene.setting = True, False
        blocks = [gene, *(b for b in blocks if b is not gene)]
    return blocks


def _trait_of_genetic_studies(blocks: list[ConceptBlock]) -> list[ConceptBlock]:
    """A question relating a gene (the main block) to a trait ("Is the G C677T variant associated with Y?",
    "Which polymorphisms in the G gene predict Y?") keeps its shape, the gene or the trait with what else it
    names, but the trait's branch is its genetic studies (:data:`GENETIC_FINDING_TERMS` AND-ed): ``G OR Y`` was
    every study of Y, whatever it treated; a study of the gene without the trait's words is still found by the
    gene."""
    gene = next((b for b in blocks if b.required), None)
    if gene is None or not _gene_block(gene):
        return blocks
    rest = [b for b in blocks if b is not gene and (b.required or b.in_query) and not b.organism]
    if not rest or any(_genetic_frame_only(b) for b in rest) or any(b.independent for b in rest):
        return blocks
    frame = next((b for b in blocks if _genetic_frame_only(b)), None)
    if frame is None:
        frame = ConceptBlock("exposure", "genetic variants", [])
        blocks = [*blocks, frame]
    frame.terms = _dedupe([*frame.terms, *GENETIC_FINDING_TERMS])
    frame.required = frame.in_query = True
    return blocks


#: Degree words a relation's outcome is named with ("associated with lower stress", "with reduced risk of"): its
#: studies report the outcome whichever way it went.
_COMPARED_DEGREES = DEGREE_MODIFIERS | frozenset("lower higher greater better worse poorer fewer more less".split())


def _only_gene_heads(block: ConceptBlock) -> bool:
    """The block names only what is studied of a gene ("variants", "polymorphisms"), not the gene."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and all(w in _GENE_HEADS for w in words)


def _gene_block(block: ConceptBlock) -> bool:
    """A gene by its symbol and a gene head ("the APOE gene", "CYP2C19 polymorphisms"), or its name and symbol
    after "gene" ("the serotonin transporter gene SLC6A4")."""
    words = _content_words(block.label)
    if len(words) >= 3 and _is_acronym(words[-1]) and words[-2].casefold() == "gene":
        return True
    return len(words) >= 2 and _is_acronym(words[0]) and words[-1].casefold() in _GENE_HEADS


def _named_gene_terms(block: ConceptBlock) -> list[str]:
    """A gene named and then given its symbol ("the serotonin transporter gene SLC6A4"): its symbol alone, which
    its studies all say, and its name as a gene's (``"serotonin transporter gene"``); not the parts of the phrase,
    each a concept of every field (``"transporter gene"``, ``"serotonin transporter"``: the protein); [] for
    another gene block."""
    words = _content_words(block.label)
    if len(words) < 3 or not _is_acronym(words[-1]) or words[-2].casefold() != "gene":
        return []
    name = '"' + " ".join(w.casefold() for w in words[:-1]) + '"'
    return _dedupe([words[-1], *(t for t in block.terms if t.casefold() == name)])


def _symbol_of_kind(block: ConceptBlock) -> list[str]:
    """A gene's symbol before plain words that say which kind of its variants ("CYP2C19 loss-of-function alleles",
    "BRCA1 founder mutations"): the symbol alone, which its studies say whatever they call the variants ("CYP2C19
    genotype", "CYP2C19*2 carriers"; the phrase was the gene's only term); not before a named variant ("MTHFR
    C677T polymorphism", "COMT Val158Met genotype": a code, which the phrase keeps)."""
    words = _content_words(block.label)
    middle = words[1:-1]
    if len(words) < 3 or not _is_acronym(words[0]) or any(_is_acronym(w) or any(c.isdigit() for c in w)
                                                          for w in middle):
        return []
    return [words[0]]


def _genetic_frame_only(block: ConceptBlock | str) -> bool:
    """The block (or phrase) names only the genetic frame ("polymorphisms", "genetic variants", "susceptibility
    loci"): no gene, no condition."""
    label = block if isinstance(block, str) else block.label
    # "gene expression" is a concept of its own; an adverb is no word of a concept ("genetic loci consistently")
    words = [w.casefold() for w in _content_words(label) if not _adverb(w)]
    return bool(words) and "expression" not in words and all(w in _GENETIC_FRAME_WORDS for w in words) and any(
        w != "susceptibility" for w in words)


def _split_genetic_frame(block: ConceptBlock, acronyms: dict[str, str]) -> ConceptBlock | None:
    """A frame block that a list joined to the condition ("Genetic polymorphisms and susceptibility to
    tuberculosis": ``polymorphism* OR tuberculosi*``): the condition's items and their own terms as a block of
    their own, out of the frame's; None when the block holds nothing but the frame."""
    other = [i for i in block.items if not _genetic_frame_only(i)]
    if not other or len(other) == len(block.items) or not _genetic_frame_only(block):
        return None
    frame_terms = {t for i in block.items if i not in other for t in _variants(i, acronyms)}
    own = {t for i in other for t in _variants(i, acronyms)} - frame_terms
    moved = [t for t in block.terms if t in own]
    if not moved:
        return None
    block.terms = [t for t in block.terms if t not in moved]
    block.items = [i for i in block.items if i not in other]
    block.n_items = len(block.items)
    return ConceptBlock(block.facet, other[0], moved, n_items=len(other), items=other)


#: What genetic studies of a condition say they examine ("MTHFR C677T polymorphism and migraine", "susceptibility
#: loci for X", "HLA-B*58:01 allele"): the terms an abstract's frame block holds, AND-ed with the condition.
GENETIC_FINDING_TERMS = ("polymorphism*", "variant*", "allel*", "genotyp*", "locus", "loci", "mutation*", "SNP*",
                         "haplotyp*", "GWAS")


def _genetic_frame(blocks: list[ConceptBlock], question: bool, acronyms: dict[str, str]) -> list[ConceptBlock]:
    """A text that names a gene by its symbol or the condition its variants are studied for ("Which polymorphisms
    in the SLCO1B1 gene predict X", "Genetic variants associated with migraine") searches those, never the frame
    alone (:func:`_genetic_frame_only`: ``polymorphism*``, ``variant*``, every genetics study's words): with a gene
    the frame leaves the query and the gene is the main block; with a condition a question's frame leaves (its
    studies name the condition, not always the frame: "HLA-C*06:02 and psoriasis"), an abstract's follows the
    condition, holding what genetic studies say they examine (:data:`GENETIC_FINDING_TERMS`; AND-ed where its
    title names it: the condition alone is every study of it). A frame with nothing else named stays; a condition
    listed with it leaves its block first (:func:`_split_genetic_frame`). A gene's block searches the gene, never
    what is studied of every gene alone ("BDNF Val66Met polymorphism": ``polymorphism*`` was an alternative)."""
    for b in blocks:
        if _gene_block(b):
            own = [t for t in b.terms if t.strip('"*').casefold() not in _GENE_HEADS
                   and t.strip('"*').casefold() + "s" not in _GENE_HEADS]
            symbol = _symbol_of_kind(b)
            # with its symbol alone, no part without it: "loss-of-function alleles" are every gene's
            own = [t for t in own or b.terms if symbol[0].casefold() in t.casefold()] if symbol else own
            b.terms = _named_gene_terms(b) or _dedupe([*(own or b.terms), *symbol])
    for b in [b for b in blocks if b.required]:
        split = _split_genetic_frame(b, acronyms)
        if split is not None:
            blocks = [*blocks[: blocks.index(b) + 1], split, *blocks[blocks.index(b) + 1:]]
    frame = [b for b in blocks if b.required and _genetic_frame_only(b)]
    gene = next((b for b in blocks if _gene_block(b)), None)
    subjects = [b for b in blocks if b.required and b not in frame and not b.generic and _names_subject(b)]
    if not frame or gene is None and not subjects:
        return blocks
    if gene is not None or question:
        for b in frame:
            b.required = b.in_query = b.independent = False
    else:
        frame[0].terms = _dedupe(frame[0].terms + list(GENETIC_FINDING_TERMS))
    if gene is None:
        return [*subjects[:1], *(b for b in blocks if b not in frame and b not in subjects[:1]), *frame]
    gene.required, gene.setting = True, False
    return [gene, *(b for b in blocks if b is not gene and b not in frame), *frame]


#: A title "Effects of X on Y" (also impact, influence): X is done, Y what it is done to.
_EFFECT_OF_ON_RE = re.compile(r"\b(?:effects?|impacts?|influences?)\s+of\b.+?\bon\b")


def _named_in(block: ConceptBlock, sentence: str) -> bool:
    """The lower-case ``sentence`` names the block's concept: every word of its label (by its first five
    letters), or one of its acronyms."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and all(re.search(r"\b" + re.escape(w[:5]), sentence) for w in words) or any(
        _is_acronym(t) and re.search(r"\b" + re.escape(t.casefold()) + r"\b", sentence) for t in block.terms)


def _title_subjects(blocks: list[ConceptBlock], title: str, alone: bool = False) -> list[ConceptBlock]:
    """An abstract's blocks are its title's subjects, AND-ed: the main block and each other required concept the
    title names (up to :data:`MAX_INDEPENDENT_BLOCKS` in all) are independent concepts, each an OR-group of its
    variants ("Cerebral small vessel disease and the risk of dementia": SVD AND dementia). A concept only the
    aim sentence names, or one past the cap, is left out: it would add an alternative or a narrowing the title
    does not ask for. A ``title`` that is the whole text (no abstract tells what its studies are of) keeps a
    condition it names after "in" (:func:`_condition_setting`)."""
    if not blocks:
        return blocks
    low = whole = title.casefold().replace(_JOIN, " ")
    # a subtitle ("...: lessons for translation") says what the review concludes or why; the subjects to AND are
    # those before it, where the main one is named there
    head = re.split(r"(?<=\w):\s", low, maxsplit=1)[0]
    if _named_in(blocks[0], head):
        low = head
    kept = [blocks[0]]
    for block in blocks[1:]:
        # a comparator ("versus X") or a concept of generic words alone ("common therapies", "health") is no subject;
        # nor who the studies are about ("in rodents": its studies say "rats" or "mice"), nor an aspect of a
        # subject ("psychological theories of X": its studies test the theories' factors, never name them), nor
        # where ("X in software engineering": its studies name X, seldom the field)
        field = _field_of_everyday_outcome(block, blocks, low) if block.setting else None
        counted = _people_of_prevalence(block, head)
        subject = (block.facet != "comparator" and (not _who_block(block) or _how_people(block, head)
                                                     or _people_first_of_title_pair(block, head)
                                                     or _experiencing_people(block, head) or counted)
                   and (not _generic_label(block.label) or _first_of_title_pair(block, head, alone))
                   and not block.aspect and (not block.setting or _unit_of_care(block) or field is not None
                                             or counted or alone and _condition_setting(block))
                   and not _umbrella_outcome(block))
        if not (subject and block.required and not block.generic and len(kept) < MAX_INDEPENDENT_BLOCKS):
            continue
        if _named_in(block, low):
            block.independent = True
            block.setting = False  # a unit of care kept is a subject (:func:`_unit_of_care`)
            if field is not None:
                # its studies name the field by its head ("chemistry achievement of grade 10 students"), and the
                # everyday outcome by a measure of its own ("test scores"): the field carries it, never ``achievem*``
                block.terms = _dedupe([*block.terms, _render(truncation(_content_words(block.label)[-1].casefold()))])
                field.required = field.independent = field.in_query = False
                kept = [b for b in kept if b is not field]
            kept.append(block)
        elif _stem_in_title(block, low, kept[0]):
            # named by a word of its own ("suicide-related" for "self-harm, suicidality"), not by its label: an
            # alternative when specific, never AND-ed (the label's words are the aim's, not the title's)
            block.required = block.in_query = False
            block.side = True
            kept.append(block)
    # the animals a title names, wherever in it ("Animal models of X", "...: X in stressed rodents"): a filter on
    # the whole query, beyond the cap
    kept += [b for b in blocks[1:] if b.organism and b not in kept and _named_in(b, whole)]
    kept += _animals_of_settings([b for b in blocks[1:] if b not in kept], whole)
    for block in kept[1:]:
        if block.organism:
            block.required = True
    return kept


def _outcome_restated_by_aim(kept: list[ConceptBlock], left: list[ConceptBlock]) -> None:
    """The outcome the aim names in place of the title's one ("Intermittent fasting and cognitive function in ...":
    "to assess the effect of intermittent fasting on learning and memory") restates it in the words its studies
    measure: where the title names one outcome, the aim's outcomes the title does not name join it as variants
    (they were left out, and the title's umbrella alone missed "improves spatial memory"); where the title names
    none, an outcome the aim names on a title block's own stem joins that block (:func:`_restated_block`)."""
    outcomes = [b for b in kept[1:] if b.facet == "outcome" and b.independent]
    # with none, an optional outcome kept beside the title's blocks restates one of them too
    restating = left if outcomes else left + [b for b in kept[1:] if not b.required]
    for block in restating:
        kept_beside = block not in left  # optional, and maybe read from the aim's side clause
        if (block.facet == "outcome" and (block.required or kept_beside) and not block.generic and block.terms
                and not (block.setting or block.aspect or block.side and not kept_beside or block.organism)):
            target = outcomes[0] if len(outcomes) == 1 else _restated_block(kept, block) if not outcomes else None
            if target is not None and target is not block:
                target.terms = _dedupe([*target.terms, *block.terms])


#: "Outcomes were A, B and C", "The primary outcomes were ...", "Main outcome measures: ...": what the review
#: measured its one outcome by (a secondary outcome is another concept).
_OUTCOMES_LISTED_RE = re.compile(
    r"(?:^|(?<=[.;:]\s))(?:(?:the\s+)?(?:primary|main)\s+)?outcomes?(?:\s+measures?)?(?:\s+(?:were|was|included)|:)"
    r"\s+([^.;]+)", re.I)
#: Where or when an outcome was measured, after its name ("at the longest follow-up", "in the forced swim test").
_MEASURED_WHERE_RE = re.compile(r"\s+(?:at|in|on|during|after|over|measured|assessed|using|with)\b.*$", re.I)


def _outcomes_listed(kept: list[ConceptBlock], text: str, acronyms: dict[str, str]) -> None:
    """The outcomes a review lists as measured restate its title's one outcome in its studies' words ("Effects of
    expressive writing on psychological distress ...": "Outcomes were depressive symptoms, anxiety and
    post-traumatic stress symptoms"): each joins it as a variant (a trial reporting anxiety never says distress).
    Only where the title names one outcome, what X acts "on" (not "X and insects": a subject, which a list of
    "abundance, activity, development" measured in insects no more names), and no item of words of every field
    alone (:data:`GENERIC_ZIPF`); the list ends where a clause of its own begins (", and effect sizes were ...")."""
    outcomes = [b for b in kept[1:] if b.facet == "outcome" and b.independent]
    said = _sentences(text)[0].casefold()  # the title as written, not as "X and Y" was read (:func:`_related_pair`)
    if len(outcomes) != 1 or not re.search(r"\bon\s+(?:the\s+)?" + re.escape(outcomes[0].label.casefold()), said):
        return
    for m in _OUTCOMES_LISTED_RE.finditer(text):
        listed = re.sub(r",?\s+and\s+[^,;]*?\b(?:were|was|are|is)\b.*$", "", m.group(1))
        for item in _split_items(listed):
            item = _MEASURED_WHERE_RE.sub("", item)
            words = _content_words(item)
            if not words or _is_meta_item(item) or all(general_zipf(w.casefold()) >= GENERIC_ZIPF for w in words):
                continue
            outcomes[0].terms = _dedupe([*outcomes[0].terms, *_variants(item, acronyms)])


def _restated_block(kept: list[ConceptBlock], outcome: ConceptBlock) -> ConceptBlock | None:
    """A title with no outcome of its own ("Aerobic exercise for cognitive impairment in people with
    schizophrenia") whose aim names one on a stem of a title block's word ("on global cognition"): the aim says the
    title's concept in the words its studies measure ("improved cognitive performance"), which join it. Only the
    one title block, not who the studies are about, with such a rare shared stem (below :data:`GENERIC_ZIPF`), and
    only where another required block is AND-ed with it."""
    stems = {truncation(w.casefold()) for w in _content_words(outcome.label)}
    stems = {s for s in stems if s.endswith("*") and general_zipf(s.rstrip("*")) < GENERIC_ZIPF}
    sharing = [b for b in kept if b.required and not (_who_block(b) or b.organism or b.setting or b.aspect)
               and stems & {truncation(w.casefold()) for w in _content_words(b.label)}]
    # and AND-ed with another: a query of one block would be every study of the stem (``cognit*``)
    anded = sum(b.required and b.in_query for b in kept) >= 2
    return sharing[0] if len(sharing) == 1 and anded else None


def _animals_of_settings(dropped: list[ConceptBlock], title: str) -> list[ConceptBlock]:
    """The animal that opens a setting the title names ("in the zebrafish novel tank test", "in the rat forced
    swim test"): the test is where, no subject, but the studies are of that animal, which filters the query as
    the animals a title names do (:func:`_title_subjects`)."""
    out: list[ConceptBlock] = []
    for block in dropped:
        words = [w.casefold() for w in _content_words(block.label)]
        if (not block.setting or len(words) < 2 or words[0] not in _SPECIES_WORDS
                or any(b.label == words[0] for b in out)):
            continue
        if re.search(r"\b" + re.escape(words[0]) + r"\b", title):
            animal = ConceptBlock("population", words[0], items=[words[0]])
            _as_organisms(animal, {})
            out.append(animal)
    return out


#: A title that opens with the frame of a gene-environment study ("Gene-environment interaction between X and Y
#: in Z", "Gene-by-environment interactions of X and Y") or of a drug interaction study ("Drug-drug interactions
#: between X and Y", "Pharmacokinetic interactions of X with Y"): general vocabularies of genetic epidemiology
#: and of pharmacology.
_INTERACTION_TITLE_RE = re.compile(
    r"^\W*(?:gene[-\s](?:by[-\s])?environment(?:al)?|g\s*[x×]\s*e|(?:[a-z]+-)?drug|pharmaco(?:kinetic|dynamic))"
    r"\s+interactions?\s+(?:between|of)\s", re.I)
#: The words of that frame: a block of these alone names the relation, no concept.
_INTERACTION_FRAME_WORDS = frozenset(
    "gene genes environment environments environmental interaction interactions gene-environment "
    "gene-by-environment gxe drug drugs drug-drug pharmacokinetic pharmacodynamic".split())


def _interaction_frame_off(blocks: list[ConceptBlock], title: str) -> None:
    """A title "Gene-environment interaction between X and Y in Z" relates a gene X and an exposure Y in an outcome
    Z: the frame names the relation, as "risk factors for" does (:func:`_factors_of_first`), and its block leaves
    the query (a study of the interaction seldom names the frame; it took a subject's place, and Z was lost); Z
    after "in" is what the interaction is studied for, no setting. So does "Drug-drug interactions between X and
    Y": its studies give X with Y and measure X's levels or events ("Effect of carbamazepine on the
    pharmacokinetics of apixaban"), seldom saying "interaction"."""
    low = title.casefold().replace(_JOIN, " ")
    if not _INTERACTION_TITLE_RE.match(low):
        return
    head = re.split(r"(?<=\w):\s", low, maxsplit=1)[0]
    for block in blocks:
        words = {w.casefold() for w in re.findall(r"[\w-]+", block.label.replace(_JOIN, " "))}
        if words and {w for w in words if not w.endswith("-drug")} <= _INTERACTION_FRAME_WORDS:  # "herb-drug"
            block.required = block.in_query = block.independent = False
        elif block.setting and not (_who_block(block) or block.organism) and _named_in(block, head):
            block.setting = False


#: What follows a title's first subject when the title names two ("X and Y", read "X on Y" where another sentence
#: relates them, :func:`_related_pair`), past a word its label left out ("social media use": "social media").
_PAIR_NEXT_RE = re.compile(r"(?:\s+[\w-]+)?\s+(?:and|on|(?P<purpose>for))\s+\w")


#: ... and in a title that is the whole text, "X in Y" too ("Music therapy in dementia"): X is what is reviewed.
_PAIR_NEXT_ALONE_RE = re.compile(r"(?:\s+[\w-]+)?\s+(?:and|on|in|(?P<purpose>for))\s+\w")


def _first_of_title_pair(block: ConceptBlock, head: str, alone: bool = False) -> bool:
    """The block is the first of a title's two subjects ("Video game play and aggressive behaviour", "Social
    support and postpartum depression"), a phrase of two or more content words that names a thing (no who, no
    aspect, no setting): ``head`` (the title before its subtitle, lower case) opens with its label and goes on
    with "and" / "on"."""
    label = " ".join(block.label.replace(_JOIN, " ").split()).casefold()
    words = _content_words(label)
    nxt = (_PAIR_NEXT_ALONE_RE if alone else _PAIR_NEXT_RE).match(head[len(label):])
    # "X for Y" (what X is for): X a kind named by nouns ("music therapy"), not an adjective's choice among all
    # ("common therapies for gout": no concept of its own)
    named_kind = nxt is not None and (not nxt.group("purpose") or all(
        word_classes(w) == {"NOUN"} or word_classes(w) == {"NOUN", "VERB"} for w in words
        if w.casefold() not in GENERIC_HEADS))
    return (len(words) >= 2 and head.startswith(label) and named_kind
            and block.facet != "comparator" and not (block.aspect or block.setting or block.organism)
            and not _who_block(block))


def _everyday_first_subject(blocks: list[ConceptBlock], title: str, alone: bool = False) -> None:
    """A title's first subject named by everyday words ("video game play", "social support", "social media use")
    is a subject all the same: general English gives such a phrase its words' frequency (``wordfreq`` combines
    them: "social support" 5.17, as common as "effect"), while two content words side by side are about one Zipf
    rarer as a phrase (measured on the pool, :data:`~agentr_dagster.domain.specificity.PHRASE_WORD_PENALTY`'s
    note). Its block was left generic (out of the query) or kept only a longer phrase ("received social
    support"); it takes the label's own phrase back, quoted, never a word of it alone, and is required. A title
    that is the whole text (``alone``) names it before "in" too ("Music therapy in dementia")."""
    head = re.split(r"(?<=\w):\s", title.casefold().replace(_JOIN, " "), maxsplit=1)[0]
    head = " ".join(head.split())
    for block in blocks:
        if not (block.generic or _generic_label(block.label)) or not _first_of_title_pair(block, head, alone):
            continue
        phrases = [t for t in block.terms if t.startswith('"')]
        block.terms = _dedupe([*_phrase_terms(" ".join(_content_words(block.label))), *phrases])
        block.generic, block.required, block.in_query = False, True, True
        if blocks.index(block) > 1:  # a title subject before what only the abstract names (the cap counts)
            blocks.remove(block)
            blocks.insert(1, block)
        return


#: The heads of a hospital's parts (a general vocabulary of places of care): a kind of one ("the paediatric intensive
#: care unit", "the emergency department") is where its studies are done, and they name it.
_CARE_UNIT_HEADS = frozenset("unit units ward wards department departments".split())


#: The endings of English names of disciplines ("radiology", "dentistry", "psychiatry", "orthodontics").
_DISCIPLINE_ENDINGS = ("logy", "istry", "iatry", "ics")


def _condition_setting(block: ConceptBlock) -> bool:
    """A setting after "in" that names a condition, not a field or a place ("Exercise interventions in autism
    spectrum disorder", "... in asthma"): a phrase with a condition's head (:data:`EPONYM_HEADS`), or of lower-case
    words with a singular head, one of them rarer than :data:`TOPIC_WORD_ZIPF` in every spelling. Its studies are
    of people with it and name it; without it the query is every study of the intervention ("X in software
    engineering", "in secondary education", "in sub-Saharan Africa", "in dentistry" stay settings)."""
    words = _content_words(block.label.replace(_JOIN, " "))
    if not words or block.organism or _who_block(block) or _generic_label(block.label):
        return False
    head = words[-1].casefold()
    if head in EPONYM_HEADS or head[:-1] in EPONYM_HEADS and _plural(head):  # "mood disorders"
        return True
    # a plural head names who or what the studies are of, said many ways ("preterm infants": "very low birth
    # weight newborns"); a condition is a mass noun ("asthma", "heart failure"), no discipline's name
    # ("dentistry", "radiology", "orthodontics": its studies say "dental", "radiographs")
    return (not _plural(head) and not head.endswith(_DISCIPLINE_ENDINGS) and all(w.islower() for w in words)
            and any(max(general_zipf(s) for s in _spellings(w)) < TOPIC_WORD_ZIPF for w in words))


def _unit_of_care(block: ConceptBlock) -> bool:
    """A setting that names a kind of unit, ward or department of care by a phrase of its own ("Nurses' moral
    distress in the paediatric intensive care unit"): a subject to AND, as its studies name it, where a field
    ("X in software engineering") or a place of every study ("in hospitals") is not."""
    words = [w.casefold() for w in _content_words(block.label.replace(_JOIN, " "))]
    return len(words) >= 3 and words[-1] in _CARE_UNIT_HEADS and not _generic_label(block.label)


def _experiencing_people(block: ConceptBlock, head: str) -> bool:
    """The people a title "Experiences of <people> ..." opens with ("Experiences of family caregivers of people
    living with dementia", "Perspectives of nurses on X"): the review is of their experience, a subject to AND, as
    "How <people> V" is (:func:`_how_people`); the people left, X alone was every study of dementia."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and re.match(r"\W*(?:the\s+)?(?:lived\s+)?(?:experiences?|perspectives?|perceptions?|views)"
                                    r"\s+of\s+(?:[\w'-]+\s+){0,2}?" + re.escape(words[0][:5]), head) is not None


def _people_of_prevalence(block: ConceptBlock, head: str) -> bool:
    """The people a title "Prevalence of X among <people>" counts X in ("... among refugees resettled in
    high-income countries"): a prevalence is of a population, and its surveys name whom they sampled; left out, X
    alone was every study of X."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and re.match(r"\W*(?:the\s+)?(?:[\w-]+\s+)?prevalence\s+of\s+(?:(?!\b(?:among|in)\b)[^:])+?"
                                    r"\s(?:among|in)\s+"
                                    r"(?:[\w'-]+\s+){0,2}?" + re.escape(words[0][:5]), head) is not None


def _people_first_of_title_pair(block: ConceptBlock, head: str) -> bool:
    """People named first of a title's two subjects ("Community health workers and tuberculosis treatment
    outcomes"): what the review is of (their work, their state), a subject to AND, not who the studies happen to
    be about (the block vanished and the outcomes stood alone)."""
    label = " ".join(block.label.replace(_JOIN, " ").split()).casefold()
    return bool(label) and head.startswith(label) and bool(_PAIR_NEXT_RE.match(head[len(label):]))


def _how_people(block: ConceptBlock, head: str) -> bool:
    """The people a title "How <people> V ..." opens with ("How midwives experience and cope with stillbirth"):
    the review is of their experience, so they are a subject to AND, not who the studies happen to be about."""
    words = [w.casefold() for w in _content_words(block.label)]
    return bool(words) and re.match(r"\W*how\s+(?:(?:do|did)\s+)?(?:[\w'-]+\s+){0,3}?" + re.escape(words[0][:5]),
                                    head) is not None


def _field_of_everyday_outcome(block: ConceptBlock, blocks: list[ConceptBlock], low: str) -> ConceptBlock | None:
    """A setting after "in" that follows an outcome named by one everyday word ("achievement in secondary school
    chemistry", "engagement in undergraduate statistics"): the outcome alone is every field's, so the field is
    what it is measured in, a subject to AND (a field after the intervention, "X in software engineering", is
    where X is studied and stays a setting). The outcome's block, or None."""
    words = [w.casefold() for w in _content_words(block.label.replace(_JOIN, " "))]
    if not words or _generic_label(block.label):
        return None
    for other in blocks:
        head = [w.casefold() for w in _content_words(other.label)]
        if other is block or other.facet != "outcome" or len(head) != 1 or general_zipf(head[0]) < EVERYDAY_WORD_ZIPF:
            continue
        pattern = r"\b" + re.escape(head[0]) + r"\s+in\s+(?:[\w-]+\s+){0,3}?" + re.escape(words[0][:5])
        if re.search(pattern, low):
            return other
    return None


def _umbrella_outcome(block: ConceptBlock) -> bool:
    """An outcome named by a common head ("effects of X on cardiometabolic health", "on mental health"): its studies
    name the particular outcomes (obesity, diabetes), seldom the umbrella, so it is no subject to AND."""
    words = _content_words(block.label)
    return block.facet == "outcome" and bool(words) and words[-1].casefold() in _UMBRELLA_HEADS


#: Heads that gather many outcomes under one name (a general vocabulary, not a field's).
_UMBRELLA_HEADS = frozenset("health outcome outcomes wellbeing well-being functioning development".split())


def _stem_in_title(block: ConceptBlock, title: str, main: ConceptBlock) -> bool:
    """The title names the block by one of its word stems, outside the main block's label: the aim says "in
    relation to self-injury and suicidality", the title "X and suicide-related outcomes". A stem of four letters
    or more that the block kept (its common words were dropped before) and the main block does not hold."""
    main_words = {w.casefold()[:5] for w in _content_words(main.label)}
    main_terms = {t.casefold() for t in main.terms}
    stems = [t.rstrip("*").casefold() for t in block.terms if t.endswith("*") and t[:1].isalpha()
             and " " not in t and len(t.rstrip("*")) >= 4 and t.casefold() not in main_terms]
    return any(w.casefold()[:5] not in main_words and any(w.casefold().startswith(s) for s in stems)
               for w in re.findall(_WORD, title))


#: "(to identify) studies investigating X": what the included studies are about, in an abstract's aim sentence.
_STUDIES_OF_RE = re.compile(
    r"\b(?:studies|trials|articles|papers|research)\s+(?:that\s+(?:have\s+)?)?"
    r"(?:investigat|examin|explor|analy[sz]|studied|studying)\w*\s+(.+)$", re.I)


def _studied_subject(blocks: list[ConceptBlock], aims: list[str], verbs: frozenset[str]) -> ConceptBlock | None:
    """The block of what an abstract's aim sentence says its studies investigate ("to identify studies
    investigating X on Y and to count those that mention Z": X), when a block names it; else None."""
    for sentence in aims:
        m = _STUDIES_OF_RE.search(sentence)
        chunks = _chunks(m.group(1), verbs) if m else []
        if not chunks or chunks[0].cue:
            continue
        words = {w.casefold() for i in chunks[0].items for w in _content_words(i)}
        scored = [(len(words & {w.casefold() for w in _content_words(b.label)}), k) for k, b in enumerate(blocks)]
        best = max(scored, default=(0, 0))
        if best[0]:
            return blocks[best[1]]
    return None


def _studies_subject_first(blocks: list[ConceptBlock], studied: ConceptBlock) -> list[ConceptBlock]:
    """What the studies investigate is the main block (required, even where the title names it as a setting:
    "Z in X on Y"); the title's other subjects are what the review looks for within those studies, so they are
    no longer AND-ed with it (they stay in the rest of the query)."""
    if studied.generic:
        return blocks
    rest = [b for b in blocks if b is not studied]
    for b in rest:
        b.independent = False
    studied.required, studied.independent, studied.setting, studied.aspect = True, False, False, False
    return [studied, *rest]


#: "associations of A, B and C with (the risk of) D": what is associated with what (an exposure and an outcome).
_ASSOCIATION_RE = re.compile(r"\bassociations? of\s+(.+?)\s+with\s+(.+)$", re.I)


def _join_associated(blocks: list[ConceptBlock], text: str, verbs: frozenset[str], acronyms: dict[str, str],
                     zipf_floor: float, background: Background | None, share_floor: float | None) -> None:
    """An abstract whose title ANDs two subjects ("X and the risk of Y") and whose aim or method says "associations
    of A, B and C with Y": A, B, C are what its studies name for X (an umbrella, "small vessel disease", whose
    studies name its markers), so they join X's block as variants, through the usual generic checks. Not from a
    results sentence (its figures and "was associated" say what was found), and only with two subjects: Y
    names one, the list is the other's."""
    if len(blocks) != 2 or not blocks[1].independent:
        return
    for sentence in _sentences(_restore_headings(text)):
        m = _ASSOCIATION_RE.search(sentence)
        if m is None or _RESULT_RE.search(sentence):
            continue
        listed, other = m.group(1), m.group(2).casefold().replace(_JOIN, " ")
        named = [b for b in blocks if _named_in(b, other) or any(
            " " not in t.strip('"') and t.endswith("*") and re.search(r"\b" + re.escape(t.rstrip("*").casefold()),
                                                                      other) for t in b.terms)]
        if len(named) != 1:
            continue
        target = blocks[1] if named[0] is blocks[0] else blocks[0]
        items = [i for c in _chunks(listed, verbs) for i in c.items if not _is_meta_item(i)]
        new = _dedupe(t for i in items for t in _variants(i, acronyms))
        if len(items) < 2 or not new:
            continue  # one phrase is a restatement, a list names the kinds
        extra = ConceptBlock(target.facet, target.label, [t for t in new if t not in target.terms])
        _drop_generic_terms([extra], zipf_floor, background, share_floor)
        if not extra.generic:
            target.kinds += extra.terms
            target.terms = _dedupe(target.terms + extra.terms)


_COMPUTED_AFTER_RE = r"\s+(?:was|were|is|are)\s+(?:calculated|computed|derived|recalculated)\b"


_COMPUTED_BEFORE_RE = r"\b(?:calculated|computed|calculating|computing|derived|deriving)\s+(?:the\s+|a\s+|an\s+)?"


_WE_CLAUSE_RE = re.compile(r"\bwe\b[^.;:?!]*", re.I)


#: A title's closing part after a colon that says what kind of paper it is ("...: a systematic mapping study",
#: "...: an umbrella review", "...: a systematic review and meta-analysis"): a few words, no preposition, ending
#: in a paper kind's noun.
_OWN_KIND_RE = re.compile(
    r"\s*:\s+(?:an?\s+)?(?:(?!(?:of|for|in|on|to|with|from|among|between)\s)[\w-]+\s+){0,3}"
    r"(?:review|study|meta-analysis|meta-regression(?:\s+analysis)?|overview|synthesis)"
    r"(?:\s+(?:and|with)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:review|study|meta-analysis|meta-regression|synthesis))?"
    r"\s*[.]?\s*$", re.I)


#: A subtitle that says the paper's kind and the kind of studies it gathers ("...: a meta-analysis of prospective
#: cohort studies", "...: a systematic review of impact evaluations", or the studies alone once the paper's kind
#: is cut: "...: impact evaluations"): no concept of the title's.
_OWN_KIND_OF_STUDIES_RE = re.compile(
    r"\s*:\s+(?:(?:an?\s+)?(?:[\w-]+\s+){0,3}(?:review|meta-analysis|overview|synthesis)"
    r"(?:\s+and\s+(?:[\w-]+\s+){0,2}(?:review|meta-analysis))?\s+of\s+)?"
    r"(?:[\w-]+\s+){0,3}(?:studies|trials|cohorts|evaluations|experiments|surveys)\s*[.]?\s*$", re.I)

#: A title's "X and Y" before its subtitle or setting ("Vitamin D supplementation and respiratory infections in
#: children: a meta-analysis"): X, Y and what follows.
_TITLE_PAIR_RE = re.compile(
    r"^([^,;:]+?)\s+and\s+([^,;:]+?)(\s+(?:in|among|of|during|after|for)\s+[^:]*)?(:.*)?$", re.I)


#: Words that relate two concepts in a sentence ("X for the prevention of Y", "X during Y", "X improved Y").
_RELATING_RE = re.compile(r"\b(?:on|in|during|for|with|after|to|of|by|from|improv\w*|reduc\w*|increas\w*|"
                          r"decreas\w*|prevent\w*|affect\w*|predict\w*|promot\w*|impair\w*)\b", re.I)


#: "the relationship between X and Y": a frame that relates its two terms (X's head, then Y's first words).
_BETWEEN_FRAME = r"\bbetween\s+(?:[\w-]+\s+){{0,3}}{x}\w*\s+and\s+(?:[\w-]+\s+){{0,2}}{y}"
#: "the effect of X on ...": X acts on something, whatever the aim calls it (X's head).
_EFFECT_OF_FRAME = r"\b(?:effects?|impacts?|influence)\s+of\s+(?:[\w-]+\s+){{0,2}}{x}\w*\s+on\s+\w"


def _related_pair(title: str, text: str, background: Background | None = None) -> str:
    """A title's "X and Y" as two concepts ("X on Y", as "the effect of X on Y" reads) when another sentence of
    the abstract relates them: names both with a preposition or a verb of effect between ("trials of vitamin D
    supplementation for the prevention of respiratory infections", "microdialysis during sleep"), not as a list
    ("anxiety and depression", "anxiety, stress and depression"). Its studies name both, so both are required.
    With a ``background``, a word before "and" that the background never writes with the phrase after it's head
    names a subject of its own (:func:`_head_never_shared`)."""
    m = _TITLE_PAIR_RE.match(title)
    # a subtitle names more concepts ("Sleep and X: a review of Y and Z"): left as it is; not the animals studied,
    # nor the kind of studies gathered
    if not m or m.group(4) and not (names_animals(m.group(4).lstrip(": "))
                                    or _OWN_KIND_OF_STUDIES_RE.match(m.group(4))):
        return title
    first, second = (_content_words(g) for g in m.group(1, 2))
    if not first or not second or len(first) == 1 and _is_acronym(first[0]) and _is_acronym(second[0]):
        return title  # "GSTM1 and GSTT1 null genotypes": two names sharing the second's head
    last = re.findall(r"[A-Za-z][\w-]*", m.group(1))[-1].casefold()[:5]
    pairs = _pair_anchors(first, second, _acronym_pairs(text))
    # a head the content words leave out ("solid fuel use"), in the "between X and Y" frame only
    between_pairs = [*pairs, (last, second[0].casefold()[:5]), (last, second[-1].casefold()[:5])]
    # "X for A and B": the pair is A and B inside a phrase, not the title's two subjects, unless another sentence
    # relates them as the title's two ("the association between household solid fuel use and infections")
    inside = _TITLE_PREPOSITION_RE.findall(m.group(1))
    if (inside and m.group(3) and m.group(3).split()[0].casefold() == inside[-1].casefold()
            and not (_person_word(first[-1].casefold()) or _person_word(second[-1].casefold()))):
        # "A in B and C in D": the same preposition after each side, so the "and" joins "A in B" and "C in D"
        # (not people listed: "depression in children and adolescents in ...")
        return f"{m.group(1)} on {m.group(2)}{m.group(3)}{m.group(4) or ''}"
    if not inside and re.match(r"[\w-]+\s+from\s+\w", m.group(2)):
        # "X and recovery from Y": a list of variants never holds a "from" phrase; Y's own head binds it
        return f"{m.group(1)} on {m.group(2)}{m.group(3) or ''}{m.group(4) or ''}"
    for sentence in _sentences(text)[1:]:
        low = sentence.casefold()
        for x, y in between_pairs:
            if re.search(_BETWEEN_FRAME.format(x=re.escape(x), y=re.escape(y)), low):
                return f"{m.group(1)} on {m.group(2)}{m.group(3) or ''}{m.group(4) or ''}"
        for x, y in pairs:
            gap = re.search(r"\b" + re.escape(x) + r"\w*\s+(.{1,80}?)\s*\b" + re.escape(y), low)
            related = gap and not re.search(r"[,;]|\b(?:and|or|nor)\b", gap.group(1)) and _RELATING_RE.search(
                gap.group(1))
            if related and not inside:
                return f"{m.group(1)} on {m.group(2)}{m.group(3) or ''}{m.group(4) or ''}"
        # the aim says what the title's first subject acts on in its own words ("Bilingualism and executive
        # function": "the effect of bilingualism on inhibitory control"): X is an exposure, and Y what it acts on,
        # no variant of X (``bilingualism* OR "executive function"`` was every study of executive function)
        if not inside and re.search(_EFFECT_OF_FRAME.format(x=re.escape(last)), low):
            return f"{m.group(1)} on {m.group(2)}{m.group(3) or ''}{m.group(4) or ''}"
    after = None if _who_after(m.group(3)) else m.group(3)
    if _two_named_subjects(m.group(1), m.group(2), after) or _head_never_shared(m.group(1), m.group(2), after,
                                                                                background):
        return f"{m.group(1)} on {m.group(2)}{m.group(3) if _who_after(m.group(3)) else ''}{m.group(4) or ''}"
    exposed = None if after else _exposure_then_other(m.group(1), m.group(2))
    if exposed:
        return f"{exposed[0]} on {exposed[1]}{m.group(3) or ''}{m.group(4) or ''}"
    last = _LAST_PAIR_RE.match(title)
    if last and _two_named_subjects(last.group(1), last.group(2), None):
        # "Fruit and vegetable intake and hip fracture": the last "and" joins the two, the first a list in X
        return f"{last.group(1)} on {last.group(2)}{last.group(3) or ''}"
    return title


#: Heads that say how people met a thing (a general vocabulary of epidemiology: "cadmium exposure", "coffee
#: consumption", "cannabis use").
_EXPOSURE_HEADS = _EXPOSURE_NOUNS | {"use"}


def _exposure_then_other(first: str, second: str) -> tuple[str, str] | None:
    """A title's "X exposure and Y" (also "X intake", "X consumption", "X use"; "A and B exposure and Y"): X as met
    by people, then a thing with no such head ("Coffee consumption and gout", "Cannabis use and psychosis in
    adolescents", "Lead and cadmium exposure and hypertension in adults"): two subjects, the exposure and what it
    is related to, never a list of one concept's variants (``"cadmium exposure" OR hypertens*`` was every study of
    hypertension, 10 % of the pool). The two sides, or None (no preposition inside, Y of one to three words and
    none of them such a head: "smoking exposure and alcohol use" are listed)."""
    if " and " in second:  # "Lead and [cadmium exposure and hypertension]": the last "and" joins the two
        listed, _, second = second.rpartition(" and ")
        first = f"{first} and {listed}"
    if _TITLE_PREPOSITION_RE.search(first + " " + second):
        return None
    x, y = re.findall(r"[A-Za-z][\w'-]*", first), re.findall(r"[A-Za-z][\w'-]*", second)
    if (len(x) < 2 or x[-1].casefold() not in _EXPOSURE_HEADS or not 1 <= len(y) <= 3
            or any(w.casefold() in _EXPOSURE_HEADS for w in y) or not _content_words(second)):
        return None
    return first, second


#: A preposition between a title's two sides: "X for A and B", "A in B and C in D" (no list of one thing's kinds).
_TITLE_PREPOSITION_RE = re.compile(r"\b(?:for|of|in|on|with|among|to|by|from|during|after|versus|vs)\b", re.I)


#: A title "A and B H and Y" (and its own kind): a coordination inside X, then the "and" of the pair.
_LAST_PAIR_RE = re.compile(r"^([^,;:]+?\s+and\s+[^,;:]+)\s+and\s+([^,;:]+?)(:.*)?$", re.I)


def _who_after(after: str | None) -> bool:
    """" in rodents", " among primary school children": who the studies are about after a title's "X and Y", no
    third concept ("Caloric restriction and lifespan extension in rodents" names two subjects, as without it)."""
    if not after or not re.match(r"\s+(?:in|among)\s", after, re.I):
        return False
    words = _content_words(after)
    return bool(words) and len(words) <= 4 and (names_animals(after) or _person_word(words[-1].casefold()))


def _two_named_subjects(first: str, second: str, after: str | None) -> bool:
    """A title that is only "X and Y" (and its own kind: "Garlic supplements and blood pressure: a systematic
    review"), each side a phrase of two content words or more with its own head, no preposition inside and nothing
    after: two subjects, not a list of one concept's variants ("anxiety and depression", "fruit and vegetable
    intake": one word before the "and"; "vascular dementia and Alzheimer's dementia", "hepatitis B and hepatitis C
    infection": a word of both, one kind of thing or a head shared)."""
    if after or _TITLE_PREPOSITION_RE.search(first + " " + second):
        return False
    x, y = _content_words(first), _content_words(second)
    return len(x) >= 2 and len(y) >= 2 and not {w.casefold()[:5] for w in x} & {w.casefold()[:5] for w in y}


def _head_never_shared(first: str, second: str, after: str | None, background: Background | None) -> bool:
    """A title's "X and Y H" with one word before the "and" is a list of two kinds of H ("anxiety and depressive
    symptoms", "fruit and vegetable intake") when X is written with H: the background's records say "X H"
    ("anxiety symptoms", "fruit intake"). Where they name X and "Y H" but never "X H" ("Loneliness and suicidal
    ideation": no record says "loneliness ideation"), X is no kind of H and the title names two subjects, as
    :func:`_two_named_subjects` reads two phrases; ``loneli* OR "suicidal ideation"`` was every study of either.
    Only where X alone is broad (over :data:`TITLE_AND_SHARE` of the records, as :func:`_and_only_when_broad`
    judges a title's subjects): a narrow X ("procrastination") finds its studies alone, and the AND of Y's phrase
    lost those that measure it in other words ("exam performance", "course grades"). Without a background
    nothing tells, and the list stays."""
    if background is None or after or _TITLE_PREPOSITION_RE.search(first + " " + second):
        return False
    x, y = _content_words(first), _content_words(second)
    if len(x) != 1 or len(y) < 2 or x[0].casefold()[:5] in {w.casefold()[:5] for w in y}:
        return False
    phrase = " ".join(y)
    return (background(x[0]) > TITLE_AND_SHARE and background(f'"{phrase}"') > 0
            and background(f'"{x[0]} {y[-1]}"') == 0)


def _pair_anchors(first: list[str], second: list[str], acronyms: dict[str, str]) -> list[tuple[str, str]]:
    """The word starts a sentence must join, in order, to relate a title's X (``first``) and Y (``second``): from
    one's head to the other's head, or to its first word (a coordination inside the other, "fruit and vegetable
    intake", is no list between the two); an acronym the abstract gives X or Y stands for it ("CCTs increased
    school enrolment"); two that share a head ("Supported Employment and competitive employment") by their first
    words."""
    a, b = first[-1].casefold()[:5], second[-1].casefold()[:5]
    a0, b0 = first[0].casefold()[:5], second[0].casefold()[:5]
    pairs = [(a0, b0), (b0, a0)] if a == b else [(a, b), (b, a), (a, b0), (b, a0)]
    for acro, long in acronyms.items():
        words = [w.casefold()[:5] for w in _content_words(long)]
        for own, other in ((first, b), (second, a)):
            if words and [w.casefold()[:5] for w in own[-len(words):]] == words:
                pairs += [(acro.casefold(), other), (other, acro.casefold())]
    return [(x, y) for x, y in pairs if x != y]


def _without_own_kind(title: str) -> str:
    """A title without its closing "...: a <kind of> review / study": the paper's own kind is no topic
    ("Object-oriented mutation testing: a systematic mapping study" gave the term ``mapping*``)."""
    return _OWN_KIND_RE.sub("", title) or title


#: A subtitle that lists single words ("...: causes, detection and repair", "...: prevalence and risk").
_LISTED_SUBTITLE_RE = re.compile(r"^(.*?\w)\s*:\s+((?:[A-Za-z]+,\s+)*[A-Za-z]+,?\s+and\s+[A-Za-z]+)\s*[.]?\s*$")


def _without_aspect_list(title: str) -> str:
    """A title without a subtitle that only lists everyday nouns ("Flaky tests: causes, detection and repair"):
    the aspects of the subject the review covers, each a word of every field (at least
    :data:`EVERYDAY_WORD_ZIPF`); read as alternatives they were ``"flaky test*" OR detectio* OR repair*``, every
    study that detects or repairs anything. A subtitle of rarer words names concepts and stays."""
    m = _LISTED_SUBTITLE_RE.match(title)
    if not m:
        return title
    items = re.findall(r"[A-Za-z]+", m.group(2).replace(" and ", " , "))
    if all(general_zipf(w.casefold()) >= EVERYDAY_WORD_ZIPF and "NOUN" in word_classes(w.casefold())
           for w in items):
        return m.group(1)
    return title


def _without_own_method(title: str, text: str) -> str:
    """A title without the words that name what the paper itself did, by what its abstract says in the first
    person: a phrase's closing noun that is the noun of a verb "we" did ("... Trajectory Analysis" where "we ...
    analyze trajectories": the analysis is the paper's, the trajectories the studies'), and a modifier leading a
    phrase that "we" name as what we used ("using the Bayesian framework": "Bayesian ..."). A word kept when it is
    all its phrase says."""
    words = re.findall(r"\S+", title)
    # the title's nouns that only name an activity or its product ("analysis", not "sleep")
    nouns = {w.strip(".,:;()").casefold()[:5] for w in words if word_classes(w.strip(".,:;()")) == {"NOUN"}}
    done: set[str] = set()
    used: set[str] = set()
    for clause in _WE_CLAUSE_RE.findall(text):
        # right after "we" a word is a verb; after "and" only one the lexicon has as nothing else
        pairs = re.findall(r"\b(we|and)\s+(?:\w+ly\s+)?([a-z]+)", clause, re.I)
        verbs = {verb.casefold()[:5] for conj, verb in pairs if len(verb) >= 5 and "VERB" in (c := word_classes(verb))
                 and (conj.casefold() == "we" or c == {"VERB"})}
        done |= verbs & nouns
        if verbs & nouns:  # what the paper's own activity used ("we ... analyze X using the Bayesian framework"),
            # not what its studies used ("we included trials using mindfulness apps")
            used.update(w.casefold() for w in re.findall(r"\busing\s+(?:the\s+|an?\s+)?([A-Za-z][\w-]+)", clause))
    if not done:
        return title
    keep = [True] * len(words)
    for i, w in enumerate(words):
        core = w.strip(".,:;()").casefold()
        prev_content = i > 0 and words[i - 1].strip(".,:;()").casefold() not in _FUNCTION | META_WORDS
        next_content = i + 1 < len(words) and words[i + 1].strip(".,:;()").casefold() not in _FUNCTION | META_WORDS
        if (core[:5] in done and word_classes(core) == {"NOUN"} and prev_content
                and (i + 1 == len(words) or not next_content)):
            keep[i] = False  # the phrase's closing noun: "trajectory analysis" -> "trajectory"
        elif core in used and next_content and (i == 0 or not prev_content):
            keep[i] = False  # the phrase's leading modifier: "Bayesian trajectory" -> "trajectory"
    return " ".join(w for w, k in zip(words, keep, strict=True) if k)


_BASED_ON_RE = re.compile(r"\bbased (?:on|upon)\b", re.I)


def _built_from_literature(title: str) -> str:
    """What a title says the paper built from the literature and its own method ("X with Informed Priors Based on
    a Systematic Literature Search and Expert Elicitation"): the phrase right before "based on" and what follows
    it, when what follows names a review method; that is the paper's product and its sources, not what its
    studies are about. Empty otherwise ("interventions based on exercise" are about exercise)."""
    m = _BASED_ON_RE.search(title)
    if m is None:
        return ""
    basis = title[m.end():]
    if not (_REVIEW_METHOD_RE.search(basis) or any(p in basis.casefold() for p in META_PHRASES)):
        return ""
    before = title[: m.start()]
    cuts = [c.end() for c in _BOUNDARY_RE.finditer(before)]
    return before[max(cuts, default=0):] + " " + basis


def _own_measure(block: ConceptBlock, text: str, acronyms: dict[str, str]) -> bool:
    """An abstract says the review computed this concept itself ("the Fragility Index (FI) ... FI was calculated
    for each RCT"): it is the review's own statistic, which its studies do not name."""
    names = [block.label, *block.items]
    names += [a for a, long in acronyms.items() if any(long.casefold() in n.casefold() or n.casefold() in
                                                        long.casefold() for n in names if n.strip())]
    for name in {n.strip() for n in names if len(n.strip()) >= 2}:
        esc = re.escape(name)
        if re.search(r"\b" + esc + _COMPUTED_AFTER_RE, text, re.I) or re.search(
                _COMPUTED_BEFORE_RE + esc + r"\b", text, re.I):
            return True
    return False
