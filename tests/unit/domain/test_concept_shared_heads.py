"""Round 14d (2026-12-06): a bare adjective in a list takes the noun phrase listed after it ("acute and chronic
pain": acute pain), and an adjective glossed in brackets ("atypical (second-generation) antipsychotics") says its
phrase twice: a modifier alone (``acute``, ``atypic*``) is never a term. Every text here is invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import _distribute_head, _unfold_glosses, extract_concepts


def test_a_bare_adjective_takes_the_phrase_listed_after_it():
    assert _distribute_head(["acute", "chronic pancreatitis"]) == ["acute pancreatitis", "chronic pancreatitis"]
    assert _distribute_head(["typical", "second-generation mood stabilisers"])[0] == "typical mood stabilisers"
    # nouns and compounds are concepts of their own
    assert _distribute_head(["self-harm", "suicide attempts"]) == ["self-harm", "suicide attempts"]
    assert _distribute_head(["insomnia", "daytime sleepiness"]) == ["insomnia", "daytime sleepiness"]


def test_a_glossed_adjective_says_its_phrase_with_each():
    assert _unfold_glosses("of novel (direct) oral anticoagulants in adults") == (
        "of novel oral anticoagulants (direct oral anticoagulants) in adults")
    assert _unfold_glosses("adults (aged 60 or over)") == "adults (aged 60 or over)"


def test_no_modifier_alone_is_a_term():
    text = "Are topical or systemic antifungal agents effective for onychomycosis in adults?"
    terms = [t for block in extract_concepts(text).blocks for t in block.terms]
    assert "topic*" not in terms and "topical" not in terms
    tree = parse_boolean_query(extract_concepts(text).boolean_query())
    assert matches(tree, "Topical antifungal agents for onychomycosis: a randomised trial")
    assert not matches(tree, "Topical corticosteroids for eczema")
