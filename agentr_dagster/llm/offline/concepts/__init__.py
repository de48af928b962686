"""Concept facets of a review question, and the Boolean query built from them (offline, no LLM).

A librarian's search is a few concept blocks - population, exposure or intervention, comparator, outcome,
setting - each an OR-group of the concept and its variants; the study design is at most an optional block of
its own. Here the query is the main block OR (the other required blocks AND-ed), an optional block AND-ed in
unless the required ones already name a narrow topic (:data:`QUERY_SHAPE`), which recalls the includes better
than ANDing them on the labelled reviews. This module finds those blocks in the
question text by its clause structure:

* sentences that only say where the records come from (provenance, "prepared by", "test collection") and
  exclusion sentences ("Exclude ...", "... are not relevant") are dropped, and so is an exclusion clause
  inside a sentence ("excluding X", "regardless of whether X"): what a review excludes is never a required term;
* eligibility sentences ("Include ...", "Relevant studies are ...") give the study design block, and variants
  for concepts already found, never a new required block;
* the question sentence is cut into chunks at prepositions and clause words ("of", "in ... with", "among",
  "on", "for", "associated with", a possessive) and at verbs (a lexicon's word classes: "does isolation impair
  recognition memory"), never inside a hyphenated word ("object-in-context"); a coordinated second question
  ("..., and how is this behaviour measured?") and later sentences only add variants or optional blocks, and
  a block of who the studies are about ("in rats and mice") is never the main one;
  a chunk's list items ("A, B or C", "such as", "including",
  parentheses) are one concept's variants; meta words ("comparative effectiveness", "literature", "role",
  "age group", "leading causes") are dropped;
* each item becomes truncated search terms ("soft skills" -> "soft skill*", "adolescents" -> adolescen*),
  an acronym and its long form both, plus close terms from a small general vocabulary of populations.

The parts, each importing only from the ones before it (an import-linter contract):
``vocabulary`` (settings, general vocabularies, cue patterns), ``model`` (blocks, plan, how a term is
written), ``spelling``, ``terms`` (an item to search terms), ``clauses`` (a sentence to chunks),
``variants``, ``who`` (people and animals studied), ``sentences`` (what each sentence is), ``blocks``
(chunks to concept blocks), ``generic``, ``frames`` (titles, eligibility, question frames), ``shape``
(broad blocks, the rest branch) and ``extract`` (:func:`extract_concepts`, the entry point).
"""

from __future__ import annotations

from agentr_dagster.llm.offline.concepts.extract import extract_concepts
from agentr_dagster.llm.offline.concepts.model import ConceptBlock, ConceptPlan
from agentr_dagster.llm.offline.concepts.sentences import classify_sentences, is_review_question
from agentr_dagster.llm.offline.concepts.shape import BROAD_STEM_ZIPF, content_words_baseline
from agentr_dagster.llm.offline.concepts.terms import item_terms
from agentr_dagster.llm.offline.concepts.vocabulary import (
    FACET_ORDER,
    GENERIC_ZIPF,
    QUERY_SHAPE,
    QUERY_SHAPES,
    REST_SHARE,
    SHAPES_WITH_EVERY_CONCEPT,
)
from agentr_dagster.llm.offline.concepts.who import is_subject, names_animals

__all__ = [
    "BROAD_STEM_ZIPF",
    "ConceptBlock",
    "ConceptPlan",
    "FACET_ORDER",
    "GENERIC_ZIPF",
    "QUERY_SHAPE",
    "QUERY_SHAPES",
    "REST_SHARE",
    "SHAPES_WITH_EVERY_CONCEPT",
    "classify_sentences",
    "content_words_baseline",
    "extract_concepts",
    "is_review_question",
    "is_subject",
    "item_terms",
    "names_animals",
]
