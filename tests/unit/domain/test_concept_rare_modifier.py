"""Round 14 (2026-12-06): a process noun's rare modifier names the concept alone ("multigenerational effects" are
studies of "multigenerational inheritance"); a common modifier stays AND-ed with the process. Every text here is
invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts

_MAP = ("Multigenerational inheritance of metabolic effects in humans and animals: an evidence map. Early exposures "
        "may affect offspring who were never exposed. This review examines the evidence for multigenerational "
        "inheritance associated with exposure to stressors. We searched PubMed and included 120 studies.")


def _tree(text: str):
    return parse_boolean_query(extract_concepts(text).boolean_query())


def test_a_rare_modifier_of_a_process_finds_the_concept_without_the_process():
    tree = _tree(_MAP)
    assert matches(tree, "Multigenerational effects of a high-fat diet in F2 mice")
    assert matches(tree, "Multigenerational inheritance of adiposity")
    assert not matches(tree, "Inheritance of coat colour in mice")


def test_a_common_modifier_of_a_process_stays_and_ed_with_it():
    tree = _tree("Which factors predict depressive relapse in adults?")
    assert matches(tree, "Relapse of depression in adults after cognitive therapy")
    assert not matches(tree, "Depressive symptoms in adults")


_TUMOUR = ("A systematic literature review on tumour detection performance in mammography. Objective: We investigate "
           "how the models and the data used influence the performance of tumour detection models.")


def test_a_noun_acted_on_by_a_process_is_found_in_either_order():
    tree = _tree(_TUMOUR)
    assert matches(tree, "Detecting tumours in dense breasts with deep learning")
    assert matches(tree, "Tumour detection in screening mammograms")
    # the process with its measure, without what it acts on, is every field's
    assert not matches(tree, "Detection performance of radar systems")
