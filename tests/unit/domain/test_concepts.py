"""Concept blocks of review questions (offline): facets from clauses, exclusions and boilerplate never required."""

from __future__ import annotations

import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query, query_terms
from agentr_dagster.domain.truncation import truncation
from agentr_dagster.llm.offline import OfflineBackend
from agentr_dagster.llm.offline.concepts import (
    QUERY_SHAPES,
    classify_sentences,
    content_words_baseline,
    extract_concepts,
    is_review_question,
    item_terms,
)
from agentr_dagster.sources.translate import or_shards, query_tree, to_arxiv, to_europepmc, to_openalex, to_pubmed
from agentr_dagster.testing.dialects import parse
from tests.unit.domain.test_offline import HashingEmbedder

SLEEP = (
    "Is insufficient sleep associated with depression in adolescents? Insufficient sleep duration, poor sleep "
    "quality and delayed sleep timing are leading causes of concern in this age group. Include cohort and "
    "cross-sectional studies of adolescents aged 10-19 years. Exclude studies of shift workers and adults."
)
DRUGS = (
    "What is the comparative effectiveness and harms of proton pump inhibitors, such as omeprazole and "
    "lansoprazole, in adults with gastroesophageal reflux disease (GERD)? The records come from a Drug "
    "Effectiveness Review Project (DERP) drug class review prepared by the Oregon Evidence-based Practice Center. "
    "Relevant studies are randomized controlled trials that compare drugs within the class head to head."
)
BEAMS = (
    "Does charged-particle radiotherapy (proton beam, carbon-ion therapy) benefit patients with cancer? Include "
    "clinical studies of patients treated with charged-particle beams. Exclude phantom studies, photon therapy "
    "and case reports."
)
MISINFO = (
    "Among studies exploring COVID-19 misinformation on social media, how many mention complementary and "
    "alternative medicine (CAM)? Include primary research on COVID-19 misinformation, regardless of whether CAM "
    "is mentioned."
)


def _query_words(query: str) -> str:
    return " ".join(query_terms(parse_boolean_query(query))).casefold()


def test_truncation_keeps_a_stem_of_five_letters_or_more():
    assert truncation("adolescents") == "adolesc*"
    assert truncation("teachers") == "teacher*"
    assert truncation("children") == "child*"
    assert truncation("ADHD") == "ADHD"
    assert truncation("NSAIDs") == "NSAID"
    assert truncation("pain") == "pain"  # short words stay whole: a wildcard would open onto "paint"
    # phrases are quoted without a wildcard inside (not every engine reads one): singular, and plural as written
    assert item_terms("soft skills") == ['"soft skill"', '"soft skills"']
    assert item_terms("a recent myocardial infarction")[0] == '"myocardial infarction"'  # "recent" is no concept


def test_a_whole_word_keeps_no_wildcard_that_opens_onto_another_common_word():
    # judged by general English, not by a list: "class*" would match "classroom", "grand*" "grandmother"
    assert truncation("class") == "class"
    assert truncation("grand") == "grand"
    # its own forms only ("violinist", "gardens"): the wildcard stays
    assert truncation("violin") == "violin*"
    assert truncation("garden") == "garden*"


def test_the_sleep_question_keeps_its_concepts_and_drops_boilerplate():
    plan = extract_concepts(SLEEP)
    query = plan.boolean_query()
    words = _query_words(query)
    assert "adolesc" in words and "depress" in words and "sleep" in words
    for boilerplate in ("leading cause", "age group", "systematic review", "shift worker"):
        assert boilerplate not in words
    assert "cohort" not in words  # the design is its own optional block, never required
    assert plan.design is not None and any("cohort" in t for t in plan.design.terms)
    # an exclusion sentence names no concept
    assert any(d.startswith("Exclude") for d in plan.dropped)
    tree = parse_boolean_query(query)
    assert matches(tree, "Sleep duration and depressive symptoms in adolescents: a cohort study")
    # the main concept alone is enough (A OR (B AND C)); another concept alone is not
    assert matches(tree, "Sleep duration in shift workers")
    assert not matches(tree, "Depression in shift workers")
    # "sleep" alone is common English (wordfreq): it is no top-level alternative of the main block
    assert "sleep*" not in plan.main().terms and not matches(tree, "Sleep hygiene in shift workers")


