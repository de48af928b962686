"""Concept terms that reach the other written forms of a concept's words (round 9 of the query rules): a noun's
adjective and back, British spellings, numbers as written with a hyphen or in Roman numerals, prefixes closed up
word by word, and an eligibility item that shares a hyphenated word's part with a block. Every text is invented."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts
from agentr_dagster.llm.offline.concepts.terms import _paired_form
from agentr_dagster.llm.offline.concepts.variants import _variants


def _terms(text: str) -> list[str]:
    return [t for b in extract_concepts(text).blocks for t in b.terms]


def _hits(text: str, record: str) -> bool:
    return matches(parse_boolean_query(extract_concepts(text).boolean_query()), record)


def test_an_adjective_modifier_of_a_pair_reaches_its_noun():
    # "psoriatic" as a stem misses "psoriasis": the pair's modifier brings the noun's stem too
    text = "Which factors predict psoriatic relapse in adults treated with biologics?"
    assert _hits(text, "Relapse of psoriasis after stopping biologics in adults: a cohort")


def test_a_noun_and_its_adjective_pair_only_where_both_are_words_and_the_adjective_is_rarer():
    assert _paired_form("psoriatic") == "psoriasis"
    assert _paired_form("arthritis") == "arthritic"
    assert _paired_form("genetic") == ""  # "genesis" is rarer than "genetic": another sense
    assert _paired_form("synthetic") == ""
    assert _paired_form("critic") == ""  # a noun only, not an adjective of "crisis"
    assert _paired_form("hepatitis") == ""  # "hepatitic" is no word


def test_a_phrase_closed_by_a_disease_noun_after_a_noun_also_gives_its_adjective_form():
    terms = _variants("liver cirrhosis", {})
    assert '"liver cirrhotic"' in terms
    # after an adjective the adjective form is no phrase
    assert not any("sclerotic" in t for t in _variants("multiple sclerosis", {}))
    assert not any("arthritic" in t for t in _variants("psoriatic arthritis", {}))


def test_a_british_sulph_spelling_is_a_variant():
    text = "Is sulfasalazine effective for ankylosing spondylitis in adults?"
    assert _hits(text, "Sulphasalazine in ankylosing spondylitis: a randomised trial")


def test_a_number_after_a_word_is_also_hyphenated_and_roman():
    text = "What are the outcomes of stage 3 melanoma treated with checkpoint inhibitors?"
    assert _hits(text, "Survival in stage III melanoma: a registry")
    assert _hits(text, "Stage-3 melanoma outcomes in a registry")
    # not after an acronym ("COX-2" is no "COX II")
    assert not any(" II" in t for t in _variants("COX-2 inhibitors", {}))


def test_a_prefix_closes_up_with_its_own_word_only():
    terms = _variants("non-pharmacological self-management", {})
    assert '"nonpharmacological self-management"' in terms
    text = "Is non-pharmacological self-management effective for chronic pain in older adults?"
    assert _hits(text, "Nonpharmacological self-management of chronic pain: a trial")
    # every prefix closed up stays a variant ("nonsteroidal antiinflammatory drugs")
    assert '"nonsteroidal antiinflammatory drugs"' in _variants("non-steroidal anti-inflammatory drugs", {})


def test_an_eligibility_item_joins_a_block_through_a_hyphenated_word_part():
    text = ("Which school factors are associated with violent behaviour in adolescents? Include empirical studies "
            "of violent behaviour, including bullying or non-violent aggression.")
    assert '"non-violent aggression"' in _terms(text)
    assert _hits(text, "Nonviolent aggression among adolescents and school climate")


def test_a_joining_prefix_alone_shares_nothing():
    # "self-" is no shared word: "self-esteem" does not join a block of "self-harm"
    text = ("Which peer factors are associated with self-harm in adolescents? Include empirical studies of "
            "self-harm, including studies that also measured self-esteem.")
    assert not any("esteem" in t for t in _terms(text))


def test_a_list_s_bare_modifier_takes_the_head_of_a_block_s_phrase_listed_after_it():
    # "rule-based, statistical or dependency parsers": a rule-based parser is one of the block's kinds
    text = ("Which grammar parsers are used for clinical notes? Include studies that use grammar parsers (e.g. "
            "rule-based, statistical or dependency parsers) to extract findings from clinical notes.")
    terms = _terms(text)
    assert '"rule-based parser"' in terms and '"statistical parsers"' in terms
    # the list runs on into the sentence's next phrase: its head is no block's head here
    assert not any("rule-based note" in t or "rule based note" in t for t in terms)


def test_a_non_qualifier_before_a_hyphenated_compound_leaves_the_compound_alone():
    # "non-drug self-management": studies of self-management without the qualifier say the compound alone
    assert "self-management" in _variants("non-drug self-management", {})
    # a plain word left is every field's ("non-cancer pain" gives no pain alone)
    assert "pain" not in _variants("non-cancer pain", {}) and "pain*" not in _variants("non-cancer pain", {})


def test_a_word_that_only_looks_plural_keeps_its_s():
    # "herpes" is no plural of "herpe" (general English says so): no term of a word that does not exist
    terms = _terms("What is the effectiveness of topical antiviral creams for recurrent genital herpes in adults?")
    assert '"genital herpes"' in terms
    assert not any("herpe\"" in t for t in terms)
    assert '"topical antiviral cream"' in terms  # a real plural still gives its singular
