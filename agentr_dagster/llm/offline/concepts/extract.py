"""The reader's entry point: a question or abstract to its concept plan."""

from __future__ import annotations

import re

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.specificity import GENERIC_SHARE, Background, general_zipf
from agentr_dagster.llm.offline.concepts.blocks import (
    _adverb_before_verb_dropped,
    _appraised_results_known,
    _causative_known,
    _complete_suspended_hyphens,
    _concept_of_dropped,
    _effect_frame_nouns,
    _first_person,
    _how_adjective_last,
    _join_examples,
    _join_named_coordinations,
    _join_of_compounds,
    _map_as_aim,
    _means_compounds,
    _models_of_first_as_with,
    _normalised,
    _optional_by_wording,
    _peoples_experiences_of,
    _realist_frame_dropped,
    _result_phrase,
    _topic_blocks,
    _tried_on_as_in,
    _unfold_glosses,
    _without_own_negation,
)
from agentr_dagster.llm.offline.concepts.clauses import (
    _acronym_pairs,
    _how_people_verbs,
    _relative_clause_verbs,
    _slashed_names_joined,
    _undefined_acronyms,
    _verbs_in_text,
)
from agentr_dagster.llm.offline.concepts.exposure import _exposure_qualifier_anded
from agentr_dagster.llm.offline.concepts.frames import (
    _EFFECTIVE_FRAME_RE,
    _OUTCOMES_FRAME_RE,
    _beyond_comparator_off,
    _built_from_literature,
    _common_subject_first,
    _effective_frame,
    _genetic_frame,
    _join_kinds,
    _named_comparator_anded,
    _named_in,
    _order_blocks,
    _own_measure,
    _question_subject_first,
    _read_eligibility,
    _read_relation,
    _read_title,
    _related_pair,
    _related_stems,
    _reviews_first,
    _studies_reviews,
    _trait_of_genetic_studies,
    _without_aspect_list,
    _without_own_kind,
    _without_own_method,
)
from agentr_dagster.llm.offline.concepts.generic import _drop_generic_terms, _modifier_only
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, ConceptPlan, _dedupe
from agentr_dagster.llm.offline.concepts.sentences import classify_sentences, is_review_question
from agentr_dagster.llm.offline.concepts.shape import (
    BROAD_TERM_SHARE,
    _act_noun_anded,
    _act_with_object,
    _anded_people_broad_back,
    _benefit_anded,
    _everyday_act_people_anded,
    _lone_condition_anded,
    _mark_rest,
    _pair_broad_alone,
)
from agentr_dagster.llm.offline.concepts.vocabulary import _JOIN, _WHO_FIRST, GENERIC_ZIPF, REST_SHARE, _sentences
from agentr_dagster.llm.offline.concepts.who import _mark_organisms


def _demote_non_subjects(blocks: list[ConceptBlock], text: str, title: str, acronyms: dict[str, str]) -> None:
    """Blocks that name no subject of the studies: a modifier whose noun is elsewhere ("statistical"), and (for an
    abstract, which has a ``title``) what the review computed itself ("FI was calculated for each trial") and, past
    the first block, a result phrase ("so reviewers read fewer abstracts")."""
    for block in blocks:
        if _modifier_only(block.label):
            block.generic, block.required = True, False
    if not any(b.required for b in blocks) and blocks:
        min(blocks, key=lambda b: general_zipf(b.label)).required = True
    if title:
        built = _built_from_literature(title)
        for block in blocks:
            if built and _named_in(block, built.casefold().replace(_JOIN, " ")):
                block.generic, block.required = True, False
                continue
            if _own_measure(block, text, acronyms):
                block.generic, block.required = True, False
            elif block is not blocks[0] and _result_phrase(block.label):
                block.required = False


def _names_term(label: str, term: str) -> bool:
    """The label says the term, its hyphens as spaces ("machine-learning" of "machine learning systems")."""
    try:
        return any(matches(parse_boolean_query(t), label) for t in {term, term.replace("-", " ")})
    except ValueError:
        return False


