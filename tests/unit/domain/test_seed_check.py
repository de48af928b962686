"""A Boolean query checked against seed studies: recall, the losing block per missed study, the widened query;
and the structural checks of a query (pure logic)."""

from __future__ import annotations

from agentr_dagster.domain.boolean_query import blocks_of, matches, parse_boolean_query, to_query
from agentr_dagster.domain.seed_check import (
    SEED_RECALL_FLOOR,
    SeedStudy,
    check_query,
    mined_terms,
    repair_feedback,
    structural_problems,
)

QUERY = '(adolesc* OR teen*) AND (depress* OR "low mood")'
SEEDS = [
    SeedStudy("Sleep and depression in adolescents"),
    SeedStudy("Teenagers' low mood after short sleep", "A cohort of teens."),
    SeedStudy("Insomnia and depressive symptoms in youth", "Young people with insomnia reported more symptoms."),
    SeedStudy("Sleep loss and anxiety among adolescents", "Anxiety disorders rose with sleep loss.", "10.1/x"),
]


def test_to_query_round_trips():
    for text in (QUERY, '"soft skill*" AND (teacher* OR educator*) NOT "pre-school"', 'a OR (b AND "c d")'):
        tree = parse_boolean_query(text)
        assert parse_boolean_query(to_query(tree)) == tree
    assert len(blocks_of(parse_boolean_query(QUERY))) == 2


def test_recall_and_the_block_losing_each_missed_study():
    report = check_query(QUERY, SEEDS, ["population: adolescents", "outcome: depression"])
    assert report.n_seeds == 4 and report.n_found == 2 and report.recall == 0.5
    assert report.below_floor and report.recall < SEED_RECALL_FLOOR
    lost = {m.title: m.facets for m in report.missed}
    assert lost["Insomnia and depressive symptoms in youth"] == ["population: adolescents"]
    assert lost["Sleep loss and anxiety among adolescents"] == ["outcome: depression"]
    assert [m.doi for m in report.missed if m.doi] == ["10.1/x"]


def test_the_widened_query_recovers_the_missed_seeds_with_their_own_words():
    def related(candidates: list[str], block_terms: list[str]) -> list[float]:
        # a stand-in for the embedding neighbourhood: population words near the population block's terms
        near = {"adolesc*": ("youth*", "young people"), "depress*": ("anxiety*", "anxiet*")}
        return [1.0 if any(c in near.get(t, ()) for t in block_terms) else 0.0 for c in candidates]

    plain = check_query(QUERY, SEEDS, ["population", "outcome"])
    assert plain.widened_recall == 1.0  # without relatedness the missed seeds are still recovered
    report = check_query(QUERY, SEEDS, ["population", "outcome"], relatedness=related)
    assert report.widened_query and report.widened_recall == 1.0
    widened = parse_boolean_query(report.widened_query)
    assert all(matches(widened, s.text) for s in SEEDS)
    assert len(blocks_of(widened)) == 2  # widened inside its blocks, never a new AND
    assert set(report.added_terms) == {"population", "outcome"}
    population_terms = " ".join(report.added_terms["population"])
    assert "youth" in population_terms or "young" in population_terms
    assert "anxiet" in " ".join(report.added_terms["outcome"])
    assert "summary" and "widened query recalls 1.00" in report.summary()


def test_no_seeds_means_nothing_to_check():
    report = check_query(QUERY, [])
    assert report.recall is None and not report.below_floor and report.summary() == "no seed studies"


def test_structural_problems():
    assert structural_problems(QUERY) == []
    design = structural_problems('(sleep OR insomnia) AND ("randomized controlled trial" OR cohort)')
    assert any("study-design block" in p for p in design)
    boiler = structural_problems('(antihistamin* OR loratadin*) AND ("drug class review" OR "class head")')
    assert any("boilerplate" in p for p in boiler)
    many = structural_problems("a AND b AND c AND d AND e")
    assert any("5 blocks" in p for p in many)
    long_phrase = structural_problems('"insufficient sleep duration in school aged adolescents" AND depress*')
    assert any("more than 4 words" in p for p in long_phrase)
    excluded = structural_problems("(proton* OR photon*) AND cancer", excluded=["photon*"])
    assert any("excludes" in p for p in excluded)