def test_provenance_and_institution_names_never_become_concepts():
    plan = extract_concepts(DRUGS)
    topic, eligibility, dropped = classify_sentences(DRUGS)
    assert any("records come from" in d for d in dropped)
    assert all("Oregon" not in s for s in topic + eligibility)
    every_term = " ".join(t for b in plan.blocks for t in b.terms).casefold()
    for phrase in ("drug effectiveness review project", "oregon", "class head", "practice center", "derp"):
        assert phrase not in every_term
    words = _query_words(plan.boolean_query())
    assert "omeprazol" in words and "proton pump" in words and "gastroesophageal reflux" in words
    assert "GERD" in {t for b in plan.blocks for t in b.terms}  # the abbreviation beside its long form


def test_excluded_criteria_are_never_required_terms():
    plan = extract_concepts(BEAMS)
    every_term = " ".join(t for b in plan.blocks for t in b.terms).casefold()
    for excluded in ("phantom", "photon", "case report"):
        assert excluded not in every_term  # not even in an optional block, so never in the query
    tree = parse_boolean_query(plan.boolean_query())
    # the hyphenated compound is found however a paper spells it
    assert matches(tree, "Charged particle radiotherapy for chordoma")
    assert matches(tree, "Carbon ion therapy of sarcoma")


def test_a_concept_the_question_does_not_require_is_optional():
    plan = extract_concepts(MISINFO)
    cam = next(b for b in plan.blocks if "CAM" in b.terms)
    assert cam.required is False
    query = plan.boolean_query()
    assert "misinformation" in _query_words(query)
    # CAM is in the every-concept query (a key concept) but never required: misinformation studies without it are
    # found; the shipped shape leaves it out (no required concept besides the main one to AND it with)
    assert "CAM" in plan.boolean_query("main_or_rest") and "CAM" not in query
    assert plan.main() is not cam
    assert matches(parse_boolean_query(query), "COVID-19 misinformation spread on Twitter: a content analysis")


def test_research_abstracts_are_told_from_review_questions():
    from tests.support import ABSTRACT

    assert not is_review_question(ABSTRACT) and not is_review_question(YOGA)
    assert is_review_question(SLEEP) and is_review_question(DRUGS)


# A published review abstract of our own making (structured, glued headings as some databases print them).
YOGA = (
    "Yoga for chronic low back pain in office workers: a systematic review and meta-analysis. "
    "BackgroundChronic low back pain is a leading cause of disability. ObjectiveThe aim of this systematic review "
    "was to assess the effectiveness of yoga for chronic low back pain in office workers. "
    "MethodsWe searched MEDLINE, Embase and CINAHL up to March 2020. The protocol was registered in PROSPERO "
    "(CRD42020191340). Randomized controlled trials published in English in peer-reviewed journals were "
    "eligible; conference abstracts were excluded. Random-effects meta-analysis and linear regression were used. "
    "ResultsTwenty-three trials (n = 2055) were included. Yoga reduced pain intensity (SMD -0.50, 95% CI -0.71 "
    "to -0.29). ConclusionsYoga may reduce chronic low back pain; further research is needed."
)


def test_an_abstract_gets_concept_blocks_of_its_topic_only():
    plan = extract_concepts(YOGA)
    query = plan.boolean_query()
    words = _query_words(query)
    main = plan.main()
    assert main is not None and main.required
    # the main block is a concept of the title, one that most sentences name
    assert main.label.casefold() in YOGA.split(":")[0].casefold()
    assert "yoga" in words and "low back pain" in words
    assert all(b.required for b in plan.blocks if b.label.casefold() in ("yoga", "chronic low back pain"))
    # registration, databases searched, the review's own methods and statistics, eligibility, language,
    # publication type and results never become terms
    for noise in ("prospero", "crd42020191340", "medline", "embase", "cinahl", "systematic review",
                  "meta-analysis", "linear regression", "random-effects", "english", "peer-reviewed",
                  "conference", "smd", "2055", "further research", "twenty-three", "disability"):
        assert noise not in words, noise
    tree = parse_boolean_query(query)
    assert matches(tree, "Hatha yoga for back pain: a randomised trial")
    assert not matches(tree, "Linear regression of registered trials in MEDLINE and Embase")


