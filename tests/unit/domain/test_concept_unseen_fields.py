"""Concept blocks of review texts from fields the shared reviews do not cover (invented texts): a title's own kind,
lists that span fields, verbs before a possessive, population words narrowed by a modifier, British spellings."""

import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.llm.offline.concepts import extract_concepts
from agentr_dagster.llm.offline.concepts.frames import _without_own_kind
from agentr_dagster.llm.offline.concepts.spelling import _spelling_variants


def _terms(text: str) -> list[str]:
    return [t for b in extract_concepts(text).blocks for t in b.terms]


@pytest.mark.parametrize("title", [
    "Pair programming: a systematic mapping study",
    "Pair programming in undergraduate courses: a systematic mapping study and evidence map",
    "Pair programming in undergraduate courses: a scoping review and evidence synthesis",
])
def test_a_titles_own_kind_is_no_term(title):
    text = f"{title}. Pair programming is widely taught, but its effects on learning are debated."
    terms = _terms(text)
    assert any("pair programming" in t for t in terms)
    assert not any(w in t for t in terms for w in ("mapping", "umbrella", "synthes", "scoping"))


def test_a_subtitle_with_a_preposition_is_not_a_kind():
    title = "Pair programming: lessons for an introductory course study"
    assert _without_own_kind(title) == title
    assert _without_own_kind("Pair programming: a rapid review") == "Pair programming"


def test_a_list_across_fields_is_no_kind_of_the_subject():
    text = ("Switching from branded inhalers to generic inhalers: a systematic review. We included 80 studies of "
            "patients switched across rheumatology, gastroenterology, dermatology and oncology. Trials compared "
            "zorvanol, quelmitase and draxofungin.")
    terms = _terms(text)
    assert not any(t.startswith(("rheumatolog", "gastroenterolog", "dermatolog")) for t in terms)
    assert any(t.startswith("zorvanol") for t in terms)  # a list of names still names kinds


def test_a_word_before_a_possessive_is_the_verb():
    labels = [b.label for b in extract_concepts(
        "Do reminder letters in dental clinics increase children's attendance at check-ups?").blocks]
    assert not any("increase" in label for label in labels)
    assert any("dental clinic" in label for label in labels)


def test_a_compound_before_a_possessive_stays_whole():
    labels = [b.label for b in extract_concepts(
        "How do telephone triage nurses' decisions affect waiting times?").blocks]
    assert any("triage" in label for label in labels)


def test_a_narrowed_population_keeps_its_own_word_not_close_terms():
    terms = _terms("Does vitamin K2 supplementation reduce fractures in postmenopausal women?")
    assert "maternal" not in terms and "female*" not in terms
    assert any("postmenopaus" in t for t in terms)
    terms = _terms("Does tutoring improve the reading fluency of refugee children?")
    assert not any(t.startswith(("infant", "kid", "pediatric")) for t in terms)
    assert any("child" in t and "refugee" in t for t in terms)


def test_a_common_modifier_keeps_the_close_terms():
    terms = _terms("What is the prevalence of myopia in school children?")
    assert "pediatric*" in terms and any(t.startswith("child") for t in terms)


def test_close_terms_alone_never_stand_for_a_common_population_word():
    plan = extract_concepts("What is the diagnostic accuracy of lung ultrasound for bronchiolitis in children?")
    who = next(b for b in plan.blocks if "child*" in b.terms or "pediatric*" in b.terms)
    assert "child*" in who.terms  # the word itself, not only pediatric* / kid / infant*
    assert not who.required


@pytest.mark.parametrize(("american", "british"), [
    ("iron deficiency anemia", "iron deficiency anaemia"), ("ischemic stroke", "ischaemic stroke"),
    ("hypoxemia", "hypoxaemia"),
])
def test_blood_words_get_their_british_spelling(american, british):
    assert british in _spelling_variants(american)


@pytest.mark.parametrize("word", ["academic achievement", "systemic sclerosis", "epidemic", "chemical exposure"])
def test_other_emi_words_keep_their_spelling(word):
    assert _spelling_variants(word) == []


@pytest.mark.parametrize("question", [
    "Which imaging tests are used to assess bone marrow oedema in adolescent athletes?",
    "What scoring tools have been used to grade bone marrow oedema in adolescent athletes?",
])
def test_the_kind_of_answer_asked_for_is_not_the_main_block(question):
    main = extract_concepts(question).main()
    assert main is not None and "oedema" in main.label.casefold()


def test_a_kind_asked_for_without_used_stays_the_subject():
    main = extract_concepts("Which imaging tests detect bone marrow oedema in adolescent athletes?").main()
    assert main is not None and "imaging" in main.label.casefold()


def _hits(text: str, record: str, background=None) -> bool:
    query = extract_concepts(text, background=background).boolean_query()
    return matches(parse_boolean_query(query), record)


def test_the_animals_a_question_names_filter_the_whole_query():
    question = "Does caffeine improve object recognition memory in rats and mice?"
    assert _hits(question, "Caffeine enhances novel object recognition in C57BL/6 mice")
    assert _hits(question, "Object recognition memory after adenosine blockade in the rat")
    assert not _hits(question, "Caffeine intake and memory in older adults")


def test_rodents_and_animal_models_are_named_by_their_species():
    question = "Which animal models of anxiety are used, and how well do they predict drug effects?"
    assert _hits(question, "Anxiety-like behaviour of mice in the elevated plus maze")
    assert not _hits(question, "Anxiety in adolescents: a cohort study")