def test_repair_feedback_names_problems_and_missed_seeds():
    report = check_query(QUERY, SEEDS)
    text = repair_feedback(["block 2 is a study-design block"], report)
    assert "study-design" in text and "Insomnia and depressive symptoms in youth" in text
    assert "2 of 4" in text


def _corpus_tools(corpus: list[str]):
    from agentr_dagster.domain.boolean_query import Term as _Term

    def df(term: str) -> float:
        return sum(matches(_Term(term), doc) for doc in corpus) / len(corpus)

    def count(node) -> int:
        return sum(matches(node, doc) for doc in corpus)

    return df, count


def test_seed_terms_mined_against_a_background_widen_the_block_that_lacks_them():
    from agentr_dagster.domain.seed_check import MAX_GROWTH, improve_blocks, mined_terms

    corpus = [f"Therapy in adults, report {i}" for i in range(40)] + [
        f"Gabapentin for neuropathic pain, trial {i}" for i in range(6)] + [
        "Gabapentin for neuropathic pain", "Pregabalin in painful diabetic neuropathy",
        "Nortriptyline for postherpetic neuralgia", "Duloxetine in diabetic peripheral neuropathic pain",
    ]
    df, count = _corpus_tools(corpus)
    seeds = [
        SeedStudy("Pregabalin therapy for painful diabetic neuropathy", "Adults with neuropathy."),
        SeedStudy("Neuropathic pain after herpes zoster: gabapentin therapy", "Neuropathy in adults."),
        SeedStudy("Duloxetine therapy and diabetic neuropathy", "Adults treated."),
    ]
    mined = mined_terms(seeds, df)
    # every seed says "therapy" and "adults", but so does the background: the seeds' own words come first
    assert mined.index("neuropath*") < mined.index("therap*") and mined.index("diabetic*") < mined.index("adult*")

    def render(terms: list[list[str]]) -> str:
        return " AND ".join("(" + " OR ".join(f'"{t}"' if " " in t else t for t in ts) + ")" for ts in terms)

    drugs = {"gabapentin", "pregabalin", "duloxetin*", "nortriptylin*"}

    def related(candidates: list[str], block_terms: list[str]) -> list[float]:  # a drug name to the drugs
        drug_block = bool(set(block_terms) & drugs)
        return [float((c in drugs) == drug_block) for c in candidates]

    result = improve_blocks([("drug", ["gabapentin", "pregabalin"]), ("condition", ["neuropathic pain"])],
                            seeds, render, background=df, count=count, relatedness=related)
    assert result.seed_recall_before < result.seed_recall_after == 1.0
    assert any("neuropath" in t for t in result.added["condition"])
    assert "duloxetin*" in result.added["drug"]
    # no term that multiplies what the query matches in the background: the generic words stay out
    every_added = {t for ts in result.added.values() for t in ts}
    assert not every_added & {"therap*", "adult*"}
    assert count(parse_boolean_query(result.query)) <= MAX_GROWTH * max(1, count(parse_boolean_query(
        render([["gabapentin", "pregabalin"], ["neuropathic pain"]]))))


