"""The query's shape over the blocks: broad blocks, the rest branch, and the mechanical baseline."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentr_dagster.domain.specificity import Background, any_share, general_zipf, opens_onto_zipf, phrase_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.domain.word_class import is_plain_verb, verb_forms, verb_lemmas, word_classes
from agentr_dagster.llm.offline.concepts.clauses import HOW_PEOPLE_DO_RE
from agentr_dagster.llm.offline.concepts.frames import _RELATION_RES, _gene_block, _named_in
from agentr_dagster.llm.offline.concepts.generic import _shares_bound, _shares_product
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, _dedupe, _render, _sendable
from agentr_dagster.llm.offline.concepts.spelling import _spellings
from agentr_dagster.llm.offline.concepts.terms import EVERYDAY_WORD_ZIPF, _means_compound, _plural_of, _process_noun
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _BOUNDARY_RE,
    _FUNCTION,
    _JOIN,
    _WHO_FIRST,
    _WORD,
    GENERIC_HEADS,
    GENERIC_ZIPF,
    MAX_TERMS_PER_BLOCK,
    META_WORDS,
    REVIEW_KIND_TERMS,
    _content_words,
    _person_word,
)
from agentr_dagster.llm.offline.concepts.who import _who_block, is_subject

#: A single word standing as a top-level alternative of the query is broad from this share of a background's
#: records ("recurr*", "predict*" in papers of many topics): it stays only AND-ed with its concept's other words,
#: or with the next subject (:func:`_pair_broad_alone`). Judged leave-one-review-out (docs/search-strategies.md,
#: round 5).
BROAD_TERM_SHARE = 0.03


#: ... and without a background, from this general-English frequency of a word the lexicon reads only as a verb
#: ("predict*": its commonest form "predicted", 4.1): a verb of general use is said by papers of every topic;
#: general English cannot tell a broad noun ("cancer" 4.9) from a topic ("suicide" 4.6).
BROAD_VERB_ZIPF = 4.0


#: ... and without a background, a truncated stem that opens onto this much of general English (the summed
#: Zipf frequency of every word it begins: :func:`~agentr_dagster.domain.specificity.opens_onto_zipf`;
#: "alternat*" 4.95, "communic*" 5.07, "empath*" 3.9), whatever its word class. Leave-one-review-out on the
#: questions and written abstracts without a background (16 of 18 folds pick it; docs/search-strategies.md,
#: round 11).
BROAD_STEM_ZIPF = 4.8


def _broad_alone(term: str, background: Background | None, share_floor: float) -> bool:
    """A single word (no phrase, no AND-ed pair, no acronym) too broad to stand alone as a top-level alternative:
    in ``share_floor`` of the background's records or more, or without a background a truncated stem that opens
    onto much of general English (:data:`BROAD_STEM_ZIPF`) or a common word that is only a verb in its commonest
    form."""
    core = term.strip('"')
    if " " in core or core.startswith("(") or _is_acronym(core.rstrip("*")):
        return False
    if background is not None:
        return background(term) >= share_floor
    if "-" in core:  # a compound ("help-seek*") is no plain verb, whatever its last part is
        return False
    # a stem is as broad as its commonest spelling ("behaviour*" as "behavior*": general English is mostly American)
    if core.endswith("*") and max(opens_onto_zipf(s) for s in _spellings(core)) >= BROAD_STEM_ZIPF:
        return True
    stem = core.rstrip("*").casefold()
    forms = [stem + e for e in ("", "s", "e", "es", "ed", "ing")] if core.endswith("*") else [stem]
    commonest = max(forms, key=general_zipf)
    return general_zipf(core) >= BROAD_VERB_ZIPF and word_classes(commonest) == {"VERB"}


def _top_level(blocks: list[ConceptBlock]) -> list[tuple[ConceptBlock, ConceptBlock | None]]:
    """The blocks whose terms are top-level alternatives of the shipped query, each with the next subject (the
    block a broad term of it is AND-ed with): the main block when nothing is AND-ed with it (its next subject:
    the next required block), and a lone block of the rest branch (``A OR B``: its next subject is A)."""
    if not blocks:
        return []
    main = next((b for b in blocks if b.required), blocks[0])
    rest = [b for b in blocks if b is not main]
    if any(b.independent for b in rest):
        # AND-ed, its broad words still stand alone inside it (``switch* AND "rheumatoid arthritis"``: every
        # switch there): paired with its own phrases' words only
        return [(main, None)]
    in_rest = [b for b in rest if b.required or b.in_query]
    nxt = next((b for b in rest if b.required and not b.generic), None)
    out: list[tuple[ConceptBlock, ConceptBlock | None]] = [(main, nxt)]
    if len(in_rest) == 1:
        out.append((in_rest[0], main))
    return out


def _pair_broad_alone(blocks: list[ConceptBlock], background: Background | None, share_floor: float) -> None:
    """No broad single word stands alone as a top-level alternative (:func:`_broad_alone`): it is AND-ed with the
    other words of its concept's phrases ("depressive relapse and recurrence": ``(recurr* AND depress*)``), else
    with the next subject's terms; with neither it stays."""
    blocks_main = next((b for b in blocks if b.required), blocks[0]) if blocks else None
    for block, nxt in _top_level(blocks):
        broad = [t for t in block.terms if _broad_alone(t, background, share_floor)]
        if not broad:
            continue
        kept = [t for t in block.terms if t not in broad]
        for term in broad:
            stem = term.strip('"').rstrip("*").casefold()
            # a kind named elsewhere in the text ("static code metrics") is no word of the concept's own phrase
            phrases = [p for p in [*block.terms, block.label, *block.items] if " " in p.strip('"')
                       and p not in block.kinds and not p.startswith("(")]
            words = [w.casefold() for p in phrases for w in re.findall(_WORD, p.replace(_JOIN, " "))]
            # a partner may be broad itself (the pair is narrow), not common English, nor a word a term of the
            # block already finds alone (``relaps*`` makes ``(recurr* AND relaps*)`` redundant)
            alone = [t.strip('"').rstrip("*").casefold() for t in kept if " " not in t.strip('"')]
            # nor a generic head whose class the block names alone ("generic antiepileptic drugs" with
            # ``antiepileptic*``: ``(switch* AND drug)`` is every study that changed any drug)
            named_heads = {ws[-1] for p in phrases if len(ws := p.strip('"').casefold().split()) >= 2
                           and ws[-1] in GENERIC_HEADS and _render(truncation(ws[-2])) in kept}
            partners = _dedupe(_sendable(truncation(w)) for w in words if not w.startswith(stem[:4])
                               and len(w) >= 4 and w.isalpha() and w not in META_WORDS and w not in _FUNCTION
                               and general_zipf(w) < GENERIC_ZIPF and not any(w.startswith(a) for a in alone)
                               and w not in named_heads)
            if not partners and nxt is not None:
                if nxt.required and nxt is blocks_main:  # A OR (b AND A) is A: the term goes
                    continue
                partners = _dedupe(_sendable(t) for t in nxt.terms if not t.startswith("("))[:MAX_TERMS_PER_BLOCK // 4]
            if not partners:
                kept.append(term)
                continue
            group = partners[0] if len(partners) == 1 else "(" + " OR ".join(partners) + ")"
            if f"({group} AND {_sendable(term)})" not in kept:  # two broad words of one phrase: one pair
                kept.append(f"({_sendable(term)} AND {group})")
        if kept:
            block.terms = _dedupe(kept)
        else:  # a lone rest block of broad words alone: ``A OR b`` is no narrower than b; the rest branch drops it
            block.required = block.in_query = False


def _mark_rest(blocks: list[ConceptBlock], background: Background | None, rest_share: float,
               question: str = "") -> None:
    """Which optional blocks ``main_or_specific_rest`` leaves out of the rest branch (``in_query=False``). With
    required blocks besides the main one: all optional ones when the required ones AND-ed are expected in at most
    ``rest_share`` of the ``background``'s records (at most the rarest one's share: a background counts no
    co-occurrence, and shares multiplied read two blocks of one topic as narrow; "type 2 diabetes" alone is narrow,
    "hypertension" alone is not and keeps "adults" AND-ed with it); without a background, none (general English
    cannot tell a broad condition from a narrow one). With none, only a side clause's specific concept stays
    ("..., and how applicable are they for predicting fault location?": A OR fault location); a block that says
    who the studies are about, a generic one, one the question says not to require ("regardless of whether X")
    leave: never ``A OR adult*``."""
    if not blocks:
        return
    _deliverer_in_rest(blocks)
    main = next((b for b in blocks if b.required), blocks[0])
    rest = [b for b in blocks if b is not main]
    required = [b for b in rest if b.required]
    optional = [b for b in rest if not b.required]
    if _field_of_an_aspect(main, required):
        return
    if _rest_names_no_subject(required, optional, background, rest_share, reviews=_holds_review_kinds(main),
                              question=question):
        for b in required + optional:
            if not b.organism:
                b.required = b.in_query = False
        return
    if required:
        if background is None:
            for b in optional if len(required) >= 2 else ():
                # without a background, one common word alone ("people" of "In people with X") beside two
                # subjects or more names nothing the rest branch's studies must say: AND-ed there it only loses
                # those that do not say it (beside one subject it keeps the branch from being every study of that
                # subject: "student achievement" AND school*; "young children" still say whom; a background
                # judges the blocks by their shares)
                b.in_query = b.in_query and not (b.generic and len(b.label.split()) == 1)
            return
        # people a question says the studies were done on ("... anxiety in university students") are no subject
        # alone, however narrow the background shows them: a subject it marked broad ("anxiety") stays AND-ed
        # with them (``A OR (student* AND anxiet*)``, not ``A OR student*``, every study of students)
        done_on = bool(question) and all(_who_block(b) and not _possessor_in(b, question) for b in required)
        # narrow only where the AND cannot be broad: the rarest block's share (correlated blocks, one topic's
        # words, meet in most of their records; their shares multiplied read ``"blood pressure" AND hypertens*``
        # as narrow in a pool of antihypertensive trials, where it is 7 % of the records)
        if _shares_bound(required, background) <= rest_share and not done_on:
            for b in optional:
                b.in_query = False
            if not _holds_review_kinds(main) and all(b.setting and not b.organism and not _gene_block(b)
                                                     for b in required):
                # the optional subject beside them gone, a place alone is every study there however narrow a
                # background shows it (``X OR "python program(s)"``: :func:`_rest_names_no_subject`; where the
                # studies are reviews, the field is what they review: "systematic reviews in software
                # engineering")
                for b in required:
                    b.required = b.in_query = False
        return
    for b in optional:
        b.in_query = b.side and not (b.generic or _who_block(b)) and any_share(
            b.terms[:MAX_TERMS_PER_BLOCK], background) <= rest_share


def _deliverer_in_rest(blocks: list[ConceptBlock]) -> None:
    """The main block's phrase is led by who delivers it ("nurse-led telephone follow-up interventions"): the rest
    branch, a study of the same care not called so, keeps the people AND-ed (``X OR ("blood pressure" AND
    hypertens* AND nurse*)``; without them every trial of blood pressure in hypertension), where it already ANDs
    two subjects or more (a lone one is AND-ed with X: :func:`_lone_benefit_anded`)."""
    main = next((b for b in blocks if b.required), None)
    if main is None or not main.label.split():
        return
    lead = main.label.split()[0].casefold()
    left = lead.rpartition("-")[0]
    if not (_means_compound(lead) and left.isalpha() and len(left) >= 4 and _person_word(_plural_of(left))):
        return
    rest = [b for b in blocks if b is not main and b.required and not _who_block(b) and not b.organism]
    if len(rest) < 2 or any(_who_block(b) and left in b.label.casefold() for b in blocks if b is not main):
        return
    blocks.append(ConceptBlock("population", _plural_of(left), [f"{left}*"]))


def _lone_condition_anded(blocks: list[ConceptBlock], facets: tuple[str, ...], who_first: str | None = None) -> None:
    """A question of what a treatment does (:data:`_EFFECTIVE_FRAME_RE`: "Are X safe during pregnancy?", "Is X
    effective for Y?", and :data:`_OUTCOMES_FRAME_RE`, "What are the outcomes of X for Y?", there ``facets``
    a population or what the effects are on, "the effects of X on Y"; not "Does X predict Y", whose Y is an outcome
    however it reads) whose rest branch would be
    one block, of whom, when or what for it is given (a population or a state), with no other concept beside it:
    ``X OR pregnanc*`` is every pregnancy study, so the block is AND-ed with X (``X AND pregnanc*``), as
    independent concepts are; so is a condition after "in", read as where the studies are ("Is X safe in
    inflammatory bowel disease?", which left the query as X alone).

    In the effect frame (``who_first``: the question's leading "In/Among/For <who>, ", or ""), who the studies
    are about leaves first, and where they are beside what X is for: "Is X effective for Y in adolescents?" was
    ``X OR (Y AND adolesc*)`` (X not required) and is ``X AND Y``; the who put first ("In older adults, are X
    effective for Y?") leaves too, but the condition it names ("For children with autism, ...") is AND-ed
    instead of Y."""
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet != "intervention" or main.aspect:
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    if who_first is None:
        # who the studies are about alone leaves instead (:func:`_rest_names_no_subject`: never ``X OR adult*``)
        if (len(rest) == 1 and rest[0].required and rest[0].facet in facets
                and not _who_block(rest[0])):
            rest[0].independent = True
        return
    # the condition of the who put first ("In children with asthma, is X effective for preventing
    # exacerbations?") is who the studies are about: beside what X is for it is the one AND-ed (every study of
    # X there names it; "exacerbations" alone are any disease's)
    first = [b for b in rest if who_first and _named_in(b, who_first) and not _who_block(b)]
    others = [b for b in rest if not (_who_block(b) or b in first)]
    if len(first) == 1 and others:
        others = first
    if len(others) > 1:  # "for code quality in professional teams": a place alone is every study there
        others = [b for b in others if not b.setting]
    if len(others) == 1 and others[0].required and others[0].facet in facets:
        others[0].independent = True
        for b in rest:
            if b is not others[0]:  # never ``X AND adult*``
                b.required = b.in_query = False


#: "Does X improve / reduce / prevent Y ...": what X is done for, asked by a verb of benefit (not a relation's
#: "affect", "influence", "predict", whose Y is any study's).
_DOES_BENEFIT_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:does|do|did|can|could)\s+.+?\s+(?:improve|reduce|prevent|enhance|alleviate|relieve|"
    r"lower|mitigate|promote|increase|decrease|slow|delay|protect)\b", re.I)