def test_the_offline_backend_gives_an_abstract_its_concept_query():
    backend = OfflineBackend(HashingEmbedder())
    intent = backend.decompose_intent(YOGA)
    assert intent.concepts and intent.concepts[0].required
    query = backend.generate_queries(intent).boolean_query
    assert "yoga" in query.casefold() and "prospero" not in query.casefold()


def test_no_generic_word_stands_as_a_top_level_alternative():
    from agentr_dagster.llm.offline.concepts import GENERIC_ZIPF

    question = ("What are the effects of schema therapy and its effect on patients with borderline personality "
                "disorder, and how do humans change?")
    plan = extract_concepts(question)
    tree = parse_boolean_query(plan.boolean_query())
    top_level = {t.strip('"').casefold() for t in plan.main().terms}
    assert not top_level & {"effect*", "effect", "human*", "chang*", "patient*"}
    assert matches(tree, "Schema therapy for borderline personality disorder: a randomised trial")
    for off_topic in ("The effect of caffeine on memory", "Human capital and change in firms",
                      "Patients' effects"):
        assert not matches(tree, off_topic), off_topic
    # judged by data (general-English frequency), not a list: a rare word of the same kind passes
    assert extract_concepts("What are the effects of bibliotherapy?", GENERIC_ZIPF).main().terms


@pytest.mark.parametrize("question", [SLEEP, DRUGS, BEAMS, MISINFO])
def test_offline_intent_and_queries_come_from_the_concepts(question):
    backend = OfflineBackend(HashingEmbedder())
    intent = backend.decompose_intent(question)
    queries = backend.generate_queries(intent)
    assert intent.concepts and intent.concepts[0].required
    parse_boolean_query(queries.boolean_query)
    text = " ".join(
        [*intent.methodologies, *intent.application_domains, *intent.seed_keywords, *queries.expanded_keywords,
         *queries.search_strings, queries.boolean_query]
    ).casefold()
    for noise in ("leading causes", "age group", "oregon", "class head", "review project", "deep learning",
                  "genetic algorithm", "microservice", "design science"):
        assert noise not in text


def test_the_mechanical_baseline_is_an_or_of_content_words():
    baseline = content_words_baseline("Does sleep affect depression in adolescents?")
    assert parse_boolean_query(baseline)
    assert set(baseline.split(" OR ")) <= {"sleep", "affect", "depression", "adolescents"}
    assert {"sleep", "depression", "adolescents"} <= set(baseline.split(" OR "))


@pytest.mark.parametrize("question", [
    "Does yoga work?",
    "What is known about dog bites? Exclude reviews.",
    "Include randomized controlled trials of aspirin.",
    "Which (of the) studies — if any — report on 'X-ray' use?",
    "How many? " + "Exclude a, b, c. " * 30,
    "Is exercise (e.g. walking, cycling, swimming, rowing, running, climbing, dancing, skiing, skating, hiking, "
    "jogging, yoga, pilates, tai chi, boxing, judo, karate, tennis, golf, rugby, hockey, cricket, football) "
    "associated with mood in older adults, children, adolescents, women and veterans?",
])
def test_odd_questions_still_fill_the_contracts(question):
    backend = OfflineBackend(HashingEmbedder())
    intent = backend.decompose_intent(question)
    queries = backend.generate_queries(intent)  # validates: parses, 10 strings, 10-15 keywords, <= 2000 chars
    assert len(queries.boolean_query) <= 2000 and parse_boolean_query(queries.boolean_query)