def _shared_terms_to_their_label(anded: list[ConceptBlock]) -> None:
    """A term two AND-ed blocks both hold belongs to the one whose label names it: "Metamorphic testing of
    machine learning systems" whose aim read "metamorphic testing applied to machine learning" as one item gave
    the technique's block ``"machine learning"`` too, and the check below then cut the machine learning block
    down to ``"learning system"`` (the technique an alternative of machine learning, never required): the other
    block keeps only what the naming block's query does not find, as a list read as one does below."""
    for block in anded:
        for other in anded:
            if other is block:
                continue
            if not any(t in block.terms and _names_term(block.label, t) and not _names_term(other.label, t)
                       for t in other.terms):
                continue
            try:
                theirs = parse_boolean_query(block.query())
            except ValueError:
                continue
            own = [t for t in other.terms if not matches(theirs, t.strip('"').replace("*", ""))]
            if own:
                other.terms = own


def _no_block_inside_another(blocks: list[ConceptBlock]) -> None:
    """An abstract's subjects are AND-ed, so a block that holds another AND-ed block's terms ("MBL2 polymorphisms"
    holding ``sarcoidosi*`` from a list read as one) is met by the other's records alone: ``(MBL2 OR sarcoidosi*)
    AND sarcoidosi*`` is every sarcoidosis study. Where the other's own terms joined it, it keeps only what the
    other's query does not find ("mycobacterium tuberculosis" is found by ``tuberculosi*``)."""
    anded = [b for b in blocks if b.required and b.in_query]
    _shared_terms_to_their_label(anded)
    for block in anded:
        for other in anded:
            if other is block or not (other.independent or block.independent):
                continue
            try:
                theirs = parse_boolean_query(other.query())
            except ValueError:
                continue
            inside = [t for t in block.terms if matches(theirs, t.strip('"').replace("*", ""))]
            own = [t for t in block.terms if t not in inside]
            if own and set(other.terms) & set(inside):  # the other's own terms joined it: a list read as one
                block.terms = own


def _rewritten(text: str) -> str:
    """The text in the wordings the blocks are read from: hyphens completed, glosses unfolded, named
    coordinations joined, the review's own framings ("the concept of", "a realist review of") dropped."""
    text = _complete_suspended_hyphens(_means_compounds(_normalised(text)))
    text = _slashed_names_joined(_without_own_negation(_unfold_glosses(text)))
    text = _join_named_coordinations(text, _acronym_pairs(text))
    text = _causative_known(_appraised_results_known(_how_adjective_last(_adverb_before_verb_dropped(text))))
    text = _concept_of_dropped(_peoples_experiences_of(_realist_frame_dropped(_map_as_aim(_tried_on_as_in(text)))))
    text = _join_of_compounds(_effect_frame_nouns(_models_of_first_as_with(text)))
    return text