def test_boilerplate_frequent_across_a_background_of_many_topics_is_never_a_seed_term():
    from agentr_dagster.domain.seed_check import improve_blocks

    # the pool weighed against: the topic's own records (a project's candidates), where both words are rare
    corpus = [f"Gabapentin for neuropathic pain, trial {i}" for i in range(30)] + ["Unrelated record"] * 30
    df, count = _corpus_tools(corpus)
    # a background of many topics (the lake): every publisher's abstract ends with the same words
    boilerplate = "funding source industry grant"

    def generic(term: str) -> float:
        return 0.2 if all(w.rstrip("*") in boilerplate for w in term.split()) else 0.0

    # a copyright sentence is the publisher's: left out by its form, whatever the background says
    seeds = [SeedStudy("Pregabalin for painful neuropathy", "Funding source: industry grant. Copyright Elsevier."),
             SeedStudy("Pregabalin in diabetic neuropathy", "Funding source: industry grant. All rights reserved."),
             SeedStudy("Gabapentin for neuropathic pain", "A trial.")]

    def render(terms: list[list[str]]) -> str:
        return " AND ".join("(" + " OR ".join(f'"{t}"' if " " in t else t for t in ts) + ")" for ts in terms)

    blocks = [("drug", ["gabapentin"]), ("condition", ["neuropathic pain"])]
    without = improve_blocks(blocks, seeds, render, background=df, count=count, max_growth=3.0)
    unfiltered = {t for ts in without.added.values() for t in ts}
    assert unfiltered & {"funding source", "industry grant", "fund*", "sourc*", "industr*", "grant*"}
    assert not [t for t in unfiltered if t.startswith(("copyright", "elsevier", "right"))]
    result = improve_blocks(blocks, seeds, render, background=df, count=count, max_growth=3.0, generic=generic)
    added = {t for ts in result.added.values() for t in ts}
    assert "pregabalin*" in added and not any(generic(t) for t in added)
    # each term goes to the block that misses the seeds using it: the drug to the drugs, the condition's
    # word to the condition (no relatedness given: seed co-occurrence alone decides)
    assert "pregabalin*" in result.added["drug"]
    assert any(t.startswith("neuropath") for t in result.added["condition"])
    assert result.seed_recall_after == 1.0


def _off_topic_tools(corpus: list[str], topic: list[str]):
    """``count`` over the topic's records and a background of other topics, and ``share``: the share of the
    other topics' records (the off-topic rate) a query matches."""
    df, count = _corpus_tools(topic + corpus)

    def share(node) -> float:
        return sum(matches(node, doc) for doc in corpus) / len(corpus)

    return df, count, share


def _and_render(terms: list[list[str]], leave_out: frozenset[int] = frozenset()) -> str:
    kept = [ts for i, ts in enumerate(terms) if i not in leave_out]
    return " AND ".join("(" + " OR ".join(f'"{t}"' if " " in t else t for t in ts) + ")" for ts in kept)


# an invented drug class and condition: two of five seeds name the drug but never the condition
_VORLIX_SEEDS = [
    SeedStudy("Vorlixamab in glimmer syndrome", "A trial of vorlixamab in adults with glimmer syndrome."),
    SeedStudy("Glimmer syndrome treated with vorlixamab", "Patients with glimmer syndrome improved."),
    SeedStudy("Long-term vorlixamab for glimmer syndrome", "Open extension."),
    SeedStudy("Vorlixamab and quartz-tinted vision", "Ocular halos in a small cohort receiving vorlixamab."),
    SeedStudy("Vorlixamab dosing in shimmering retinopathy", "Pharmacokinetics of vorlixamab."),
]


def test_a_required_block_the_seeds_often_lack_is_left_out_rather_than_repaired_seed_by_seed():
    from agentr_dagster.domain.seed_check import improve_blocks

    topic = [f"Vorlixamab in glimmer syndrome, report {i}" for i in range(10)]
    corpus = [f"Aspirin for headache, report {i}" for i in range(300)] + ["A vorlixamab assay"]
    df, count, share = _off_topic_tools(corpus, topic)
    blocks = [("drug", ["vorlixamab"]), ("condition", ["glimmer syndrome"])]
    old = improve_blocks(blocks, _VORLIX_SEEDS, _and_render, background=df, count=count, max_growth=3.0)
    # without the relaxation each lost seed is repaired by its own wording, which names no other study
    assert old.added.get("condition") and not old.relaxed
    result = improve_blocks(blocks, _VORLIX_SEEDS, _and_render, background=df, count=count, max_growth=3.0,
                            off_topic=share, relax=_and_render)
    assert result.relaxed == ["condition"] and result.query == "(vorlixamab)"
    assert "condition" not in result.added and result.seed_recall_after == 1.0