@pytest.mark.parametrize("question", [SLEEP, DRUGS, BEAMS, MISINFO])
def test_every_concept_is_in_the_query_and_no_block_alone_is_required(question):
    plan = extract_concepts(question)
    shipped = {t for t in query_terms(parse_boolean_query(plan.boolean_query()))}
    for block in plan.blocks:  # the shipped shape: every required block, never an optional one alone
        if block.required:
            assert shipped & {t.strip('"') for t in block.terms}, block.label
    query = plan.boolean_query("main_or_rest")
    tree = parse_boolean_query(query)
    words = set(query_terms(tree))
    for block in plan.blocks:  # every concept block, required or optional, is in the query
        assert words & {t.strip('"') for t in block.terms}, block.label
    main, rest = plan.main(), [b for b in plan.blocks if b is not plan.main()]
    assert main is not None and main.required
    # A OR (B AND C ...): the main concept alone is enough, and so is every other concept together
    assert matches(tree, main.terms[0].strip('"').rstrip("*"))
    if rest:
        assert matches(tree, " ".join(b.terms[0].strip('"').rstrip("*") for b in rest))
    if len(rest) > 1:
        assert not matches(tree, rest[0].terms[0].strip('"').rstrip("*"))


def test_every_shape_parses_and_fits_the_contract():
    plan = extract_concepts(DRUGS)
    assert len(plan.blocks) >= 3
    doc = "Omeprazole in adults with gastroesophageal reflux disease"
    for shape in QUERY_SHAPES:
        query = plan.boolean_query(shape)
        assert 3 <= len(query) <= 2000 and matches(parse_boolean_query(query), doc), shape
    main_only = plan.boolean_query("main")
    assert len(plan.boolean_query("two_of")) > len(main_only)
    with pytest.raises(ValueError):
        plan.boolean_query("three_of")


ADHD = (
    "What is the comparative effectiveness of stimulant and non-stimulant medications (methylphenidate, "
    "atomoxetine) in children with attention deficit hyperactivity disorder (ADHD)?"
)


@pytest.mark.parametrize("question", [SLEEP, DRUGS, BEAMS, MISINFO, ADHD])
def test_the_query_says_something_in_every_dialect_and_shards_exactly(question):
    query = extract_concepts(question).boolean_query()
    tree = query_tree(query)
    assert "non-stimulant*" not in query and "kid*" not in query  # stems no engine truncates
    for dialect, render in (("pubmed", to_pubmed), ("europepmc", to_europepmc), ("arxiv", to_arxiv)):
        translated = render(tree)
        assert translated, dialect  # an empty translation: the source is sent no query at all
        parse(dialect, translated)
    value = to_openalex(tree, boolean=True, text=query).params()["filter"].split(":", 1)[1]
    parse("openalex", value)
    # a top-level OR splits into OR-shards whose union is the query
    shards = or_shards(tree, lambda node: len(to_pubmed(node)) <= 200)
    assert all(len(to_pubmed(s)) <= 200 for s in shards)
    for title in ("Methylphenidate in children", "Sleep and depression in teens", "Omeprazole for GERD",
                  "Proton therapy of chordoma", "COVID-19 misinformation on Twitter", "Aspirin in stroke"):
        assert matches(tree, title) == any(matches(s, title) for s in shards)


POLLUTION = (
    "Air pollution and the risk of asthma: a systematic review and meta-analysis. BackgroundAsthma is common. "
    "ObjectiveWe aimed to assess whether exposure to air pollution raises the risk of asthma in children. "
    "MethodsWe searched MEDLINE and Embase. ResultsForty studies (n = 12000) were included."
)


def test_a_title_of_two_subjects_ands_them_each_an_or_of_its_variants():
    plan = extract_concepts(POLLUTION)
    tree = parse_boolean_query(plan.boolean_query())
    assert len(plan.blocks) == 2 and plan.blocks[1].independent
    assert matches(tree, "Traffic-related air pollution and incident asthma in a birth cohort")
    for one_subject in ("Asthma control in adults: a trial of inhaled steroids", "Air pollution and mortality"):
        assert not matches(tree, one_subject), one_subject
    # the intent carries it, so the offline query (and the seed widening, which re-renders it) AND the two
    intent = OfflineBackend(HashingEmbedder()).decompose_intent(POLLUTION)
    assert [c.independent for c in intent.concepts] == [False, True]
    assert " AND " in OfflineBackend(HashingEmbedder()).generate_queries(intent).boolean_query


def test_a_title_subject_is_never_a_comparator_or_generic_words_alone():
    plan = extract_concepts("Common therapies for gout: a systematic review. ObjectiveTo compare therapies for "
                            "gout. MethodsWe searched MEDLINE.")
    assert [b.label.casefold() for b in plan.blocks] == ["gout"]
    assert plan.boolean_query() == "gout"


