"""Synthesis: landscape, taxonomy, the related-work draft and its validator, evidence pointers, the LLM redraft
loop against a real OpenAI-compatible server on loopback, the assets on a real Dagster instance, and the CLI."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, materialize

from agentr_dagster.cli import main
from agentr_dagster.defs.assets import project_assets, synthesis_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.relevance import rank_project
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.stages.synthesis import (
    DraftOutcome,
    LandscapeOutcome,
    field_value,
    load_corpus,
    run_landscape,
    run_related_work,
    trace,
)
from agentr_dagster.store import DomainStore, default_database_url
from agentr_dagster.synthesis.models import Route, Taxonomy
from agentr_dagster.synthesis.redraft import MAX_ROUNDS, GatewayParagraphWriter
from agentr_dagster.synthesis.taxonomy import check_taxonomy
from agentr_dagster.synthesis.validate import (
    validate_latex,
    validate_markdown,
)
from agentr_dagster.testing.responders import valid_responder
from tests.support import DEMO

ABSTRACT = (DEMO / "abstract.md").read_text()


@dataclass
class Demo:
    store: DomainStore
    slug: str
    home: Path
    land: LandscapeOutcome
    draft: DraftOutcome


def scored_project(store, slug: str, papers_csv: Path) -> None:
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, papers_csv)
    backend = OfflineStageBackend()
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    rank_project(store, slug)  # the screening engine's likely includes are what the synthesis discusses
    assert score_project(store, backend, slug).complete


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Demo:
    """The bundled demo (40 real papers) scored offline and synthesised once for the module."""
    home = tmp_path_factory.mktemp("synthesis-home")
    store = DomainStore(default_database_url(home))
    scored_project(store, "demo", DEMO / "papers.csv")
    land = run_landscape(store, "demo")
    draft = run_related_work(store, "demo", out_dir=home / "results" / "demo")
    return Demo(store, "demo", home, land, draft)


def small_csv(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").head(n).to_csv(path, index=False)
    return path


# ------------------------------------------------------------------------------------------------ the validator

def test_offline_draft_passes_its_validator(demo):
    d = demo.draft
    assert d.report.ok, d.report.issues
    assert d.latex_report.ok, d.latex_report.issues
    corpus_keys = {p.key for p in load_corpus(demo.store, demo.slug).papers}
    bib_keys = {b.key for b in d.draft.bib}
    assert bib_keys <= corpus_keys  # only the project's papers can be cited
    assert set(d.report.keys_cited) == bib_keys and not d.report.unused_keys
    # One section per taxonomy node, none empty, and the files on disk are what was validated.
    assert [s.node_id for s in d.draft.sections] == [n.id for n in demo.land.landscape.taxonomy.preorder()]
    assert all(s.paragraphs for s in d.draft.sections)
    assert d.report.sections == len(d.draft.sections) and d.report.claims > 20
    assert d.files["md"].read_text() == d.markdown and d.files["bib"].read_text() == d.bibtex
    assert validate_latex(d.files["tex"].read_text(), d.files["bib"].read_text()).ok


def _codes(report) -> set[str]:
    return {i.code for i in report.issues}


def test_validator_fails_on_an_invented_key(demo):
    md, tex, bib = demo.draft.markdown, demo.draft.latex, demo.draft.bibtex
    key = demo.draft.draft.bib[0].key
    broken = validate_markdown(md.replace(f"@{key}", "@smith2099invented", 1), bib)
    assert not broken.ok and _codes(broken) == {"unknown_key"}
    assert "smith2099invented" in str(broken.issues[0])
    assert _codes(validate_latex(tex.replace(key, "smith2099invented", 1), bib)) == {"unknown_key"}
    # The same break from the other side: the entry is removed from the bibliography.
    entry = re.search(r"@\w+\{" + re.escape(key) + r",.*?\n}\n", bib, re.S).group(0)
    missing = validate_markdown(md, bib.replace(entry, ""))
    assert "unknown_key" in _codes(missing) and all(key in i.message for i in missing.issues)
    doubled = validate_markdown(md, bib + "\n" + entry)
    assert _codes(doubled) == {"duplicate_key"}


@pytest.mark.parametrize("placeholder", [
    "TODO", "[citation needed]", "??", "{{cite}}", "[@]", "[12]", "<insert reference>", "(Author, Year)", "TBD",
])
def test_validator_fails_on_a_placeholder(demo, placeholder):
    md, bib = demo.draft.markdown, demo.draft.bibtex
    para = "<!-- para t1.p1 -->\n"
    assert para in md
    broken = validate_markdown(md.replace(para, para + f"Further work {placeholder} is listed here. ", 1), bib)
    assert "placeholder" in _codes(broken), broken.issues


def test_validator_fails_on_latex_placeholders(demo):
    tex, bib = demo.draft.latex, demo.draft.bibtex
    marker = "% para t1.p1\n"
    for text in ("\\todo{add the 2023 survey} ", "as shown in Section~?? ", "\\cite{} "):
        broken = validate_latex(tex.replace(marker, marker + text, 1), bib)
        assert "placeholder" in _codes(broken), (text, broken.issues)


def test_validator_fails_on_an_empty_section(demo):
    md, tex, bib = demo.draft.markdown, demo.draft.latex, demo.draft.bibtex
    broken = validate_markdown(md.replace("## Recurring gaps", "## Datasets\n\n## Recurring gaps", 1), bib)
    assert _codes(broken) == {"empty_section"} and "Datasets" in str(broken.issues[0])
    broken_tex = validate_latex(tex.replace("\\subsection{Recurring gaps}", "\\subsection{Datasets}\n\n"
                                            "\\subsection{Recurring gaps}", 1), bib)
    assert _codes(broken_tex) == {"empty_section"}
    only_comment = md.replace("## Recurring gaps", "## Datasets\n\n<!-- para x.p1 -->\n\n## Recurring gaps", 1)
    assert _codes(validate_markdown(only_comment, bib)) == {"empty_section"}


def test_validator_fails_on_an_uncited_claim(demo):
    md, tex, bib = demo.draft.markdown, demo.draft.latex, demo.draft.bibtex
    para = "<!-- para t1.p1 -->\n"
    claim = "Prior studies show that screening costs grow with the number of candidates."
    broken = validate_markdown(md.replace(para, para + claim + " ", 1), bib)
    assert _codes(broken) == {"uncited_claim"} and broken.issues[0].sentence == claim
    assert broken.issues[0].paragraph == "t1.p1"
    broken_tex = validate_latex(tex.replace("% para t1.p1\n", "% para t1.p1\n" + claim + " ", 1), bib)
    assert _codes(broken_tex) == {"uncited_claim"}
    # Removing the citations of a real sentence makes it an uncited claim too.
    sentence = next(s for p in demo.draft.draft.paragraphs() for s in p.sentences if s.claim and len(s.cites) == 1)
    stripped = sentence.text.replace(f" [@{sentence.cites[0]}]", "")
    assert _codes(validate_markdown(md.replace(sentence.text, stripped, 1), bib)) >= {"uncited_claim"}


# ------------------------------------------------------------------------------------------------ the landscape

def test_landscape_competitors_supporting_gaps_and_taxonomy(demo):
    land = demo.land.landscape
    results = {r.paper_id: r for r in demo.store.results.results_for_project(demo.slug)}
    c1t, c2t = land.settings["c1_threshold"], land.settings["c2_threshold"]
    scores = [c.c1 for c in land.competitors]
    assert scores == sorted(scores, reverse=True) and all(s >= c1t for s in scores) and land.competitors
    assert [c.rank for c in land.competitors] == list(range(1, len(scores) + 1))
    for group in land.supporting:
        for entry in group.papers:
            payload = results[entry.paper_id].payload["c2_supporting_work"]
            assert payload["contribution_type"] == group.contribution_type and payload["score"] >= c2t
    # Gap clusters: recurring first, every statement is the paper's own recorded gap.
    sizes = [len(g.papers) for g in land.gap_clusters]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 1
    for cluster in land.gap_clusters:
        for st in cluster.statements:
            assert results[st.paper_id].payload["research_gaps"][st.index] == st.text
        assert set(cluster.papers) == {st.paper_id for st in cluster.statements}
    # Taxonomy: sound, every discussed paper routed to a theme, excluded papers say why.
    assert land.structure_problems == []
    included = [p for p in land.papers if p.included]
    excluded = [p for p in land.papers if not p.included]
    assert excluded and all("not among the likely includes" in p.exclusion_reason and not p.sections
                            for p in excluded)
    assert all(any(s.startswith("t") for s in p.sections) for p in included)
    labels = [n.label for n in land.taxonomy.nodes]
    assert all(label.strip() for label in labels) and not any(label.startswith("Theme ") for label in labels)
    kinds = {n.kind for n in land.taxonomy.nodes}
    assert kinds == {"navigational", "analytical", "reflective"}


def test_every_claim_points_at_stored_evidence(demo):
    land, draft = demo.land.landscape, demo.draft.draft
    results = {r.paper_id: r for r in demo.store.results.results_for_project(demo.slug)}
    claims = list(land.claims)
    assert {c.kind for c in claims} >= {"competitor", "supporting", "gap", "taxonomy"}
    for claim in claims:
        assert claim.evidence, claim.id
        for ev in claim.evidence:
            assert ev.result_id == results[ev.paper_id].id
            for field, value in ev.fields.items():
                if not field.startswith("route"):
                    assert field_value(results[ev.paper_id].payload, field) == value, (claim.id, field)
    sentences = [s for p in draft.paragraphs() for s in p.sentences]
    assert len({s.id for s in sentences}) == len(sentences)
    for s in sentences:
        if s.claim:
            assert s.cites and s.evidence, s.id
            assert set(s.cites) <= {ev.key for ev in s.evidence}, s.id  # each cited paper has its evidence
        assert {ev.key for ev in s.evidence} <= set(s.cites), s.id  # and no sentence leans on an uncited paper
        for ev in s.evidence:
            assert ev.fields and ev.result_id == results[ev.paper_id].id


def test_taxonomy_check_catches_broken_structures(demo):
    land = demo.land.landscape
    included = [p.paper_id for p in land.papers if p.included]
    assert check_taxonomy(land.taxonomy, included) == []
    tax = land.taxonomy.model_dump()

    def broken(mutate) -> list[str]:
        copy = Taxonomy.model_validate(json.loads(json.dumps(tax)))
        mutate(copy)
        return check_taxonomy(copy, included)

    leaf = next(n for n in land.taxonomy.nodes if n.kind == "analytical" and n.id.startswith("t"))
    victim = leaf.papers[0]

    def unroute(t: Taxonomy) -> None:
        t.routes = [r for r in t.routes if r.paper_id != victim]
        for n in t.nodes:
            n.papers = [p for p in n.papers if p != victim]

    assert any("not routed" in p for p in broken(unroute))

    def cycle(t: Taxonomy) -> None:
        t.node(leaf.id).children.append(t.root.id)

    assert broken(cycle)

    def twins(t: Taxonomy) -> None:
        a, b = [t.node(c) for c in t.root.children[:2]]
        b.label = a.label

    assert any("sibling labels" in p for p in broken(twins))

    def empty_leaf(t: Taxonomy) -> None:
        t.node(leaf.id).papers = []
        t.routes = [r for r in t.routes if r.node != leaf.id]

    assert any("no papers" in p for p in broken(empty_leaf))

    def stranger(t: Taxonomy) -> None:
        t.routes.append(Route(paper_id=10**9, node=leaf.id, score=1.0, primary=True))
        t.node(leaf.id).papers.append(10**9)

    assert any("not an included paper" in p for p in broken(stranger))


# ------------------------------------------------------------------------------------------------ trace and CLI

def test_trace_and_check_from_the_cli(demo, monkeypatch):
    monkeypatch.setenv("AGENTR_HOME", str(demo.home))
    runner = CliRunner()
    out = runner.invoke(main, ["trace", demo.slug, "c1-01"])
    assert out.exit_code == 0, out.output
    top = demo.land.landscape.competitors[0]
    assert top.key in out.output and "c1_direct_competitor.score" in out.output and "current" in out.output
    sentence = next(s for p in demo.draft.draft.paragraphs() for s in p.sentences
                    if any(k.startswith("abstract.") for ev in s.evidence for k in ev.fields))
    out = runner.invoke(main, ["trace", demo.slug, sentence.id, "--json"])
    data = json.loads(out.output)
    assert data["claim_id"] == sentence.id and data["evidence"]
    assert any(v == "found in the abstract" for ev in data["evidence"] for v in ev["current"].values())
    missing = runner.invoke(main, ["trace", demo.slug, "gap-99"])
    assert missing.exit_code == 1 and "no claim" in missing.output
    listing = runner.invoke(main, ["trace", demo.slug])
    assert "gap-01" in listing.output and "c1-01" in listing.output

    ok = runner.invoke(main, ["related-work", "check", demo.slug])
    assert ok.exit_code == 0 and ok.output.count(": ok") == 2, ok.output
    md = demo.draft.files["md"]
    broken = md.with_name("broken.md")
    broken.write_text(md.read_text().replace(f"@{top.key}", "@nobody2024fake", 1))
    bad = runner.invoke(main, ["related-work", "check", "--md", str(broken), "--bib", str(demo.draft.files["bib"])])
    assert bad.exit_code == 1 and "nobody2024fake" in bad.output and "unknown_key" in bad.output


# ------------------------------------------------------------------------------------------------ Dagster

def test_assets_materialise_reuse_and_trace_rescoring(store, tmp_path, monkeypatch):
    from agentr_dagster.definitions import defs

    monkeypatch.setenv("AGENTR_HOME", str(tmp_path / "home"))
    job = defs.resolve_job_def("project_pipeline")
    assert {"research_landscape", "related_work"} <= {k.path[-1] for k in job.asset_layer.executable_asset_keys}
    slug = "synth-assets"
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, small_csv(tmp_path, 12))
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("projects", [slug])
    resources = {"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()}
    result = materialize([*project_assets, *synthesis_assets], partition_key=slug, instance=instance,
                         resources=resources, raise_on_error=False)
    assert result.success
    meta = {e.asset_key.path[-1]: {k: v.value for k, v in e.materialization.metadata.items()}
            for e in result.get_asset_materialization_events()}
    land, rw = meta["research_landscape"], meta["related_work"]
    for name in ("plot_c1_vs_c2", "plot_similarity", "plot_overlap", "plot_gaps", "plot_taxonomy"):
        assert land[name].startswith("![") and "(data:image/png;base64," in land[name]
    assert rw["papers_cited"] > 0 and rw["paragraphs_extractive"] == rw["paragraphs"]
    # offline, the landscape's counts and competitor table say first that C1/C2 are heuristics, not findings
    assert list(land)[0] == "judgements" and "heuristic" in land["judgements"]
    competitors_column = {c.name: c.description for c in land["top_competitors"].schema.columns}["C1"]
    assert "heuristic" in competitors_column
    results_dir = tmp_path / "home" / "results" / slug
    for name in ("related_work.md", "related_work.tex", "related_work.bib", "related_work.evidence.json"):
        assert (results_dir / name).stat().st_size > 0
    # the page a researcher reads: written at the end of the chain, linked from related_work and score_exports
    assert rw["report"] == meta["score_exports"]["report"] == str(results_dir / "report.html")
    assert rw["report_url"] == (results_dir / "report.html").resolve().as_uri()
    assert "PRISMA 2020 flow" in (results_dir / "report.html").read_text(encoding="utf-8")
    exports = meta["score_exports"]
    assert exports["plot_prisma"].startswith("![PRISMA 2020 flow diagram](data:image/png;base64,")
    assert exports["prisma_identified"] - exports["prisma_duplicates_removed"] - exports["prisma_unusable_removed"] \
        == exports["prisma_screened"] == 12
    checks = {e.event_specific_data.check_name: e.event_specific_data.passed
              for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}
    assert checks["taxonomy_structure"] and checks["draft_validates"]

    again = materialize([*project_assets, *synthesis_assets], partition_key=slug, instance=instance,
                        resources=resources, raise_on_error=False)
    assert again.success
    reused = {e.asset_key.path[-1]: e.materialization.metadata["reused"].value
              for e in again.get_asset_materialization_events() if "reused" in e.materialization.metadata}
    assert reused["research_landscape"] and reused["related_work"]

    # A paper re-scored after the synthesis: trace says so and shows the value now stored.
    claim = trace(store, slug, "c1-01")
    assert {ev.status for ev in claim.evidence} == {"current"}
    ev = claim.evidence[0]
    payload = json.loads(json.dumps(next(r.payload for r in store.results.results_for_project(slug)
                                         if r.paper_id == ev.paper_id)))
    payload["c1_direct_competitor"]["score"] = 1.0
    store.results.save_result(slug, ev.paper_id, "a-newer-score", payload, prompt_version="x", model="x", backend="x")
    after = trace(store, slug, "c1-01").evidence[0]
    assert after.status == "rescored" and after.current["c1_direct_competitor.score"] == 1.0


# ------------------------------------------------------------------------------------------------ LLM redraft

_KEYS_RE = re.compile(r"Citation keys you may use: (.*)")
_SECTION_RE = re.compile(r"Section: (.*) \((\w+) section\)")


def _user(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def _is_redraft_call(body: dict) -> bool:
    return "Citation keys you may use:" in _user(body)


def test_llm_redraft_is_scoped_bounded_and_charged(sqlite_store, tmp_path, scripted_server):  # noqa: F811
    store = sqlite_store
    slug = "redraft"
    scored_project(store, slug, small_csv(tmp_path, 16))
    run_landscape(store, slug)
    calls: list[tuple[str, bool]] = []  # (section, feedback given)

    def responder(body: dict) -> str:
        if not _is_redraft_call(body):
            return valid_responder(body)
        user = _user(body)
        section = _SECTION_RE.search(user).group(1)
        keys = [k.strip() for k in _KEYS_RE.search(user).group(1).split(",") if k.strip()]
        feedback = "failed validation" in user
        calls.append((section, feedback))
        if section == "Recurring gaps":  # always cites a paper that is not in the bibliography
            return json.dumps({"paragraph": f"Across the candidates, gaps recur [@{keys[0]}; @ghost2031paper]."})
        if section == "Closest competing work" and not feedback:  # an uncited claim, fixed when told
            return json.dumps({"paragraph": "Prior studies already automate screening. "
                                            f"The closest one is described in [@{keys[0]}]."})
        cites = "; ".join(f"@{k}" for k in keys[:3])
        return json.dumps({"paragraph": f"In {section.lower()}, these papers inform the planned work [{cites}]."})

    server = scripted_server(responder)
    store.ledger.set_pricing("scripted-model", Decimal("1.00"), Decimal("2.00"))
    store.ledger.ensure_account("default")
    gateway = OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, api_key="sk-test", model="scripted-model",
                                                  backoff_base_s=0.01), store)
    outcome = run_related_work(store, slug, writer=GatewayParagraphWriter(gateway), out_dir=tmp_path / "out")
    assert outcome.report.ok and outcome.latex_report.ok
    paragraphs = outcome.draft.paragraphs()
    by_section = {s.title: s for s in outcome.draft.sections}
    origins = {p.id: p.origin for p in paragraphs}
    gaps = [p.id for p in by_section["Recurring gaps"].paragraphs]
    competitors = [p.id for p in by_section["Closest competing work"].paragraphs]
    assert all(origins[p] == "extractive-fallback" for p in gaps)  # bounded: gave up, kept the valid version
    assert all(origins[p] == "llm-redrafted" for p in competitors)
    assert {origins[p] for p in origins if p not in gaps + competitors} == {"llm"}  # left alone
    # One call per paragraph, plus the re-drafts of the failing ones only (the competitor paragraphs fail once,
    # the gap paragraph fails every time until the round budget is spent).
    redrafts = [c for c in calls if c[1]]
    assert len(calls) == len(paragraphs) + len(redrafts)
    assert sum(1 for c in redrafts if c[0] == "Recurring gaps") == MAX_ROUNDS * len(gaps)
    assert {c[0] for c in redrafts} == {"Recurring gaps", "Closest competing work"}
    assert "ghost2031paper" not in outcome.markdown
    usage = [u for u in store.ledger.usage(slug) if u.stage == "related_work"]
    assert len(usage) == len(calls) and all(u.credits > 0 for u in usage)
    # Rewritten sentences still point at the evidence of the papers they cite.
    rewritten = next(p for p in paragraphs if p.origin == "llm")
    assert all(set(s.cites) <= {e.key for e in s.evidence} for s in rewritten.sentences)
    # Unchanged inputs: the stored draft is reused without a call.
    before = len(calls)
    again = run_related_work(store, slug, writer=GatewayParagraphWriter(gateway))
    assert again.reused and len(calls) == before


def test_llm_redraft_out_of_credits_keeps_the_extractive_draft(sqlite_store, tmp_path, scripted_server):  # noqa: F811
    store = sqlite_store
    slug = "no-credits"
    scored_project(store, slug, small_csv(tmp_path, 10))
    run_landscape(store, slug)
    server = scripted_server(lambda body: json.dumps({"paragraph": "unused"}))
    store.ledger.set_pricing("scripted-model", Decimal("100000"), Decimal("100000"))
    store.ledger.ensure_account("default")
    store.ledger.adjust("default", -store.ledger.balance("default"), note="test: empty the account")
    gateway = OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model="scripted-model"), store)
    stopped = []
    outcome = run_related_work(store, slug, writer=GatewayParagraphWriter(gateway), on_error=stopped.append)
    assert server.calls == 0 and len(stopped) == 1 and stopped[0].failure_class.value == "no_credits"
    assert outcome.report.ok and {p.origin for p in outcome.draft.paragraphs()} == {"extractive"}
    assert any(e["event"] == "stopped" for e in outcome.draft.redraft_log)
    assert store.ledger.balance("default") == 0
    # The cut-short rewrite is not reused: after a top-up the next run rewrites.
    store.ledger.set_pricing("scripted-model", Decimal("1"), Decimal("1"))
    store.ledger.grant("default", Decimal("100"))

    def cites_first_key(body: dict) -> str:
        key = _KEYS_RE.search(_user(body)).group(1).split(",")[0].strip()
        return json.dumps({"paragraph": f"These papers matter to the planned work [@{key}]."})

    server.responder = cites_first_key
    gateway = OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model="scripted-model"), store)
    topped = run_related_work(store, slug, writer=GatewayParagraphWriter(gateway))
    assert not topped.reused and topped.report.ok and server.calls == len(topped.draft.paragraphs())
    assert {p.origin for p in topped.draft.paragraphs()} == {"llm"}