def _lone_benefit_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"Does X improve Y in Z?" keeps ``X OR (Y AND Z)`` (a study of a form of X not named X is still found), but
    when the rest branch is Y alone (who the studies are about left it, :func:`_mark_rest`) ``X OR Y`` is every
    study of Y: Y is AND-ed with X, as in the effect frame ("Is X effective for Y?"). Not where the animals named
    filter the query (``(X OR Y) AND rats`` is narrow: a study of Y in rats under another name of X is kept)."""
    if not _DOES_BENEFIT_RE.match(topic) or any(b.organism and b.required for b in blocks):
        return
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet != "intervention" or main.aspect or any(b.independent for b in blocks):
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    if len(rest) == 1 and rest[0].required and not (rest[0].aspect or rest[0].setting or _who_block(rest[0])):
        rest[0].independent = True


#: "Does X for Y reduce Z ...", "Is X for Y effective in reducing Z": X, what it is given for (Y) and the benefit
#: asked of it (Z).
_DOES_FOR_BENEFIT_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:(?:does|do|did|can|could)\s+(?P<x>.+?)\s+for\s+(?P<y>.+?)|(?:is|are)\s+(?P<cx>.+?)\s+"
    r"for\s+(?P<cy>.+?)\s+(?:effective|beneficial|helpful|useful)\s+(?:in|at|for)\s+)\s*(?:improv|reduc|prevent|"
    r"enhanc|alleviat|reliev|lower|mitigat|promot|increas|decreas|slow|delay|protect)(?:e|es|ed|ing|s)?\b", re.I)


def _treated_condition_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"Does X for Y reduce Z?" asks of X given for Y: read as ``X OR (Y AND Z)`` it was every study of X for
    anything ("massage therapy" OR ...). What X is for is AND-ed with X, as in the effect frame ("Is X effective
    for Y?": :func:`_lone_condition_anded`), and the benefit leaves (studies of X for Y report their outcomes by
    their own names). Not people after "for" ("for older adults": who the studies are about), a place, an
    aspect or an organism; then the question keeps its shape."""
    m = _DOES_FOR_BENEFIT_RE.match(topic.replace(_JOIN, " "))
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or main.aspect or any(b.independent for b in blocks):
        return
    # the question's shape says which is the treatment (facets may read it as an exposure)
    x, y = (m.group("x") or m.group("cx")).casefold(), (m.group("y") or m.group("cy")).casefold()
    if not _named_in(main, x):
        return
    treated = [b for b in blocks if b is not main and b.required and _named_in(b, y) and _own_concept(b)]
    if len(treated) == 1:
        _only_anded_with(blocks, main, treated[0])


