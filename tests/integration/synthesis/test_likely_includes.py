"""A small project run as the pipeline runs it (offline): the screening engine ranks, the offline backend scores,
the landscape and draft are built. What the researcher reads is true and readable: the synthesis discusses the
engine's likely includes, no gap says a paper lacks a concept its own title or abstract names (abbreviation vs
expansion, plural), every theme is one paragraph of prose, P(include) is strictly ordered, and each exported
paper says why it ranks where it does."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
from agentr_dagster.domain.concept_match import ConceptText
from agentr_dagster.domain.contracts import NO_GAP_STATEMENT
from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.stages.exports import scores_dataframe
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.relevance import current_relevance, rank_project
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.stages.synthesis import load_corpus, run_landscape, run_related_work
from agentr_dagster.synthesis.landscape import lacked_concepts
from agentr_dagster.synthesis.taxonomy import COMPETITORS_ID, GAPS_ID

QUESTION = (
    "How have systematic literature reviews (SLRs) been used in software engineering research? This tertiary "
    "study looks for secondary studies, that is, systematic literature reviews of software engineering topics, "
    "to catalogue which topics have been reviewed and how good the reviews are. Primary empirical studies and "
    "opinion papers are not relevant."
)
TOPICS = ["effort estimation", "requirements elicitation", "regression testing", "software process improvement",
          "global software development", "agile methods", "defect prediction", "software product lines",
          "model-driven engineering", "code review", "technical debt", "software architecture"]


def _papers() -> list[dict]:
    rows = []
    for i, topic in enumerate(TOPICS):
        title = (f"A systematic review of {topic} research" if i % 3 == 0 else
                 f"Systematic literature reviews of {topic}: a mapping" if i % 3 == 1 else
                 f"An SLR of {topic} studies")
        rows.append({"id": f"r{i}", "title": title, "abstract": (
            f"We report a systematic review of the literature on {topic} in software engineering. "
            f"Following published guidelines we searched five digital libraries and selected {20 + i} primary "
            f"studies on {topic}. The quality of every selected study was assessed and the evidence synthesised. "
            "The review identifies open research questions and gaps in the evidence base for practitioners.")})
        rows.append({"id": f"p{i}", "title": f"An industrial experiment on {topic}", "abstract": (
            f"This paper reports a controlled experiment with {12 + i} professional developers on {topic}. "
            "Participants were randomly assigned to two treatments and their performance was measured over "
            "four weeks. The results show a significant improvement in productivity and quality for the new "
            "treatment compared with current practice.")})
    for i, topic in enumerate(["crop yields under drought", "coral reef bleaching", "urban bus timetables"]):
        rows.append({"id": f"u{i}", "title": f"Field measurements of {topic}", "abstract": (
            f"We measured {topic} at twelve sites over three seasons with standard instruments. Statistical "
            "models of the measurements show strong seasonal effects and a clear trend across the sites. "
            "We discuss the implications of the findings for local planning and future monitoring.")})
    return rows


@pytest.fixture
def project(tmp_path: Path):
    path = tmp_path / "papers.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "title", "abstract"])
        writer.writeheader()
        writer.writerows(_papers())
    store = open_store()
    add_project(store, "tertiary", QUESTION)
    add_papers_file(store, "tertiary", path)
    backend = OfflineStageBackend()
    run_intent(store, backend, "tertiary")
    run_queries(store, backend, "tertiary")
    rank_project(store, "tertiary")
    assert score_project(store, backend, "tertiary").complete
    return store


def _own_text(store, slug: str) -> dict[int, ConceptText]:
    return {p.id: ConceptText(f"{p.title}. {p.abstract or ''}", context=[QUESTION])
            for p in store.projects.list_papers(slug)}


def test_no_gap_says_a_paper_lacks_what_its_own_title_or_abstract_names(project, tmp_path):
    store = project
    own = _own_text(store, "tertiary")
    land = run_landscape(store, "tertiary").landscape
    draft = run_related_work(store, "tertiary", out_dir=tmp_path / "draft")
    assert draft.valid, draft.report.issues
    assert not any(g.representative.startswith(NO_GAP_STATEMENT) for g in land.gap_clusters)  # "no gap" is no gap
    stated = [(s.paper_id, s.text) for g in land.gap_clusters for s in g.statements]
    stated += [(e.paper_id, v) for p in draft.draft.paragraphs() for s in p.sentences for e in s.evidence
               for f, v in e.fields.items() if f.startswith("research_gaps")]
    for paper_id, text in stated:
        for concept in lacked_concepts(text):
            assert not own[paper_id].contains(concept), (paper_id, text)
    # the scorer itself: no stored gap about the abbreviation on a paper that names it or its expansion
    for result in store.results.results_for_project("tertiary"):
        for gap in result.payload["research_gaps"]:
            for concept in lacked_concepts(gap):
                assert not own[result.paper_id].contains(concept), (result.paper_id, gap)
    # not vacuous: the experiments and the field studies name no systematic review, and say so
    experiments = {p.id for p in store.projects.list_papers("tertiary") if p.source_id.startswith(("p", "u"))}
    assert any("'SLRs'" in g or "systematic literature review" in g.casefold()
               for r in store.results.results_for_project("tertiary") if r.paper_id in experiments
               for g in r.payload["research_gaps"])


def test_the_synthesis_discusses_the_engines_likely_includes_and_says_so(project, tmp_path):
    store = project
    ranking = current_relevance(store, "tertiary")
    ordered = sorted(ranking.values(), key=lambda r: r.rank)
    assert all(a.score > b.score for a, b in zip(ordered, ordered[1:], strict=False))  # strictly ordered
    expected = sum(r.score for r in ordered)
    land = run_landscape(store, "tertiary").landscape
    included = sorted((p for p in land.papers if p.included), key=lambda p: p.engine_rank)
    take = max(round(expected), land.settings["min_discussed"])
    assert [p.engine_rank for p in included] == [r.rank for r in ordered[:take]]  # the head of the engine's order
    assert land.settings["expected_includes"] == pytest.approx(expected, abs=1e-4)
    assert all(p.exclusion_reason.startswith("not among the likely includes") for p in land.papers if not p.included)
    draft = run_related_work(store, "tertiary", out_dir=tmp_path / "draft")
    first = draft.draft.sections[0].paragraphs[0].sentences[0].text
    assert "likely includes" in first and "screening engine ranks highest" in first
    # a label moves a paper in: the person's include is discussed whatever its rank
    last = ordered[-1]
    runner = CliRunner()
    assert runner.invoke(main, ["label", "tertiary", f"id:{last.paper_id}", "include"]).exit_code == 0
    rank_project(store, "tertiary")
    after = run_landscape(store, "tertiary").landscape
    assert after.paper(last.paper_id).included
    assert sum(p.included for p in after.papers) >= len(included)


def test_each_theme_is_one_paragraph_of_prose_not_a_template_per_paper(project, tmp_path):
    store = project
    run_landscape(store, "tertiary")
    draft = run_related_work(store, "tertiary", out_dir=tmp_path / "draft")
    assert draft.valid, draft.report.issues
    tax = run_landscape(store, "tertiary").landscape.taxonomy
    leaves = {n.id for n in tax.nodes if not n.children and n.id not in (COMPETITORS_ID, GAPS_ID)
              and n.parent is not None}
    for section in draft.draft.sections:
        if section.node_id in leaves or section.node_id in (COMPETITORS_ID, GAPS_ID):
            assert len(section.paragraphs) == 1, section.title
        for paragraph in section.paragraphs:
            openings = [re.sub(r"\[@[^\]]*\]|“[^”]*”", "", s.text).split(",")[0][:40] for s in paragraph.sentences]
            assert len(openings) == len(set(openings)), openings  # no sentence frame repeated in a paragraph
            assert sum("reports that" in s.text for s in paragraph.sentences) <= 1
    corpus_keys = {p.key for p in load_corpus(store, "tertiary").papers}
    assert {b.key for b in draft.draft.bib} <= corpus_keys


def test_every_exported_paper_says_why_and_the_labelled_include_is_named(project):
    store = project
    frame = scores_dataframe(store, "tertiary")
    assert frame["why"].str.len().gt(0).all()
    slr = frame[frame["source_id"] == "r1"].iloc[0]  # "Systematic literature reviews of ...": names the concept
    assert "systematic literature reviews" in slr["why"]
    include = frame[frame["source_id"] == "r0"].iloc[0]
    assert CliRunner().invoke(main, ["label", "tertiary", f"id:{include.paper_id}", "include"]).exit_code == 0
    after = scores_dataframe(store, "tertiary")
    other = after[after["source_id"] == "r3"].iloc[0]
    assert f"nearest labelled include: paper {include.paper_id}" in other["why"]
