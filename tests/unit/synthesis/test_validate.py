"""The draft validator's pure parts: claim detection, sentence splitting, paragraph checks, cite keys."""

from __future__ import annotations

from agentr_dagster.synthesis.corpus import cite_keys
from agentr_dagster.synthesis.validate import (
    is_literature_claim,
    split_sentences,
    validate_paragraph,
)


def test_claim_detection_is_lexical_and_narrow():
    assert is_literature_claim("Prior studies show that screening is costly.")
    assert is_literature_claim("Smith et al. propose a ranking model.")
    assert is_literature_claim("These papers report recall above 95%.")
    assert is_literature_claim("According to one survey, most reviews are late.")
    assert not is_literature_claim("This section organises the candidates by theme.")
    assert not is_literature_claim("The planned work adds a durable credit ledger.")
    assert not is_literature_claim("We keep every intermediate artifact.")
    assert is_literature_claim("This section shows that prior studies ignore cost.")  # structure + a finding


def test_a_rewritten_paragraph_is_checked_on_its_own():
    keys = {"a", "b"}
    assert validate_paragraph("These papers matter to the planned work [@a].", keys, {"a"}) == []
    assert {i.code for i in validate_paragraph("## Heading\nThese papers matter [@a].", keys)} == {"format"}
    assert {i.code for i in validate_paragraph("- These papers matter [@a].", keys)} == {"format"}
    assert {i.code for i in validate_paragraph("These papers matter [@b].", keys, {"a"})} == {"out_of_scope"}
    assert {i.code for i in validate_paragraph("These papers matter [@zz].", keys)} == {"unknown_key"}
    assert {i.code for i in validate_paragraph("   ", keys)} == {"empty_section"}


def test_sentence_splitting_respects_quotes_abbreviations_and_citations():
    text = ('“A. Study” [@a] reports that “costs fell. Then they rose”. Smith et al. agree [@b; @c]. '
            "See e.g. the survey [@d]. Done.")
    assert split_sentences(text) == [
        "“A. Study” [@a] reports that “costs fell. Then they rose”.",
        "Smith et al. agree [@b; @c].",
        "See e.g. the survey [@d].",
        "Done.",
    ]


def test_cite_keys_are_stable_unique_and_safe():
    keys = cite_keys([
        (3, "Deep Learning for Screening", 2020, ["Müller, Anna"]),
        (1, "Deep learning for screening", 2020, ["Anna Müller"]),
        (2, "On the {weird} title: $x$", None, []),
    ])
    assert keys == {1: "muller2020deep", 2: "weirdndtitle", 3: "muller2020deepa"}