def test_a_background_judges_which_words_are_generic():
    question = "How do rumours about vaccines spread among patients on social media or social networks?"
    terms = {t for b in extract_concepts(question).blocks for t in b.terms}
    assert '"social network"' in terms and '"social media"' not in terms  # general English: "social media" 5.05
    assert "patient*" in terms  # 4.9
    shares = {"patient*": 0.4, "patients": 0.4}
    plan = extract_concepts(question, background=lambda t: shares.get(t, 0.0))
    assert '"social media"' in {t for b in plan.blocks for t in b.terms}
    # a block of patient* alone is generic now: optional, never the main block
    assert all(b.generic and not b.required for b in plan.blocks if "patient*" in b.terms)
    assert not any(b.generic for b in extract_concepts(question).blocks if "patient*" in b.terms)


def test_a_long_phrase_gives_its_leading_and_trailing_parts():
    plan = extract_concepts("Does exercise help adults with type 1 diabetes mellitus?")
    terms = {t for b in plan.blocks for t in b.terms}
    assert '"type 1 diabetes"' in terms and '"diabetes mellitus"' in terms


def test_a_generic_word_of_a_concept_phrase_stays_paired_with_its_neighbours():
    from agentr_dagster.llm.offline.concepts import ConceptBlock, ConceptPlan
    from agentr_dagster.llm.offline.concepts.generic import _drop_generic_terms

    block = ConceptBlock("exposure", "fault prediction metrics",
                         ['"fault prediction metrics"', '"fault prediction"', "predict*"])
    shares = {"predict*": 0.2}
    _drop_generic_terms([block], 5.0, lambda t: shares.get(t, 0.0), 0.1)
    assert "predict*" not in block.terms
    assert "(predict* AND (fault* OR metric*))" in block.terms  # paired with every other word of its phrases
    tree = parse_boolean_query(ConceptPlan([block]).boolean_query())
    assert matches(tree, "Predicting faulty modules from code churn")
    assert matches(tree, "Churn metrics predict field failures")
    assert not matches(tree, "Predicting mortality after surgery")


def test_a_block_left_out_by_the_seeds_leaves_the_query_without_it_never_wider():
    from agentr_dagster.domain.contracts import ConceptFacet
    from agentr_dagster.llm.offline.queries import concept_boolean_query

    drug = ConceptFacet(facet="intervention", label="vorlixamab", terms=["vorlixamab"])
    condition = ConceptFacet(facet="population", label="glimmer syndrome", terms=['"glimmer syndrome"'],
                             independent=True)
    setting = ConceptFacet(facet="setting", label="clinics", terms=["clinic*"])
    assert concept_boolean_query([drug, condition, setting]) == 'vorlixamab AND "glimmer syndrome"'
    # the title's subjects AND-ed: one left out, the other blocks do not come back in
    assert concept_boolean_query([drug, condition, setting], leave_out=frozenset({1})) == "vorlixamab"
    assert concept_boolean_query([drug, condition, setting], leave_out=frozenset({0})) == '"glimmer syndrome"'
    plain = condition.model_copy(update={"independent": False})
    assert concept_boolean_query([drug, plain, setting]) == 'vorlixamab OR ("glimmer syndrome" AND clinic*)'
    assert concept_boolean_query([drug, plain, setting], leave_out=frozenset({2})) == 'vorlixamab OR "glimmer syndrome"'
    assert concept_boolean_query([drug, plain, setting], leave_out=frozenset({0})) == '"glimmer syndrome" AND clinic*'


def test_a_phrase_mined_from_seed_studies_is_sent_quoted():
    from agentr_dagster.domain.contracts import ConceptFacet
    from agentr_dagster.llm.offline.queries import concept_boolean_query

    drug = ConceptFacet(facet="intervention", label="vorlixamab", terms=["vorlixamab", "glimmer relief"])
    # a seed study's phrase comes bare; unquoted, "glimmer relief" would be read as glimmer AND relief
    assert concept_boolean_query([drug]) == '(vorlixamab OR "glimmer relief")'