#: "What interventions improve Y in Z?", "Which strategies reduce Y among Z?": interventions asked of by what they
#: are for, none named (the frame's noun is no concept): Y is the main block.
_WHAT_IMPROVES_RE = re.compile(
    r"^\s*(?:what|which)\s+(?:\w+\s+)?(?:interventions?|strateg(?:y|ies)|approaches|programmes?|programs?|"
    r"treatments?|therapies|measures|methods)\s+(?:\w+\s+)?(?:improve|reduce|prevent|enhance|increase|decrease|"
    r"promote|support|lower|alleviate|relieve)s?\b", re.I)


def _unnamed_benefit_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"What interventions improve Y in people with Z?": no intervention is named, Y is the main block and Z,
    the condition of the people, stood alone beside it (``"treatment adherence" OR schizophrenia*`` with a
    pool: every study of the condition; ``... OR (schizophrenia* AND peopl*)`` without): the review asks for Y in
    Z, so a lone condition beside Y is AND-ed with it and who the studies are about leaves (never ``Y AND
    peopl*``). Plain people ("among kitchen staff") stay out as :func:`_mark_rest` left them."""
    if not _WHAT_IMPROVES_RE.match(topic):
        return
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet == "intervention" or any(b.independent or b.organism for b in blocks):
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query)]
    others = [b for b in rest if not _who_block(b)]
    if len(others) != 1 or not others[0].required or others[0].aspect or others[0].generic:
        return
    others[0].independent = True
    for b in rest:
        if b is not others[0]:
            b.required = b.in_query = False


def _broad_exposure_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """A question's exposure the background alone marked broad ("Is exposure to alcohol associated with Y in
    children?" in a pool where alcohol is common) left the query: Y became the main block and the rest the
    whole query (``Y OR (children ...)``, every study of Y). AND-ed with Y the exposure is narrow again, and it is
    what the review asks of Y: ``Y AND alcohol``; the rest leaves (never ``... AND children``). Only a noun's
    block the question names before Y (an exposure asked of; not "... and how often are the patches correct?")."""
    main = next((b for b in blocks if b.required), None)
    if main is None or main.facet in ("intervention", "exposure") or any(b.independent or b.organism for b in blocks):
        return
    low = topic.casefold()
    at = low.find(main.label.casefold())
    gone = [b for b in blocks if b.generic and b.facet in ("intervention", "exposure") and b.terms
            and not _who_block(b) and not b.aspect and set(b.terms) <= set(b.background_broad)
            and "NOUN" in word_classes(b.label.split()[-1].casefold()) and 0 <= low.find(b.label.casefold()) < at]
    if len(gone) != 1:
        return
    gone[0].required = gone[0].in_query = gone[0].independent = True
    for b in blocks:
        if b is not main and b is not gone[0]:
            b.required = b.in_query = False


def _benefit_anded(blocks: list[ConceptBlock], topic: str, background: bool) -> None:
    """What a question's treatment or exposure is asked of is AND-ed with it where the rest would be one block
    alone (:func:`_lone_benefit_anded`, :func:`_unnamed_benefit_anded`, :func:`_proposed_for_anded`) or, with a
    ``background``, where the exposure itself left as broad there (:func:`_broad_exposure_anded`); then the
    question shapes whose two sides are both wanted: a relation, an experience, an occurrence, an interaction, a
    thing used for a purpose (the ``_*_anded`` rules below, each a no-op on other shapes)."""
    _treated_condition_anded(blocks, topic)
    _lone_benefit_anded(blocks, topic)
    _unnamed_benefit_anded(blocks, topic)
    if background:
        _broad_exposure_anded(blocks, topic)
    _proposed_for_anded(blocks, topic)
    _lone_relation_anded(blocks, topic)
    _people_of_experience_anded(blocks, topic)
    _lone_occurrence_anded(blocks, topic)
    _interaction_anded(blocks, topic)
    _experiencers_anded(blocks, topic)
    _use_for_purpose_anded(blocks, topic)


#: "X to V Y" after "How do <people> use": the thing used, the purpose's verb and what it is done to.
_USED_FOR_PURPOSE_RE = re.compile(r"(?P<used>.+?)\s+to\s+(?P<verb>[a-z]+)\s+(?P<aim>.+)", re.I)


def _use_for_purpose_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"How do <people> use X to V Y?" asks of X used for Y: read as a subject of its own, Y was the main block
    and X went to the rest branch ("How do adolescents use social media to seek mental health support?" was
    ``"mental health" OR (adolesc* AND "social media")``: every mental health study). Where X is named by
    everyday words (general English's phrase frequency :data:`EVERYDAY_WORD_ZIPF` or more: "social media" 5.05,
    "video games" 5.13), X alone is every study of it too: X is the main block, Y AND-ed with it. A specific X
    stays alone (round 29: "handwriting recognition software" 3.49, wanted whatever documents it reads); the
    users stay out (:func:`_users_behind`), as does a purpose that names people ("to support struggling
    students")."""
    m = HOW_PEOPLE_DO_RE.match(topic.replace(_JOIN, " "))
    if m is None or m.group("verb").casefold() != "use" or any(b.independent for b in blocks):
        return
    p = _USED_FOR_PURPOSE_RE.match(m.group("x"))
    if p is None or not is_plain_verb(p.group("verb").casefold()):
        return

    def named(part: str, generic: bool) -> ConceptBlock | None:
        return next((b for b in blocks if not (b.organism or b.aspect or b.setting or _who_block(b))
                     and (generic or not b.generic and b.in_query) and b.terms and _named_in(b, part.casefold())),
                    None)

    # the thing used may be everyday words left out ("social media"): AND-ed with the purpose, it never stands alone
    used, aim = named(p.group("used"), generic=True), named(p.group("aim"), generic=False)
    if used is None or aim is None or used is aim or not aim.required:
        return
    if not used.generic and phrase_zipf(used.label.replace(_JOIN, " ")) < EVERYDAY_WORD_ZIPF:
        return  # a specific thing ("handwriting recognition software") is wanted alone, whatever it is used for
    blocks.remove(used)
    blocks.insert(0, used)
    used.required = used.in_query = True
    aim.independent = True