def test_a_block_is_not_left_out_when_the_query_would_then_reach_off_topic():
    from agentr_dagster.domain.seed_check import MAX_SEEDED_OFF_TOPIC, improve_blocks

    topic = [f"Vorlixamab in glimmer syndrome, report {i}" for i in range(10)]
    # the drug alone is everywhere in the other topics (a class used for many conditions)
    corpus = [f"Vorlixamab for headache, report {i}" for i in range(30)] + [f"Aspirin, report {i}" for i in range(270)]
    df, count, share = _off_topic_tools(corpus, topic)
    assert share(parse_boolean_query("vorlixamab")) > MAX_SEEDED_OFF_TOPIC
    result = improve_blocks([("drug", ["vorlixamab"]), ("condition", ["glimmer syndrome"])], _VORLIX_SEEDS,
                            _and_render, background=df, count=count, max_growth=3.0, off_topic=share,
                            relax=_and_render)
    assert not result.relaxed and "glimmer syndrome" in result.query


def test_a_rare_word_most_seeds_share_joins_the_block_even_where_every_seed_is_named():
    from agentr_dagster.domain.seed_check import improve_blocks

    seeds = [SeedStudy(f"Quibble norms and flurbosis in {who}", "Flurbosis rates were higher.")
             for who in ("farmers", "students", "sailors", "miners")] + [
             SeedStudy("Quibble norms among clerks", "A survey of norms.")]
    topic = [f"Flurbosis in coastal towns, report {i}" for i in range(20)] + ["Quibble norms, a review"]
    corpus = [f"Aspirin for headache, report {i}" for i in range(200)] + [
        f"Higher rates of fever in study {i}" for i in range(100)]
    df, count, share = _off_topic_tools(corpus, topic)

    def generic(term: str) -> float:  # the background of many topics judges a word general or specific
        return share(parse_boolean_query(term))

    blocks = [("norms", ["quibble norms"])]
    old = improve_blocks(blocks, seeds, _and_render, background=df, count=count, generic=generic)
    assert not old.added  # the block names every seed: nothing to repair, nothing added
    result = improve_blocks(blocks, seeds, _and_render, background=df, count=count, generic=generic,
                            off_topic=share)
    assert any(t.startswith("flurbos") for t in result.added["norms"])
    # a word the seeds share that the other topics use as often is no word of the concept
    assert not {t for t in result.added["norms"] if t.startswith(("rate", "higher"))}


def test_mined_terms_leave_out_publisher_sentences_spelled_numbers_and_past_verbs():
    seeds = [
        SeedStudy("Flurbo quibbles in thirty-four wibble patients",
                  "We started flurbo therapy. Copyright 2020 Elsevier Ltd. All rights reserved."),
        SeedStudy("Flurbo for wibble", "Thirty-four adults started flurbo. (c) 2019 Elsevier Inc."),
    ]
    terms = mined_terms(seeds, lambda term: 0.0)
    assert "flurbo*" in terms and "wibbl*" in terms
    assert not [t for t in terms if t.startswith(("elsevier", "copyright", "thirty", "started", "right"))]


