"""Invented review questions and abstracts (animal models, behavioural addictions, pharmacokinetics,
psychotherapy trials): the main subject is always a required block, and a side clause, a measurement phrase,
eligibility text or a verb never makes the main block."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.word_class import is_finite_verb, is_past_participle
from agentr_dagster.llm.offline.concepts import extract_concepts

QUESTIONS = [
    # (question, words the main block must name, words that must never be in the main block)
    ("In rats and mice, does adolescent social isolation impair object-in-context recognition memory, and how is "
     "this behaviour measured?", ("isolation",), ("rats", "mice", "behaviour", "measured", "impair")),
    ("Which animal models of depression (chronic mild stress, learned helplessness, social defeat) respond to "
     "antidepressant treatment, and how is depressive-like behaviour assessed?", ("depress",),
     ("behaviour", "assessed", "respond")),
    ("Is internet gaming disorder associated with impulsivity in adolescents? Include cross-sectional and cohort "
     "studies published in English.", ("gaming",), ("adolesc", "english", "cohort")),
    ("How does renal impairment change the pharmacokinetics of direct oral anticoagulants (apixaban, rivaroxaban, "
     "dabigatran)? Include studies reporting clearance or half-life. Exclude studies in healthy volunteers only.",
     ("anticoagulant", "apixaban"), ("change", "clearance", "volunteer")),
    ("Among university students, what is known about problematic smartphone use, and which outcomes are "
     "associated with it?", ("smartphon",), ("student", "outcome", "known")),
    ("Does cognitive behavioural therapy delivered online reduce insomnia severity in adults, compared with "
     "waiting list controls? Include randomised controlled trials.", ("cognitive",), ("adult", "reduce",
                                                                                       "randomi")),
]


def _main_terms(text: str) -> str:
    plan = extract_concepts(text)
    main = plan.main()
    assert main is not None and main.required
    return " ".join(main.terms).casefold()


@pytest.mark.parametrize(("question", "named", "never"), QUESTIONS, ids=[q[:30] for q, _, _ in QUESTIONS])
def test_the_main_subject_is_the_main_block_never_a_side_phrase(question, named, never):
    terms = _main_terms(question)
    for word in named:
        assert word in terms, (word, terms)
    for word in never:
        assert word not in terms, (word, terms)


def test_a_side_clause_makes_no_required_block():
    plan = extract_concepts(
        "Does gambling disorder co-occur with alcohol dependence, and how is comorbidity measured in community "
        "samples?")
    side = [b for b in plan.blocks if b.side]
    assert side and all(not b.required for b in side)
    assert {"comorbidity", "community samples"} <= {b.label for b in side}
    assert plan.main() is not None and "gambling" in plan.main().label


def test_a_hyphenated_compound_is_one_concept():
    plan = extract_concepts("In mice, is object-in-context memory impaired by early-life stress?")
    labels = [b.label for b in plan.blocks]
    assert any("object-in-context" in label for label in labels)
    assert not any(label.strip() in ("context", "object-") for label in labels)


def test_a_verb_is_a_predicate_between_two_concepts():
    plan = extract_concepts(
        "Chronic unpredictable stress impairs spatial memory in rodents: a systematic review and meta-analysis. "
        "Objective: To estimate the effect of chronic unpredictable stress on spatial memory in rats and mice. "
        "Methods: We searched PubMed and Embase. Results: 54 studies were included (SMD -0.8, 95% CI -1.0 to -0.6).")
    terms = [t for b in plan.blocks for t in b.terms]
    assert not any("impair" in t for t in terms)
    query = plan.boolean_query()
    tree = parse_boolean_query(query)
    assert matches(tree, "Chronic unpredictable stress and spatial memory of rats in the Morris water maze")
    assert not matches(tree, "Spatial memory in ageing")
    # the rodents the title names are a filter: a study in people is no animal study
    assert not matches(tree, "Chronic unpredictable stress and spatial memory in older adults")


def test_a_trailing_participle_and_a_meta_word_inside_a_phrase():
    plan = extract_concepts("Is cannabis use disorder associated with psychosis, and how are symptoms reported?")
    terms = [t for b in plan.blocks for t in b.terms]
    assert '"cannabis use disorder"' in terms  # "use" inside the phrase: not cannabis* OR disorder*
    assert "disorder*" not in terms
    assert not any("report" in t for t in terms)


def test_word_classes_come_from_the_lexicon():
    assert is_finite_verb("impairs") and is_finite_verb("predict") and is_finite_verb("co-occur")
    assert not is_finite_verb("stress") and not is_finite_verb("memory") and not is_finite_verb("ADHD")
    assert not is_finite_verb("impaired")  # a participle modifies a noun: "impaired glucose tolerance"
    assert is_past_participle("measured") and not is_past_participle("need")


def test_the_reviews_own_statistic_and_a_bare_adjective_are_no_subject():
    plan = extract_concepts(
        "Fragility of statistically significant outcomes of randomised trials in knee arthroplasty. Objectives: "
        "to assess the robustness of statistical results of trials in knee arthroplasty using the Fragility "
        "Index (FI), a metric of how many events a significant result depends on. Methods: We searched MEDLINE. "
        "FI was calculated for each trial. Results: The median FI was 3.")
    main = plan.main()
    assert main is not None and "arthroplasty" in main.label.casefold()
    query = plan.boolean_query().casefold()
    assert "fragility" not in query and "statistic" not in query


def test_a_concept_cut_at_the_term_bound_is_said_in_the_intent():
    from agentr_dagster.llm.offline import OfflineBackend
    from tests.unit.domain.test_offline import HashingEmbedder

    drugs = ", ".join(f"drugname{chr(97 + i)}{chr(97 + j)}ine" for i in range(5) for j in range(10))
    intent = OfflineBackend(HashingEmbedder()).decompose_intent(
        f"What is the comparative effectiveness of statins, such as {drugs}, in adults with hyperlipidaemia?")
    cut = [c for c in intent.concepts if c.terms_cut]
    assert cut and len(cut[0].terms) == 40 and cut[0].terms_cut >= 10


def test_optional_blocks_leave_the_rest_branch_only_behind_a_narrow_required_one():
    question = ("What is the comparative effectiveness of tirzepatide and semaglutide, in adults with obesity?")

    def share(narrow: bool):
        # a background (the lake): obesity in 1 % of its records or in 30 %; adults everywhere
        return lambda term: {"obes": 0.01 if narrow else 0.3}.get(term.strip('"*')[:4], 0.4)

    narrow = extract_concepts(question, background=share(True))
    broad = extract_concepts(question, background=share(False))
    assert "adult" not in narrow.boolean_query().casefold()  # tirzepatide OR obesity
    tree = parse_boolean_query(narrow.boolean_query())
    assert matches(tree, "Weight loss in obesity: a cohort of children")
    assert "adult" in broad.boolean_query().casefold()  # obesity alone is no narrow topic: AND adults kept
    assert not parse_boolean_query(broad.boolean_query()) or not matches(
        parse_boolean_query(broad.boolean_query()), "Obesity in children")
    # without a background, general English cannot tell: the optional block stays AND-ed
    assert "adult" in extract_concepts(question).boolean_query().casefold()


def test_a_lone_optional_who_block_is_never_a_top_level_alternative():
    plan = extract_concepts("What is the comparative effectiveness of drugs for overactive bladder, such as "
                            "oxybutynin and tolterodine, in adults?")
    tree = parse_boolean_query(plan.boolean_query())
    assert not matches(tree, "Exercise in older adults")
    assert matches(tree, "Tolterodine in women with urge incontinence")


@pytest.mark.parametrize(("question", "never_required"), [
    ("What is the efficacy of internet-delivered cognitive behavioural therapy for social anxiety disorder? We "
     "included randomised controlled trials comparing it with waitlist or attention control.", "waitlist"),
    ("Does exposure to violent video games increase aggressive behaviour in children? Studies were eligible if "
     "they used experimental designs. Only peer-reviewed articles published in English were considered.",
     "english"),
])
def test_eligibility_sentences_never_make_a_required_block(question, never_required):
    plan = extract_concepts(question)
    for block in plan.blocks:
        if block.required:
            assert never_required not in " ".join(block.terms).casefold(), block.label
    assert not any("increase" in t for b in plan.blocks for t in b.terms)  # a verb between two concepts


def test_a_predicate_adjective_and_a_common_head_are_no_terms():
    plan = extract_concepts("Are mindfulness-based interventions effective for craving in substance use disorders?")
    terms = [t for b in plan.blocks for t in b.terms]
    assert not any("effective" in t for t in terms)
    assert "disorder*" not in terms and '"substance use disorder"' in terms
    plan = extract_concepts("Which tests are used to assess depressive-like behaviour in mouse models of stress?")
    assert any(b.label == "depressive-like behaviour" for b in plan.blocks)  # "-like" is no example marker


@pytest.mark.parametrize(("question", "main_word", "not_main"), [
    ("What is the prevalence of smartphone addiction among university students, and which psychological factors "
     "are associated with it?", "smartphone", "preval"),
    ("What are the pharmacokinetics of oral ketamine in adults with chronic pain? Studies must report plasma "
     "concentrations, clearance or bioavailability.", "ketamine", "pharmacokinetic"),
    ("Is trauma-focused cognitive behavioural therapy more effective than eye movement desensitisation and "
     "reprocessing for post-traumatic stress disorder in veterans?", "trauma-focused", "desensiti"),
])
def test_an_aspect_or_a_comparator_is_never_the_main_block(question, main_word, not_main):
    terms = _main_terms(question)
    assert main_word in terms and not_main not in terms, terms
    plan = extract_concepts(question)
    assert not any("must" in t or "plasma" in t for b in plan.blocks if b.required for t in b.terms)


def test_a_graded_adjective_is_told_from_a_noun():
    from agentr_dagster.domain.word_class import is_graded_adjective

    assert is_graded_adjective("fewer") and is_graded_adjective("higher") and is_graded_adjective("largest")
    # "number" is filed as numb's comparative, but it is a noun; plain adjectives and nouns are not graded
    assert not any(is_graded_adjective(w) for w in ("number", "public", "reviewers", "children", "water",
                                                    "anxiety-related", "older-adult"))


def test_an_abstract_opening_with_we_is_not_read_as_a_title():
    # invented: the first sentence says what was done and why; read as a title, its result clause ("so analysts
    # read fewer reports") was AND-ed in as a second subject and the query missed the subject's own records
    text = ("We apply graph neural networks to adverse event detection, ranking candidate signals so analysts "
            "read fewer reports.")
    query = parse_boolean_query(extract_concepts(text).boolean_query())
    assert matches(query, "Graph neural networks for adverse event detection in spontaneous reporting data")


def test_a_result_phrase_after_a_title_is_not_a_required_subject():
    text = ("Wearable sensors for fall detection in older adults. Wearable sensors detect falls earlier, so that "
            "nurses reach higher response rates. We reviewed 40 studies.")
    plan = extract_concepts(text)
    assert not any(b.required for b in plan.blocks if b.label.casefold().startswith("higher"))