def _label_words(block: ConceptBlock) -> set[str]:
    """The words of the block's label, as the question writes it."""
    return set(_WORD_RE.findall(block.label.casefold().replace(_JOIN, " ")))


def _people_of_experience_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"How do <people> experience / perceive X?" (:data:`HOW_PEOPLE_DO_RE`) asks how these people live X, a
    qualitative synthesis whose studies are of those people (its sample) and X: read as who the studies are about,
    the people were a rest branch with what else the question names ("How do nurses experience moral distress in
    intensive care units?" was ``"moral distress" OR (icu AND nurse*)``: every study of nurses in intensive care).
    Every block the question names wholly among the people (not generic, not an organism; their condition alone
    where it has a block: "patients with X" are X's) is AND-ed with X's, the first required block X names, made the
    main one ("How do patients with chronic kidney disease experience haemodialysis?": the haemodialysis, not the
    disease). Not "How do <people> use X?": a study of X whoever uses it is wanted (round 29, :func:`_users_behind`)."""
    m = HOW_PEOPLE_DO_RE.match(topic.replace(_JOIN, " "))
    if m is None or m.group("verb").casefold() == "use" or any(b.independent for b in blocks):
        return
    main = next((b for b in blocks if b.required and not b.generic and _named_in(b, m.group("x").casefold())), None)
    if main is None:
        return
    blocks.remove(main)
    blocks.insert(0, main)
    who = set(_WORD_RE.findall(m.group("who").casefold()))
    named = [b for b in blocks if b is not main and not (b.generic or b.organism or b.aspect)
             and _label_words(b) and _label_words(b) <= who]
    # people named by their condition ("patients with chronic kidney disease"): the condition says who they are
    conditions = [b for b in named if not _who_block(b)]
    # and the condition X's clause names after "with" ("caring for a relative with dementia": the dementia, whose
    # people are the ones cared for): a query AND-ing blocks keeps no rest branch, and it was lost
    had = m.group("x").casefold().split(" with ", 1)[1:]
    objects = [b for b in blocks if had and named and b is not main and b not in named and b.required and not (
        b.generic or b.organism or b.aspect or b.setting or _who_block(b)) and _named_in(b, had[0])]
    for b in [*(conditions or named), *objects]:
        b.required = b.in_query = b.independent = True


def _lone_relation_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """A relation question naming one X (:data:`_RELATION_RES`: "Is X associated with Y in Z?", "Does X predict
    Y?", "the relationship between X and Y") keeps ``X OR (Y AND Z)`` (:func:`_read_relation`: a study of the
    relation may name either construct another way), but where the rest branch would be Y alone, ``X OR Y`` is
    every study of Y: Y is AND-ed with X, as what a treatment is for is in the effect frame
    (:func:`_lone_condition_anded`). Only X named before Y (the frame's words may be in its label: "loneliness
    risk factor") and Y as the relation's object; not who the
    studies are about, a place or an aspect. Not "Which X are associated with Y?" / "What X predict Y?": the
    question asks for the kinds of X, which its studies name by their own names (the shared SocialNorms question
    fell from 0.946 to 0.066 recall with its Y AND-ed)."""
    sentence = topic.replace(_JOIN, " ")
    m = next((m for r in _RELATION_RES for m in [r.search(sentence)] if m), None)
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or any(b.independent for b in blocks):
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    if len(rest) != 1 or not rest[0].required or rest[0].aspect or rest[0].setting or rest[0].generic:
        return
    if _named_in(main, sentence[m.start():m.start("y")].casefold()) and _named_in(rest[0], m.group("y").casefold()) \
            and not _who_block(rest[0]):
        rest[0].independent = True


#: "What is the prevalence of X after Y?", "the incidence of X with Y": how often X occurs where Y is (a general
#: vocabulary of epidemiology; "How common is X" is read as "What is the prevalence of X" before this).
_OCCURRENCE_RE = re.compile(
    rf"^\s*{_WHO_FIRST}what\s+(?:is|are|was|were)\s+the\s+(?:\w+\s+)?(?:prevalence|incidence|frequency|rates?|"
    r"occurrence)\s+of\s+(?P<x>.+?)\s+(?:after|following|with|during|in|among)\s+(?P<y>[^,;:?]+)", re.I)


def _lone_occurrence_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"What is the prevalence of X after Y?" asks how often X occurs where Y is: where the rest branch would be Y
    alone, ``X OR Y`` is every study of X and every study of Y ("depress* OR strok*"), so Y is AND-ed with X, as
    a relation's lone object is (:func:`_lone_relation_anded`). Not who the studies are about ("among refugees"
    leaves as it did: :func:`_mark_rest`), a place or an aspect."""
    m = _OCCURRENCE_RE.match(topic.replace(_JOIN, " "))
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or any(b.independent for b in blocks):
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    if (len(rest) == 1 and rest[0].required and _named_in(main, m.group("x").casefold())
            and _named_in(rest[0], m.group("y").casefold())
            and not (rest[0].aspect or rest[0].setting or rest[0].generic or _who_block(rest[0]))):
        rest[0].independent = True


#: "Does X reduce the absorption of Z?", "Do X alter the plasma concentrations of Z?": X changes what the body does
#: with the drug Z (a general vocabulary of pharmacokinetics, as :data:`_DRUG_PROPERTY_RE`'s).
_INTERACTION_RE = re.compile(
    rf"^\s*{_WHO_FIRST}(?:does|do|did|can|could)\s+(?P<x>.+?)\s+(?:reduce|increase|decrease|lower|raise|alter|"
    r"affect|change|impair|inhibit|enhance)\s+the\s+(?:absorption|clearance|metabolism|bioavailability|elimination|"
    r"(?:(?:plasma|serum|blood|trough)\s+)?(?:levels?|concentrations?)|pharmacokinetics)\s+of\s+(?P<z>[^,;:?]+)",
    re.I)


def _interaction_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"Do X reduce the absorption of Z?" asks of X given with Z: ``X OR (Z AND absorpt*)`` was every study of X
    ("proton pump inhibitors", 1.8 % of the pool) and every absorption study of Z. Z is AND-ed with X, as the
    doer of an act is in "the effect of X on the plasma concentrations of Z" (:func:`_doer_of_act`); the property
    leaves (its studies say "TSH rose", "dose requirement")."""
    m = _INTERACTION_RE.match(topic.replace(_JOIN, " "))
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or any(b.independent for b in blocks):
        return
    # the drug may lead ("the bioavailability of Z" makes Z the main block: :func:`_drug_of_property_first`)
    named = [g for g in ("x", "z") if _named_in(main, m.group(g).casefold())]
    if len(named) != 1:
        return
    other = m.group("z" if named[0] == "x" else "x").casefold()
    partner = [b for b in blocks if b is not main and b.required and _named_in(b, other) and _own_concept(b)]
    if len(partner) == 1:
        _only_anded_with(blocks, main, partner[0])


def _own_concept(block: ConceptBlock) -> bool:
    """A block naming a concept of its own: no aspect, setting, generic word, organism or people."""
    return not (block.aspect or block.setting or block.generic or block.organism or _who_block(block))


def _only_anded_with(blocks: list[ConceptBlock], main: ConceptBlock, partner: ConceptBlock) -> None:
    """The query becomes ``main AND partner``: every other block leaves it but the organisms, which filter."""
    for b in blocks:
        if b is not main and b is not partner and not b.organism:
            b.required = b.in_query = False
    partner.independent = True


#: "What are the experiences of P of / with / caring for X?", "... experiences of X among P" (a possessive said so
#: by :func:`~agentr_dagster.llm.offline.concepts.blocks._peoples_experiences_of`): P are whose experiences the
#: studies are.
_EXPERIENCERS_RE = re.compile(
    r"^\s*what\s+(?:are|is|were|was)\s+(?:the\s+)?(?:lived\s+)?(?:experiences?|perceptions?|perspectives?|views?)"
    r"\s+of\s+(?:(?P<who>.+?)(?=\s+(?:of|with|caring|who|living|receiving|in|on|about|regarding)\b|\s*\?)"
    r"|.+?\s+among\s+(?P<among>[^,;:?]+))", re.I)


def _experiencers_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """A qualitative question names whose experiences its studies are: "the experiences of family carers of
    people with early-onset dementia" left the carers as who the studies are about (:func:`_mark_rest`) and was
    every study of the dementia. The experiencers are AND-ed with the main block, as its studies say who they
    asked ("carers", "caregivers" interviewed)."""
    m = _EXPERIENCERS_RE.match(topic.replace(_JOIN, " "))
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or _who_block(main) or any(b.independent for b in blocks):
        return
    said = (m.group("who") or m.group("among") or "").casefold()
    who = [b for b in blocks if b is not main and _who_block(b) and not b.generic and _named_in(b, said)]
    if len(who) == 1:
        who[0].required = who[0].in_query = who[0].independent = True


#: "What / Which X have been proposed for Y": what the techniques were made for, after "for" to the clause's end.
_PROPOSED_FOR_RE = re.compile(
    r"^\s*(?:what|which)\s.+?\b(?:proposed|developed|designed|devised|introduced|suggested)\s+for\s+([^,;:?]+)",
    re.I)


def _proposed_for_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"What X have been proposed for Y?" asks of X made for Y: where the rest branch would be Y alone, ``X OR Y``
    is every study of Y ("continuous integration environments": every CI study, whatever technique), so Y is
    AND-ed with X, as what a treatment is for is in the effect frame (:func:`_lone_condition_anded`). Not "used
    in / for" (what something is used in may be named many ways)."""
    m = _PROPOSED_FOR_RE.match(topic)
    main = next((b for b in blocks if b.required), None)
    if m is None or main is None or any(b.independent for b in blocks):
        return
    rest = [b for b in blocks if b is not main and (b.required or b.in_query) and not b.organism]
    if len(rest) == 1 and rest[0].required and _named_in(rest[0], m.group(1).casefold()) and not (
            rest[0].aspect or _who_block(rest[0])):
        rest[0].independent = True


def _field_of_an_aspect(main: ConceptBlock, required: list[ConceptBlock]) -> bool:
    """A main block that is an aspect asked of studies ("the statistical fragility of randomised trials in spine
    surgery", "the replicability of experiments in software engineering") with only where the studies are beside
    it: the place is what the aspect is measured in, so it is AND-ed with it (``fragil* AND "spine surgery"``);
    the aspect alone is every field's, the place alone (``A OR "spine surgery"``) every study there."""
    if not (main.aspect and required and all(b.setting and not b.organism and not _gene_block(b) for b in required)):
        return False
    for b in required:
        b.independent = True
    return True


def _holds_review_kinds(block: ConceptBlock) -> bool:
    """The block is a review of reviews' main block: the kinds of evidence synthesis (:func:`_reviews_first`)."""
    return any(t in REVIEW_KIND_TERMS for t in block.terms)


def _rest_names_no_subject(required: list[ConceptBlock], optional: list[ConceptBlock],
                           background: Background | None, rest_share: float, reviews: bool = False,
                           question: str = "") -> bool:
    """The rest branch holds only who the studies are about ("smartphone addiction among adolescents") or an aspect
    asked about ("the prevalence of X among students"), with no optional subject beside them ("sleep" in "Is
    insufficient sleep associated with X in adolescents?"; a setting is none): it would be an alternative of every
    study of them (``A OR adolesc*``, ``A OR (preval* AND student*)``), so it leaves, unless a background shows the
    people narrow (an aspect alone, ``A OR variant*``, always leaves). The animals named are a filter, never this."""
    if not required or any(b.in_query and is_subject(b) and not (b.organism or b.setting) for b in optional):
        return False
    # where the studies are ("chatbots in mental health care", "X in radiology"), all the rest names, is no
    # subject either: alone it is every study there (beside an aspect it may be the subject: "are X predictive
    # of response to Y in breast cancer"; and where the studies are reviews, the field is what they review)
    places = not reviews and all(b.setting and not _gene_block(b) and not b.organism for b in required)
    if not places and not all((_who_block(b) or b.aspect) and not b.organism for b in required):
        return False
    only_aspects = all(b.aspect and not _who_block(b) for b in required)
    # a place alone is every study there however narrow a background shows it ("... in low-income countries"
    # left alone once the optional blocks are out): only who the studies are about may stay where narrow
    only_places = places and not any(_who_block(b) for b in required)
    # in a question, people a background shows narrow stay only as whose the subject is ("teachers' soft skills");
    # "... in school-aged children", "... among nurses" say whom the studies were done on: alone they are every
    # study of them however few the background holds
    held = not question or all(_possessor_in(b, question) for b in required if _who_block(b))
    return (only_aspects or only_places or background is None or not held
            or _shares_product(required, background) > rest_share)


def _possessor_in(block: ConceptBlock, question: str) -> bool:
    """The question names the block's people as a possessor ("teachers' soft skills", "a nurse's workload")."""
    heads = {w[-1].casefold() for w in (_content_words(i) for i in [block.label, *block.items]) if w}
    return any(re.search(rf"\b{re.escape(h)}(?:s|es)?(?:'s|’s|'|’)(?=\s)", question, re.I) for h in heads)


def content_words_baseline(text: str, stopwords: Sequence[str] = ()) -> str:
    """The mechanical baseline: an OR of the question's content words (for the bench)."""
    from agentr_dagster.domain.text import is_stopword, tokenize

    words: list[str] = []
    for tok in tokenize(text):
        if len(tok) > 2 and not is_stopword(tok) and tok not in stopwords and tok not in words:
            words.append(tok)
    return " OR ".join(f'"{w}"' if "-" in w or "'" in w else w for w in words) or '"research"'


#: What :func:`_causative_known` makes of "What leads X to V Y?": the act (a gerund and what follows) among X.
_CAUSATIVE_READ_RE = re.compile(r"^what is the evidence on \w+ing\b.*\samong\s", re.I)


def _everyday_act_people_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """"What leads nurses to quit their jobs?" (read "... on quitting their jobs among nurses"): the people who
    do the act are who the studies are about, so they left the query, but where the act's block holds a bare
    everyday word (``jobs``, ``profess*``: general Zipf :data:`EVERYDAY_WORD_ZIPF` or more) that word alone is
    every study of any job, and the review is about these people's act: the people are AND-ed with it
    (``(quitt* OR jobs) AND (nurse* OR nursing)``). A specific act ("refusing childhood vaccination") keeps the
    people out: every study of it is wanted, whoever does it; so does an act whose object is a block of its own."""
    if not _CAUSATIVE_READ_RE.match(topic):
        return
    main = next((b for b in blocks if b.required), None)
    if main is None or any(b.independent for b in blocks):
        return
    bare = [t for t in main.terms if " " not in t and "(" not in t and not t.startswith('"')]
    if not any(general_zipf(t) >= EVERYDAY_WORD_ZIPF for t in bare):
        return
    # the reading names who does the act after "among", whether or not a list of roles knows them ("probation
    # officers")
    among = set(_WORD_RE.findall(topic.casefold().rsplit(" among ", 1)[-1]))
    people = [b for b in blocks if b is not main and _who_block(b) and not b.organism and b.terms] or [
        b for b in blocks if b is not main and not b.organism and b.terms
        and set(_WORD_RE.findall(b.label.casefold())) <= among]
    if len(people) != 1 or any(b.required and b is not main and b is not people[0] for b in blocks):
        return  # the act's object a block of its own ("cheat on online examinations"): the object narrows it
    people[0].required = people[0].in_query = people[0].independent = True



#: The act :func:`_causative_known` reads ("What is the evidence on leaving the profession among ..."): its gerund.
_WORD_RE = re.compile(_WORD)
_CAUSATIVE_GERUND_RE = re.compile(r"^what is the evidence on (\w+ing)\b", re.I)


def _act_group(gerund: str) -> tuple[str, str]:
    """The gerund's search stem and the act's term: the stem, with the lexicon's other forms of the verb where
    the stem does not open onto the verb's plain form (``leaving*`` misses "leave" and "left", ``quitt*`` "quit"),
    each a whole word (``quit``, not ``quit*``: "quite"): ``(leaving* OR left OR leaves OR leave)``."""
    lemma = next(iter(verb_lemmas(gerund)), "")
    stem = truncation(gerund.casefold())
    if not lemma or not stem.endswith("*") or lemma.startswith(stem.rstrip("*")):
        return stem, stem
    forms = _dedupe(f for f in verb_forms(lemma) if f.isalpha() and not f.startswith(stem.rstrip("*")))
    return stem, "(" + " OR ".join([stem, *forms]) + ")" if forms else stem


def _act_terms(block: ConceptBlock, gerund: str, stem: str, act: str) -> list[str] | None:
    """The act's block with the act in every term: its stem as the verb's forms (:func:`_act_group`), its object
    AND-ed with it (``"childhood vaccination"`` alone was every study of the vaccination, the refusal lost), the
    phrase of the act and its object ("seeking help") as the act AND-ed with the object's words, which also
    finds "help-seeking" and "sought help"; None for no block of this act."""
    token = re.compile(r"(?<![\w*-])" + re.escape(stem) + r"(?![\w*-])")
    label = block.label.casefold().split()
    said = '"' + " ".join(label) + '"'
    with_act = [token.sub(act, t) if t.startswith("(") else act for t in block.terms if token.search(t)]
    whole = [t for t in block.terms if t.casefold() == said and len(label) > 1 and label[0] == gerund]
    if not with_act and not whole:
        return None
    # an object the background dropped as broad in its records is narrow AND-ed with the act ("the profession")
    objects = [t for t in _dedupe([*block.terms, *block.background_broad])
               if not token.search(t) and not t.casefold().startswith(f'"{gerund}')]
    if objects:
        group = objects[0] if len(objects) == 1 else "(" + " OR ".join(_sendable(o) for o in objects) + ")"
        # the act alone is no term beside its object ("quit" of "quit their jobs" is every quitter of anything)
        with_act = [t for t in with_act if t != act] + [f"({act} AND {_sendable(group)})"]
    elif whole:
        rest = " ".join(label[1:])
        with_act.append(f"({act} AND {rest if len(label) == 2 else _sendable(rest)})")
    return _dedupe(with_act)


def _act_with_object(blocks: list[ConceptBlock], topic: str) -> None:
    """The act of a causative question ("What leads X to V Y?", "What prevents X from V-ing Y?") is required
    with what it is done to: its block keeps the act in every term (:func:`_act_terms`), and a subject of its
    own that the act is about ("seeking help for hearing loss": the hearing loss) is AND-ed with it; the
    people stay as :func:`_everyday_act_people_anded` left them, and another act ("before completing ...")
    is no object."""
    m = _CAUSATIVE_GERUND_RE.match(topic)
    if not m:
        return
    gerund = m.group(1).casefold()
    stem, act = _act_group(gerund)
    found = [(b, ts) for b in blocks if not b.generic and (ts := _act_terms(b, gerund, stem, act))]
    if not found and gerund in META_WORDS:
        found = _meta_act_on_object(blocks, gerund, topic[m.end():])
    if len(found) != 1:
        return
    block = found[0][0]
    block.terms = found[0][1]
    block.required = block.in_query = True
    blocks.remove(block)
    blocks.insert(0, block)
    people = set(_WORD_RE.findall(topic.casefold().rsplit(" among ", 1)[-1])) if " among " in topic else set()
    objects = [b for b in blocks[1:] if b.required and b.in_query and not _who_block(b) and not b.organism
               and not set(_WORD_RE.findall(b.label.casefold())) <= people
               and not (b.label.casefold().split()[0].endswith("ing") and word_classes(b.label.split()[0]) == {"VERB"})
               and not all(t in " ".join(block.terms) for t in b.terms)]
    if len(objects) == 1:
        objects[0].independent = True


def _meta_act_on_object(blocks: list[ConceptBlock], gerund: str,
                        after: str) -> list[tuple[ConceptBlock, list[str]]]:
    """The act of a causative question is a word that elsewhere says how a review reports ("What prevents X from
    reporting Y?": the reporting left as a review's word and Y stood alone, every study of Y): the block of its
    object (the words right after it) takes the act AND-ed, as the gerund itself (``report*`` is every paper that
    reports anything)."""
    obj_words = [w.casefold() for w in _WORD_RE.findall(after.split(" among ", 1)[0])]
    obj = next((b for b in blocks if not b.generic and not _who_block(b) and b.terms
                and (ws := b.label.casefold().split()) and ws[0] in obj_words[:3]), None)
    if obj is None:
        return []
    group = obj.terms[0] if len(obj.terms) == 1 else "(" + " OR ".join(_sendable(t) for t in obj.terms) + ")"
    return [(obj, [f"({gerund} AND {_sendable(group)})"])]


#: "discontinuation of X", "non-adherence to X", "withdrawal from X": a noun of an act and what it is done to.
_ACT_OF_RE = re.compile(
    r"(?=\b((?:non-?)?[a-z]{5,})\s+(?:of|to|from)\s+(?:the\s+|their\s+|his\s+|her\s+)?([\w-]+)((?:\s+[\w-]+){0,3}))",
    re.I)


#: A noun of an act at least this common in general English (Zipf: "treatment" 5.0, "prevention" 4.3,
#: "evaluation" 4.2) names a field of study or an aspect, not the act a review asks about ("withdrawal" 4.05,
#: "refusal" 3.8, "discontinuation" 2.6).
ACT_NOUN_ZIPF = 4.1


def _act_noun(word: str, on_activity: bool = False) -> bool:
    """``word`` is a noun of a verb's act by its ending ("discontinuation", "adherence", "non-adherence"; "refusal",
    "withdrawal": a verb's "-al" noun), the lexicon's: what someone does to a thing, not a thing. With
    ``on_activity`` (what it is done to is itself an activity: "of smoking", "of cannabis use") a noun of an act's
    ending whose verb the lexicon does not link ("cessation": "cease") is one too."""
    low = re.sub(r"^non-?", "", word.casefold())
    classes = word_classes(low)
    # a rare noun the lexicon does not hold ("supplementation") is read by its ending alone
    if classes and "NOUN" not in classes or general_zipf(low) >= ACT_NOUN_ZIPF or low in META_WORDS | GENERIC_HEADS \
            or low.endswith("ing"):  # a gerund ("freezing of gait") names a state as often
        return False  # an everyday noun ("treatment", "management", "education") names a field, not an act
    ending = next((e for e in ("ation", "ion", "ance", "ence", "al") if low.endswith(e)), "")
    base = low[: -len(ending)] if ending else ""
    if on_activity and ending and ending != "al" and len(base) >= 3:
        return True
    # "-ification" is the act of an "-ify" verb ("fortification": "fortify")
    verbs = (base, base + "e", base[:-1] + "y", low[: -len("ication")] + "y" if low.endswith("ification") else "")
    return bool(classes) and _process_noun(low, conversion=False) or len(base) >= 4 and any(
        "VERB" in word_classes(b) for b in verbs if b)


def _names_activity(first: str, rest: str) -> bool:
    """The noun phrase that opens with ``first`` (``rest``: up to three words after it) names an activity: its
    head, the last word before a function word, is a gerund ("smoking", "vaping") or a noun of a verb in use
    ("cannabis use")."""
    words = [first]
    for w in rest.split():
        if w.casefold() in _FUNCTION or _BOUNDARY_RE.fullmatch(w):  # "among", "during": the phrase ends
            break
        words.append(w)
    head = words[-1].casefold()
    if head.endswith("ing") and len(head) > 5:
        return word_classes(head) <= {"VERB", "NOUN"} and (not word_classes(head) or "VERB" in word_classes(head))
    # a noun that is a verb in use as it stands ("use", "abuse"): its past form commoner than its plural
    past = general_zipf(head + "d" if head.endswith("e") else head + "ed")
    return {"NOUN", "VERB"} <= word_classes(head) and past > 0 and past >= general_zipf(head + "s")


def _act_noun_anded(blocks: list[ConceptBlock], topic: str) -> None:
    """A question's act said as a noun keeps its object: "discontinuation of antiepileptic drugs" was
    ``antiepileptic*`` OR a rest branch that held the discontinuation, "refusal of HPV vaccination" the vaccination
    alone (the refusal left as optional), "non-adherence to X medication" ``non-adherence OR antihypertens*`` (every
    study of either). Where the act's noun and its object are blocks of their own and the object is the main one,
    the act is AND-ed with it; where they are one block, its object's terms are AND-ed with the act's
    (:func:`_act_in_every_term`)."""
    for m in _ACT_OF_RE.finditer(topic):
        noun, first = m.group(1).casefold(), m.group(2).casefold()
        if not _act_noun(noun, on_activity=_names_activity(first, m.group(3))):
            continue
        words = [b.label.casefold().split() for b in blocks]
        act = next((b for b, w in zip(blocks, words, strict=True) if w and w[-1] == noun and not b.generic), None)
        obj = next((b for b, w in zip(blocks, words, strict=True) if w and w[0] == first and b is not act), None)
        main = next((b for b in blocks if b.required), None)
        if act is not None and obj is not None and obj is main and not obj.organism and not _who_block(obj) \
                and not any(b.independent for b in blocks):
            doer = _doer_of_act(blocks, act, obj)
            if doer is not None:  # "the effect of X on the <act> of Z": Z AND X, as the act would drop X
                doer.required = doer.in_query = doer.independent = True
                return
            root = re.sub(r"^non-?", "", noun)
            act.terms = [truncation(root)] if root != noun else [t for t in act.terms if root[:5] in t.casefold()] \
                or act.terms
            act.required = act.in_query = act.independent = True
            return
        same = next((b for b, w in zip(blocks, words, strict=True) if w[:1] == [noun] and first in w[1:2]), None)
        if same is not None and same.required:
            _act_in_every_term(same, noun)
            return


def _doer_of_act(blocks: list[ConceptBlock], act: ConceptBlock, obj: ConceptBlock) -> ConceptBlock | None:
    """What else the question says is done, besides the act's object: "What is the effect of grapefruit juice on
    the plasma concentrations of tacrolimus?" (the act's noun by its ending: "concentration"). AND-ing the act with
    its object left the query ``tacrolim* AND concentr*`` and dropped the juice (a query AND-ing blocks keeps no
    rest branch): every study of the drug's levels. The doer is AND-ed instead: ``tacrolim* AND "grapefruit
    juice"``. So for what the question says is tried, read as an exposure ("Does low-level laser therapy reduce
    pain after placement of orthodontic separators?": the placement AND-ed with the separators dropped the laser).
    Not an aspect asked for ("What factors are associated with discontinuation of X"), nor who or
    where."""
    return next((b for b in blocks if b is not act and b is not obj and b.required
                 and b.facet in ("intervention", "exposure")
                 and not (b.aspect or b.generic or b.organism or b.setting or _who_block(b))), None)


def _act_in_every_term(block: ConceptBlock, noun: str) -> None:
    """The block of an act and its object ("non-adherence antihypertensive medication") with the act in every
    term: its phrases that hold both stay, and the object's terms go AND-ed with the act's."""
    stem = re.sub(r"^non-?", "", noun)[:5]
    acts = [t for t in block.terms if " " not in t.strip('"').replace("non ", "non-") and stem in t.casefold()]
    objects = [t for t in block.terms if stem not in t.casefold()]
    if not acts or not objects:
        return
    root = re.sub(r"^non-?", "", noun)
    # not doing it is said as doing it too little ("poor adherence", "low adherence"): the act's stem
    group = truncation(root) if root != noun else acts[0] if len(acts) == 1 else \
        "(" + " OR ".join(_sendable(t) for t in acts) + ")"
    either = objects[0] if len(objects) == 1 else "(" + " OR ".join(_sendable(t) for t in objects) + ")"
    both = [t for t in block.terms if t not in acts and t not in objects]
    block.terms = _dedupe([*both, f"({group} AND {_sendable(either)})"])


def _anded_people_broad_back(blocks: list[ConceptBlock]) -> None:
    """People AND-ed with the act (:func:`_everyday_act_people_anded`, :func:`_act_with_object`) or with other
    subjects in the rest branch get back the terms a background dropped as broad in its records (``teacher*`` of
    "secondary school teachers" in a pool of education reviews, leaving ``educator* OR faculty OR instructor*``):
    AND-ed, the word is narrow again, and it is the word their studies say."""
    main = next((b for b in blocks if b.required), None)
    # so do people AND-ed with other subjects in the rest branch ("teachers" beside "struggling students" and
    # "online courses": ``teacher*`` dropped, the branch asked for "educator* OR faculty OR instructor*" only)
    rest = [b for b in blocks if b is not main and (b.required or b.in_query)]
    anded = len(rest) >= 2 and not any(b.independent for b in blocks)
    for block in blocks:
        if block is not main and block.required and _who_block(block) and (block.independent or anded):
            block.terms = _dedupe([*block.terms, *block.background_broad])
