"""Thesaurus synonyms of concept blocks (agentr_dagster/domain/synonyms.py), on an invented WordNet and texts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agentr_dagster.domain import synonyms
from agentr_dagster.domain.synonyms import Config, block_synonyms, load_wordnet, parse_wordnet
from agentr_dagster.llm.offline.concepts import extract_concepts

# WordNet's data.noun / index.noun layout: offset, lexfile, type, word count (hex), words with lex ids,
# pointer count, pointers (symbol offset pos source/target), gloss. "~" points to a hyponym.
DATA_NOUN = """  1 This is an invented WordNet for the tests.
00000001 03 n 02 glimmerfact 0 shimmerlore 0 001 ~ 00000002 n 0000 | an invented concept
00000002 03 n 02 dazzlequip 0 bright_dazzlequip 0 001 @ 00000001 n 0000 | a narrower invented concept
00000003 03 n 02 glimmerfact 1 everyday_thing 0 000 | a rarer sense
00000004 03 n 02 zorblin 0 frumious_zorblin 0 000 | another invented concept
"""
INDEX_NOUN = """  1 This is an invented WordNet for the tests.
glimmerfact n 2 1 ~ 2 0 00000001 00000003
shimmerlore n 1 1 ~ 1 0 00000001
dazzlequip n 1 1 @ 1 0 00000002
bright_dazzlequip n 1 1 @ 1 0 00000002
everyday_thing n 1 0 1 0 00000003
zorblin n 1 0 1 0 00000004
frumious_zorblin n 1 0 1 0 00000004
"""
NOUN_EXC = "glimmerfacta glimmerfact\n"


@dataclass
class Block:
    label: str
    items: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)


@pytest.fixture
def thesaurus():
    return parse_wordnet(DATA_NOUN, INDEX_NOUN, NOUN_EXC)


def test_synonyms_first_sense_then_hyponyms(thesaurus):
    assert thesaurus.related("glimmerfact", senses=1, hyponyms=False) == ["shimmerlore"]
    assert thesaurus.related("glimmerfact", senses=1, hyponyms=True) == [
        "shimmerlore",
        "dazzlequip",
        "bright dazzlequip",
    ]
    # the second sense only when asked for
    assert "everyday thing" in thesaurus.related("glimmerfact", senses=2, hyponyms=False)


def test_plurals_and_irregular_plurals_are_looked_up(thesaurus):
    assert thesaurus.related("Glimmerfacts", 1, False) == ["shimmerlore"]
    assert thesaurus.related("glimmerfacta", 1, False) == ["shimmerlore"]
    assert thesaurus.related("unknown word", 1, False) == []


def test_a_candidate_joins_only_when_the_background_shows_it_specific(thesaurus):
    block = Block("glimmerfact", ["glimmerfact"], ["glimmerfact*"])
    shares = {"shimmerlore": 0.0001, "dazzlequip": 0.2}
    config = Config(mode="hypo", max_share=0.001, senses=1)
    added = block_synonyms(block, lambda t: shares.get(t, 0.0), config, [thesaurus])
    assert added == ["shimmerlore", '"bright dazzlequip"']  # dazzlequip is in a fifth of the background
    assert block.terms == ["glimmerfact*"]  # block_synonyms only proposes


def test_a_candidate_the_block_already_matches_is_not_added(thesaurus):
    block = Block("zorblin", ["zorblin"], ["zorblin"])
    # "frumious zorblin" contains the term "zorblin": the matcher already finds it
    assert block_synonyms(block, None, Config(mode="syn", max_zipf=9.0), [thesaurus]) == []


def test_heads_of_phrases_are_looked_up_only_when_asked(thesaurus):
    block = Block("online glimmerfact", ["online glimmerfact"], ['"online glimmerfact"'])
    assert block_synonyms(block, None, Config(mode="syn", max_zipf=9.0), [thesaurus]) == []
    assert block_synonyms(block, None, Config(mode="syn", max_zipf=9.0, heads=True), [thesaurus]) == ["shimmerlore"]


def test_without_a_background_general_english_judges(thesaurus):
    data = DATA_NOUN + "00000005 03 n 02 plinkwort 0 water 0 000 | an invented sense of a common word\n"
    index = INDEX_NOUN + "plinkwort n 1 0 1 0 00000005\n"
    block = Block("plinkwort", ["plinkwort"], ["plinkwort"])
    # "water" is common English: not specific
    assert block_synonyms(block, None, Config(mode="syn", max_zipf=2.5), [parse_wordnet(data, index)]) == []


def test_off_by_default_adds_nothing(thesaurus):
    block = Block("glimmerfact", ["glimmerfact"], ["glimmerfact"])
    assert block_synonyms(block, None, Config()) == []  # no thesaurus asked for
    synonyms.add_synonyms([block], None)
    assert block.terms == ["glimmerfact"]


def test_load_wordnet_reads_a_data_folder(tmp_path: Path):
    (tmp_path / "data.noun").write_text(DATA_NOUN, encoding="latin-1")
    (tmp_path / "index.noun").write_text(INDEX_NOUN, encoding="latin-1")
    assert load_wordnet(tmp_path).related("shimmerlore", 1, False) == ["glimmerfact"]


def test_the_hook_in_extract_concepts_ors_a_synonym_into_the_block(thesaurus, monkeypatch):
    question = "What is the effect of glimmerfact on zorblin outcomes in adults?"
    before = extract_concepts(question)
    assert not any("shimmerlore" in t for b in before.blocks for t in b.terms)
    monkeypatch.setattr(synonyms, "MODE", "syn")
    monkeypatch.setattr(synonyms, "MAX_ZIPF", 9.0)
    monkeypatch.setattr(synonyms, "wordnet", lambda: thesaurus)
    after = extract_concepts(question)
    block = next(b for b in after.blocks if "glimmerfact" in b.label)
    assert "shimmerlore" in block.terms
    assert "shimmerlore" in after.boolean_query()


# An invented drug dictionary in the shape the drug-named-entity-recognition package ships: variant -> canonical.
DRUGS = {
    "zorvatide": ["zorvatide"],
    "quellix": ["zorvatide"],
    "zorvatide mesylate": ["zorvatide"],
    "blorpin inhibitors": ["blorpin inhibitors"],
    "inhibitors, blorpin": ["blorpin inhibitors"],
    "blorpin antagonists": ["blorpin inhibitors"],
}


def test_drug_names_of_a_stem_and_of_a_class():
    lexicon = synonyms.parse_drug_lexicon(DRUGS)
    assert lexicon.related("zorvatid*") == ["zorvatide", "quellix", "zorvatide mesylate"]
    # MeSH's inverted entry read in order, and so a duplicate
    assert lexicon.related("blorpin inhibitors") == ["blorpin antagonists"]
    assert lexicon.related("zorv*") == []  # a stem of more than the name's ending opens onto nothing


def test_drug_synonyms_join_a_block_unless_already_matched():
    block = Block("zorvatide", ["zorvatide"], ["zorvatid*"])
    config = Config(drugs=True, max_zipf=2.5)
    added = block_synonyms(block, None, config, [synonyms.parse_drug_lexicon(DRUGS)])
    assert added == ["quellix"]  # "zorvatide mesylate" is found by zorvatid* already


def test_a_candidate_inside_a_common_word_never_joins():
    # the matcher finds substrings: "overa" would match "coverage", "overall"
    assert synonyms.inside_common_word("overa")
    assert not synonyms.inside_common_word("quellix")
    assert synonyms.inside_common_word("water")  # "waterproof"
    assert not synonyms.inside_common_word("carrot")  # its own plural does not count
    assert not synonyms.specific("overa", None, Config(max_zipf=9.0))


def test_the_sense_check_keeps_only_candidates_close_to_the_block(thesaurus):
    block = Block("glimmerfact", ["glimmerfact"], ["glimmerfact"])
    closeness = {"shimmerlore": 0.8, "everyday thing": 0.1}

    def similarity(label: str, candidates: list[str]) -> list[float]:
        assert label == "glimmerfact"
        return [closeness[c] for c in candidates]

    config = Config(mode="syn", senses=2, max_zipf=9.0)
    assert block_synonyms(block, None, config, [thesaurus], similarity) == ["shimmerlore", '"everyday thing"']
    checked = Config(mode="syn", senses=2, max_zipf=9.0, min_cosine=0.5)
    assert block_synonyms(block, None, checked, [thesaurus], similarity) == ["shimmerlore"]