def test_an_abstracts_title_animals_filter_unless_its_subject_is_narrow():
    text = ("Animal models of anxiety: a systematic review of the elevated plus maze in stressed rodents. We "
            "reviewed studies in rats or mice.")
    assert _hits(text, "Anxiety-like behaviour of rats in the elevated plus maze")
    assert not _hits(text, "Anxiety in adolescents: a cohort study")

    def background(term: str) -> float:  # anxiety in a tenth of the records: broad; anything else rare
        return 0.1 if term.strip('"').casefold().startswith("anxiet") else 0.0001
    assert not _hits(text, "Anxiety in adolescents: a cohort study", background)
    narrow = "Quelmitase and anxiety-like behaviour in rodents: a systematic review. We reviewed studies in rats."

    def narrow_background(term: str) -> float:
        return 0.0001
    # a narrow subject alone is specific already: a study of it that never names its species is still found
    assert _hits(narrow, "Quelmitase reduces anxiety-like behaviour", narrow_background)


def test_animals_and_humans_together_are_no_animal_filter():
    question = "Do ketamine trials in animals and humans report the same antidepressant effect sizes?"
    assert _hits(question, "Ketamine infusion for treatment-resistant depression: a randomised trial")


def test_a_title_naming_animals_and_humans_has_no_animal_filter():
    text = ("Animal and human studies of zorvanol for gout: a systematic review. We compared the design of trials "
            "in rats and mice with trials in patients.")
    assert _hits(text, "Zorvanol lowers serum urate in patients with gout: a randomised trial")


def test_the_filter_survives_the_stored_intent():
    from agentr_dagster.llm.offline import OfflineBackend

    backend = OfflineBackend()
    intent = backend.decompose_intent("Does caffeine improve object recognition memory in rats and mice?", None)
    query = parse_boolean_query(backend.generate_queries(intent).boolean_query)
    assert matches(query, "Caffeine enhances novel object recognition in C57BL/6 mice")
    assert not matches(query, "Caffeine intake and memory in older adults")


@pytest.mark.parametrize("question", [
    "Is switching from a branded inhaler to a generic inhaler safe and effective in adults with asthma?",
    "Is supervised exercise training feasible and acceptable for people with heart failure?",
])
def test_coordinated_predicate_adjectives_are_no_terms(question):
    terms = _terms(question)
    assert not any(w in t for t in terms for w in ("safe", "effectiv", "feasib", "acceptab"))
    assert any("inhaler" in t or "exercise training" in t for t in terms)


def test_a_gerund_head_is_a_process_of_its_modifier():
    # "antibiotic prescribing": prescribing of antibiotics, not any prescribing
    terms = _terms("What interventions reduce antibiotic prescribing for acute otitis media in primary care?")
    assert "prescrib*" not in terms
    assert "(prescrib* AND antibiotic*)" in terms


def test_what_is_asked_for_a_topic_is_no_main_block():
    # "What are the risk factors for Y": the studies are of Y; "risk factor*" alone is every field's
    main = extract_concepts("What are the risk factors for delirium after hip fracture surgery?").main()
    assert main is not None and main.label.casefold() == "delirium"


def test_a_compound_modifier_of_a_population_is_judged_by_its_commonest_part():
    terms = _terms("Which exercise programmes prevent falls in community-dwelling older adults?")
    assert "elderly" in terms and '"older people"' in terms


def test_the_animals_are_no_search_string_alone():
    from agentr_dagster.llm.offline import OfflineBackend

    backend = OfflineBackend()
    intent = backend.decompose_intent("Does caffeine improve object recognition memory in rats and mice?", None)
    strings = backend.generate_queries(intent).search_strings
    assert len(strings) == 10
    assert not any(s.casefold() in ("rats", "mice", "rat", "mouse", "murine") for s in strings)
    assert any(s.casefold().endswith(("rats", "mice")) and "caffeine" in s.casefold() for s in strings)


def test_to_before_a_gerund_is_a_preposition():
    # "barriers to using X": the barriers are what is asked about X; barrier* alone is every field's
    main = extract_concepts("What are the barriers to using telehealth among rural veterans?").main()
    assert main is not None and "telehealth" in main.label.casefold()


def test_a_count_of_common_things_is_no_term():
    terms = _terms("Prevalence of burnout among nurses in intensive care units: a systematic review. Aim: To estimate "
                   "the prevalence of burnout and its three dimensions (emotional exhaustion, depersonalisation and "
                   "reduced personal accomplishment) among intensive care nurses.")
    assert not any("dimension" in t for t in terms)
    assert '"emotional exhaustion"' in terms


def test_multiple_sclerosis_is_no_count():
    assert any("multiple sclerosis" in t for t in _terms("Does vitamin D reduce relapses in multiple sclerosis?"))


@pytest.mark.parametrize(("query", "grouped"), [
    ("zorvanol*", "zorvanol*"), ('"glimmer syndrome"', '"glimmer syndrome"'), ("(a OR b)", "(a OR b)"),
    ('"glimmer syndrome" OR zorvanol*', '("glimmer syndrome" OR zorvanol*)'), ("(a) OR (b)", "((a) OR (b))"),
])
def test_the_query_before_the_animal_filter_is_one_operand(query, grouped):
    from agentr_dagster.llm.offline.concepts.model import _grouped

    assert _grouped(query) == grouped