def test_a_shared_word_no_seed_needs_never_multiplies_what_the_query_finds():
    from agentr_dagster.domain.seed_check import improve_blocks

    seeds = [SeedStudy(f"Quibble norms and flurbosis in {who}", "Flurbosis rates were higher.")
             for who in ("farmers", "students", "sailors", "miners")] + [
             SeedStudy("Quibble norms among clerks", "A survey of norms.")]
    # 20 records of the pool name flurbosis without the norms: the word alone would take the query from 1 to 21
    topic = [f"Flurbosis in coastal towns, report {i}" for i in range(20)] + ["Quibble norms, a review"]
    corpus = [f"Aspirin for headache, report {i}" for i in range(300)]
    df, count, share = _off_topic_tools(corpus, topic)
    result = improve_blocks([("norms", ["quibble norms"])], seeds, _and_render, background=df, count=count,
                            generic=lambda term: share(parse_boolean_query(term)), off_topic=share)
    added = result.added.get("norms", [])
    assert "flurbos*" not in added  # every seed is named already: no seed needs it, and it multiplies the query
    assert count(parse_boolean_query(result.query)) <= 1.5 * count(parse_boolean_query('"quibble norms"'))


def test_a_rare_word_most_seeds_share_may_multiply_a_query_that_misses_seeds():
    from agentr_dagster.domain.seed_check import MAX_GROWTH, improve_blocks

    # the query names two of five seeds; four use "flurbosis", which no other topic uses
    seeds = [SeedStudy(f"Quibble norms and flurbosis in {who}", "Flurbosis rates were higher.")
             for who in ("farmers", "students")] + [
             SeedStudy(f"Peer pressure and flurbosis in {who}", "A survey.") for who in ("sailors", "miners")] + [
             SeedStudy("Peer pressure among clerks", "A survey of attitudes.")]
    topic = [f"Flurbosis in coastal towns, report {i}" for i in range(20)] + ["Quibble norms, a review"]
    corpus = [f"Aspirin for headache, report {i}" for i in range(300)]
    df, count, share = _off_topic_tools(corpus, topic)

    def generic(term: str) -> float:
        return share(parse_boolean_query(term))

    blocks = [("norms", ["quibble norms"])]
    before = count(parse_boolean_query('"quibble norms"'))
    bounded = improve_blocks(blocks, seeds, _and_render, background=df, count=count, generic=generic,
                             off_topic=share, majority_share=0.0)
    assert "flurbosi*" not in bounded.added.get("norms", [])  # the growth bound alone: 1 record -> 21
    result = improve_blocks(blocks, seeds, _and_render, background=df, count=count, generic=generic,
                            off_topic=share)
    assert "flurbosi*" in result.added["norms"]
    assert count(parse_boolean_query(result.query)) > MAX_GROWTH * before
    assert share(parse_boolean_query(result.query)) == 0.0  # the off-topic bound still holds


def test_a_word_most_seeds_share_never_pre_empts_the_repair_of_a_lost_seed():
    from agentr_dagster.domain.seed_check import improve_blocks

    # "quorms" in four seeds; the two about skrindle injury are lost and named by it too, but "skrindl*" is
    # their concept: it must still join (the majority word comes after the repairs, not before)
    seeds = [SeedStudy("Zibble and quorms in farmers"), SeedStudy("Skrindle injury and quorms in sailors"),
             SeedStudy("Skrindle injury and quorms in miners"), SeedStudy("Quorms in cooks"),
             SeedStudy("Zibble in clerks")]
    topic = [f"Zibble report {i}" for i in range(2)] + [f"Quorms study {i}" for i in range(30)] + [
        f"Skrindle injury case {i}" for i in range(5)]
    corpus = [f"Aspirin for headache, report {i}" for i in range(300)]
    df, count, share = _off_topic_tools(corpus, topic)
    result = improve_blocks([("zibble", ["zibble"])], seeds, _and_render, background=df, count=count,
                            generic=lambda term: share(parse_boolean_query(term)), off_topic=share)
    added = result.added["zibble"]
    assert any(t.startswith("quorm") for t in added) and any(t.startswith("skrindl") for t in added)
    assert result.seed_recall_after == 1.0


# an invented topic: the text says "quibble forecasting"; half the studies say "wobblet" alone
_QUIBBLE_FOUND = [f"Quibble forecasting with wobblet counts, study {i}. Wobblet metrics predict quibbles."
                  for i in range(6)]
