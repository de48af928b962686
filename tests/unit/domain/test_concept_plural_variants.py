"""A term written whole carries its plural: a source matches whole words, so a singular phrase never finds the
plural (the bench's substring matcher hid this). Invented text."""

from agentr_dagster.domain.boolean_query import parse_boolean_query
from agentr_dagster.domain.contracts import ConceptFacet
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.queries import concept_boolean_query
from agentr_dagster.testing.dialects import reference_match


def _query(text: str) -> str:
    backend = OfflineBackend()
    return backend.generate_queries(backend.decompose_intent(text, None)).boolean_query


def test_a_singular_phrase_is_searched_with_its_plural_by_whole_words():
    query = _query("How do small firms tailor the software process to agile teams?")
    assert '"software processes"' in query
    record = "Tailoring software processes in small agile firms: a case study"
    assert reference_match(parse_boolean_query(query), record, "")


def test_a_word_written_whole_gets_its_plural_and_a_hyphenated_one_on_its_last_part():
    block = ConceptFacet(facet="intervention", label="ion beam", terms=["proton", "carbon-ion", '"ion beam"'])
    query = concept_boolean_query([block])
    assert query == '(proton OR protons OR carbon-ion OR carbon-ions OR "ion beam" OR "ion beams")'


def test_no_plural_for_a_stem_an_acronym_a_mass_noun_or_a_form_english_never_writes():
    block = ConceptFacet(facet="population", label="x", terms=["vorlixamab", "SLR", '"software engineering"',
                                                             '"medication adherence"', "radiotherap*"])
    query = concept_boolean_query([block])
    assert query == '(vorlixamab OR SLR OR "software engineering" OR "medication adherence" OR radiotherap*)'


def test_the_commonest_plural_of_a_word_with_several():
    block = ConceptFacet(facet="exposure", label="risk locus", terms=['"risk locus"', "nucleus"])
    assert concept_boolean_query([block]) == '("risk locus" OR "risk loci" OR nucleus OR nuclei)'