def extract_concepts(text: str, generic_zipf: float | None = None, background: Background | None = None,
                     generic_share: float | None = None, rest_share: float | None = None,
                     broad_share: float | None = None) -> ConceptPlan:
    """The concept blocks of a review question or an abstract (see the module docstring); a term of
    ``generic_zipf`` or more in general English (default :data:`GENERIC_ZIPF`) is too common to be one, or with a
    ``background`` (a term's share of its records: the lake, other records), a term in ``generic_share`` of them
    or more (default :data:`GENERIC_SHARE`); ``broad_share`` (default :data:`BROAD_TERM_SHARE`): from which
    background share a bare word is not a top-level alternative alone (:func:`_pair_broad_alone`)."""
    generic_zipf = GENERIC_ZIPF if generic_zipf is None else generic_zipf
    generic_share = GENERIC_SHARE if generic_share is None else generic_share
    text = _rewritten(text)
    topic, eligibility, dropped = classify_sentences(text)
    question = is_review_question(text)
    if topic and not question and not _first_person(topic[0]):
        topic[0] = _related_pair(_without_own_method(_without_aspect_list(_without_own_kind(topic[0])), text), text,
                                  background)
    acronyms = _acronym_pairs(text)  # an abstract defines its acronyms anywhere ("Wilson disease (WD) is ...")
    acronyms.update(_undefined_acronyms(text, acronyms))
    verbs = _verbs_in_text(_sentences(text)) | _relative_clause_verbs(_sentences(text)) | _how_people_verbs(
        _sentences(text))
    blocks = _topic_blocks(topic, question, verbs, acronyms)
    design_terms = _read_eligibility(eligibility, blocks, verbs, acronyms) if question else []
    _optional_by_wording(blocks, dropped)
    _join_kinds(blocks, text, verbs, acronyms)
    if not question:
        _join_examples(blocks, text, verbs, acronyms)
        design_terms = _read_eligibility(eligibility, blocks, verbs, acronyms, siblings=True)
    _related_stems(blocks, text)
    _exposure_qualifier_anded(blocks, " ".join(topic))
    _drop_generic_terms(blocks, generic_zipf, background, generic_share)
    title = "" if question or not topic or _first_person(topic[0]) else topic[0]
    _demote_non_subjects(blocks, text, title, acronyms)
    if question:
        _effective_frame(blocks, topic)
        _named_comparator_anded(blocks, topic)
        _beyond_comparator_off(blocks, topic)
    _order_blocks(blocks, text, title)
    if question:
        _question_subject_first(blocks, topic)
    blocks = _genetic_frame(blocks, question, acronyms)
    if not title:
        blocks = _read_relation(_common_subject_first(blocks), " ".join(topic))
    if question:
        blocks = _trait_of_genetic_studies(blocks)
    _mark_organisms(blocks[1:], title or " ".join(topic), acronyms)
    if title:
        blocks = _read_title(blocks, title, topic[1:], text, verbs, acronyms, generic_zipf, background, generic_share)
        _no_block_inside_another(blocks)
    blocks = _reviews_first(blocks, acronyms) if blocks and _studies_reviews(" ".join(topic)) else blocks
    outcomes_frame = bool(question and topic and not _EFFECTIVE_FRAME_RE.match(topic[0])
                          and _OUTCOMES_FRAME_RE.match(topic[0]))
    if question and topic and _EFFECTIVE_FRAME_RE.match(topic[0]):
        # whatever the background: ``X OR "chronic pain"`` is every chronic pain study however narrow a pool
        # shows it ("Is X effective for chronic pain?"), and X is what the question asks of
        who_first = re.match(_WHO_FIRST, topic[0], re.I)
        _lone_condition_anded(blocks, ("population", "exposure"), who_first.group(0).casefold() if who_first else "")
    elif outcomes_frame:
        # what X is asked of, whatever the background ("the effects of X on Y in rodents": Y alone in rodents was
        # every rodent study of Y); not a state after it ("after coronary stenting")
        _lone_condition_anded(blocks, ("population", "outcome"))
    _mark_rest(blocks, background, REST_SHARE if rest_share is None else rest_share,
               " ".join(topic) if question else "")
    if outcomes_frame and not any(b.independent for b in blocks):
        # and so where a background left what X acts on alone in the rest branch ("on cognitive decline in older
        # adults": the older adults left as optional, Y stood alone); not a population a background shows narrow
        # ("X in adults with obesity": ``X OR obesity``)
        _lone_condition_anded(blocks, ("outcome",))
    if question and topic:
        _benefit_anded(blocks, topic[0], background is not None)
        _everyday_act_people_anded(blocks, topic[0])
        _act_noun_anded(blocks, topic[0])
    _pair_broad_alone(blocks, background, BROAD_TERM_SHARE if broad_share is None else broad_share)
    if question and topic:
        _act_with_object(blocks, topic[0])
        _anded_people_broad_back(blocks)
    design = ConceptBlock("study_design", "study design", _dedupe(design_terms), required=False)
    return ConceptPlan(blocks=blocks, design=design if design_terms else None, dropped=dropped)