_QUIBBLE_MISSED = [f"Wobblet forecasting in tiny systems, study {i}" for i in range(4)]
_WEATHER = [f"Weather forecasting report {i}, with a grant from the council" for i in range(40)]


def test_pseudo_seeds_add_the_word_the_studies_use_where_the_text_says_another():
    from agentr_dagster.domain.seed_check import refine_with_pseudo_seeds, top_ranked

    df, count, share = _off_topic_tools(_WEATHER, _QUIBBLE_FOUND + _QUIBBLE_MISSED)
    blocks = [("quibble", ["quibble*"]), ("forecast", ["forecast*"])]
    ranked = top_ranked(list(range(6)), 5)
    assert ranked == [0, 1, 2, 3, 4]
    pseudo = [SeedStudy(_QUIBBLE_FOUND[i]) for i in ranked]
    refined = refine_with_pseudo_seeds(blocks, pseudo, _and_render, df, count, max_growth=2.0, off_topic=share)
    assert "wobblet*" in refined.added["quibble"]
    tree = parse_boolean_query(refined.query)
    assert all(matches(tree, t) for t in _QUIBBLE_MISSED)
    assert not any(matches(tree, t) for t in _WEATHER)
    # within the growth bound: the 4 new studies take 6 matches to 10, more than 1.5 times as many
    tight = refine_with_pseudo_seeds(blocks, pseudo, _and_render, df, count, max_growth=1.5, off_topic=share)
    assert not tight.added
    # a word too few of the pseudo-seeds use is one record's wording, not the concept's
    odd = [SeedStudy(_QUIBBLE_FOUND[0])] + [SeedStudy(f"Quibble forecasting, study {i}") for i in range(4)]
    assert not refine_with_pseudo_seeds(blocks, odd, _and_render, df, count, max_growth=2.0).added


def test_pseudo_seed_terms_that_reach_other_topics_or_add_nothing_are_left_out():
    from agentr_dagster.domain.seed_check import refine_with_pseudo_seeds

    # every pseudo-seed thanks the council, as the weather reports do: the word is no concept of the topic
    found = [f"Quibble forecasting, study {i}, with a grant from the council" for i in range(5)]
    df, count, share = _off_topic_tools(_WEATHER, found)
    blocks = [("quibble", ["quibble*"]), ("forecast", ["forecast*"])]
    pseudo = [SeedStudy(t) for t in found]
    free = refine_with_pseudo_seeds(blocks, pseudo, _and_render, df, count, max_growth=100.0)
    assert {"council*", "grant*"} & {t for ts in free.added.values() for t in ts}
    bounded = refine_with_pseudo_seeds(blocks, pseudo, _and_render, df, count, max_growth=100.0, off_topic=share)
    assert not {"council*", "grant*"} & {t for ts in bounded.added.values() for t in ts}
    # "quibble forecasting" and "studi*" match nothing the query did not: never added
    assert not any("quibble" in t or "forecast" in t for ts in free.added.values() for t in ts)


def test_pseudo_seed_terms_join_a_block_the_query_requires_not_one_it_leaves_out():
    from agentr_dagster.domain.seed_check import refine_with_pseudo_seeds

    df, count, share = _off_topic_tools(_WEATHER, _QUIBBLE_FOUND + _QUIBBLE_MISSED)
    # a third block ("adults") the query leaves out: it names no pseudo-seed, yet a term there finds nothing
    blocks = [("quibble", ["quibble*"]), ("forecast", ["forecast*"]), ("adults", ["adult*"])]

    def render(terms: list[list[str]]) -> str:
        return _and_render(terms[:2])

    pseudo = [SeedStudy(t) for t in _QUIBBLE_FOUND[:5]]
    refined = refine_with_pseudo_seeds(blocks, pseudo, render, df, count, max_growth=2.0, off_topic=share,
                                       open_blocks=[0, 1])
    assert "wobblet*" in refined.added.get("quibble", [])
    assert "adults" not in refined.added
