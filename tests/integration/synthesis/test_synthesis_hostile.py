"""Paper text never fails the main job (issue 20): hostile titles, abstracts and authors (reference markers,
citation commands, LaTeX/HTML/Markdown markup, Unicode, over-long tokens, empty abstracts) go through the whole
chain on a real Dagster instance and a real store; every artefact must parse and the draft must validate, so the
validator's verdict is about the draft's own citations only. An invalid draft degrades the asset, not the run."""

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
import pytest
from dagster import AssetCheckSeverity, DagsterInstance, materialize
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agentr_dagster.defs.assets import project_assets, synthesis_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource
from agentr_dagster.stages import synthesis as synthesis_stage
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.report import build_report
from agentr_dagster.stages.synthesis import DRAFT_STAGE, stored_validation
from agentr_dagster.synthesis.validate import parse_markdown, validate_latex, validate_markdown
from tests.support import DEMO
from tests.support.hostile_text import HOSTILE_TEXT

ABSTRACT = (DEMO / "abstract.md").read_text()
DEMO_ROWS = list(csv.DictReader((DEMO / "papers.csv").open(encoding="utf-8")))

WORDS = ("software", "review", "requirements", "evidence", "model", "effort", "estimation", "systematic", "study",
         "quality", "testing", "data", "analysis", "engineering", "literature", "cost", "reuse", "metrics")
TEX_ALLOWED = {"documentclass", "usepackage", "begin", "end", "section", "subsection", "subsubsection", "paragraph",
               "label", "cite", "bibliographystyle", "bibliography", "textbackslash", "textasciitilde",
               "textasciicircum", "ldots", "textless", "textgreater", "textbar", "ensuremath", "textsuperscript",
               "noindent", "textbf"}


# ------------------------------------------------------------------------------------------------ strategies

@st.composite
def hostile_text(draw, base: str, max_inserts: int = 6) -> str:
    """``base`` with hostile fragments inserted at word boundaries."""
    words = base.split(" ")
    for _ in range(draw(st.integers(0, max_inserts))):
        at = draw(st.integers(0, len(words)))
        fragment = draw(st.sampled_from(HOSTILE_TEXT) | st.text(min_size=1, max_size=12))
        words.insert(at, fragment)
    return " ".join(words)


@st.composite
def hostile_papers(draw) -> list[dict]:
    rows = []
    for i, demo in enumerate(DEMO_ROWS[:8]):
        title = draw(hostile_text(demo["title"], 3))
        abstract = draw(st.sampled_from(["", "   "]) if draw(st.integers(0, 7)) == 0 else hostile_text(
            # A reference marker after the first sentence, as copied from the paper, in most abstracts.
            re.sub(r"\. ", " [1]. ", demo["abstract"], count=draw(st.integers(0, 1))), 8))
        authors = "; ".join(draw(st.lists(st.sampled_from(
            ["Smith, J.", "Müller, Ä.", "O'Brien, P. {Jr}", "\\\"Oe", "李, 明", "<b>Doe</b>, J.", "van_der Berg, K.",
             "TODO", "@anon", "[1]"]), max_size=3)))
        rows.append({"record_id": str(i + 1), "title": title or f"{WORDS[i]} paper", "abstract": abstract,
                     "authors": authors, "year": demo["year"], "doi": demo["doi"]})
    # One paper that is nothing but hostile text.
    junk = draw(st.lists(st.sampled_from(HOSTILE_TEXT) | st.sampled_from(WORDS), min_size=1, max_size=40))
    rows.append({"record_id": "99", "title": " ".join(junk[:8]), "abstract": " ".join(junk), "authors": "",
                 "year": "2021", "doi": ""})
    return rows


def write_csv(rows: list[dict], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8", errors="surrogatepass") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        # The importer rightly refuses a file with NUL bytes as binary; every other character is kept.
        writer.writerows([{k: v.encode("utf-8", "replace").decode("utf-8").replace("\x00", " ") for k, v in r.items()}
                          for r in rows])
    return path


# ------------------------------------------------------------------------------------------------ artefact checks

def check_markdown(md: str, n_sections: int) -> None:
    assert md.startswith("---\n")
    tokens = MarkdownIt("commonmark").parse(md.split("\n---\n", 1)[1])  # without the YAML front matter
    inline = [c for t in tokens if t.type == "inline" for c in (t.children or [])]
    kinds = {t.type for t in tokens} | {c.type for c in inline}
    # Paper text adds no heading, emphasis, link, code, image or HTML of its own.
    assert sum(t.type == "heading_open" for t in tokens) == n_sections
    assert not kinds & {"em_open", "strong_open", "link_open", "code_inline", "image", "html_inline", "code_block",
                        "fence", "bullet_list_open", "ordered_list_open", "blockquote_open", "hr"}, kinds
    for t in tokens:
        if t.type == "html_block":
            assert re.fullmatch(r"(?:<!--(?:(?!-->).)*-->\s*)+", t.content, re.S), t.content
    assert len(parse_markdown(md)) == n_sections


def check_latex(tex: str) -> None:
    """A small tokenizer: braces balance, every command is one we emit, no live special character in the body,
    and every character is one pdflatex can typeset with inputenc utf8 + T1."""
    depth = 0
    for n, line in enumerate(tex.splitlines(), start=1):
        if line.startswith("%"):
            continue
        # Arguments that are names, not text (keys, labels, packages) are checked apart.
        names = r"\\(?:label|cite|bibliography|bibliographystyle|usepackage|documentclass|begin|end)(?:\[\w*\])?\{"
        for arg in re.findall(names + r"([^{}]*)\}", line):
            assert re.fullmatch(r"[\w:,.-]*", arg), (n, arg)
        line = re.sub(names + r"[^{}]*\}", "", line)
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "\\":
                name = re.match(r"[A-Za-z]+|.", line[i + 1:])
                assert name, (n, line)
                word = name.group(0)
                assert not word.isalpha() or word in TEX_ALLOWED or word in GREEK, (n, word, line)
                i += 1 + len(word)
                continue
            assert ch not in "$&#^_%", (n, ch, line)
            assert ord(ch) < 0x7F or 0xA1 <= ord(ch) <= 0x17F, (n, ch, line)
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, (n, line)
            i += 1
    assert depth == 0


GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "kappa", "lambda", "mu", "nu", "xi",
         "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Pi", "Sigma",
         "Phi", "Psi", "Omega", "leq", "geq", "neq", "approx", "pm", "times", "rightarrow", "leftarrow", "infty",
         "sum", "surd", "in", "cdot"}


def check_bibtex(bib: str, keys: list[str]) -> None:
    library = bibtexparser.parse_string(bib)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    assert [e.key for e in library.entries] == keys
    for entry in library.entries:
        for field in entry.fields:
            value = str(field.value)
            assert value.count("{") == value.count("}") and "\n" not in value, (field.key, value)


class _Tags(HTMLParser):
    VOID = {"img", "br", "meta", "hr", "input", "link", "source", "wbr", "col", "area", "base", "embed", "track"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.seen: set[str] = set()
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.seen.add(tag)
        if any(name.startswith("on") for name, _ in attrs):
            self.bad.append(f"event handler on <{tag}>")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.bad.append(f"</{tag}> closes <{self.stack[-1] if self.stack else '-'}>")
        else:
            self.stack.pop()


def check_html(page: str) -> None:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert not parser.bad and not parser.stack, (parser.bad[:5], parser.stack[-5:])
    assert not parser.seen & {"script", "iframe", "b_", "blink"}, parser.seen


# ------------------------------------------------------------------------------------------------ the chain

def run_chain(store, slug: str, rows: list[dict], tmp: Path, instance: DagsterInstance):
    add_project(store, slug, ABSTRACT)
    add_papers_file(store, slug, write_csv(rows, tmp / f"{slug}.csv"))
    instance.add_dynamic_partitions("projects", [slug])
    resources = {"store": StoreResource(database_url=store.url), "llm": LLMResource(), "sources": SourcesResource()}
    return materialize([*project_assets, *synthesis_assets], partition_key=slug, instance=instance,
                       resources=resources, raise_on_error=False)


def check_evaluations(result) -> dict:
    return {e.event_specific_data.check_name: e.event_specific_data
            for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}


def assert_sound_outputs(store, slug: str, home: Path, result) -> None:
    assert result.success, [e.message for e in result.all_events if e.is_step_failure]
    verdict = stored_validation(store, slug)
    assert verdict is not None and verdict["ok"], (verdict["markdown"]["issues"] + verdict["latex"]["issues"])[:5]
    assert check_evaluations(result)["draft_validates"].passed
    out = home / "results" / slug
    md, tex, bib = ((out / f"related_work.{x}").read_text(encoding="utf-8") for x in ("md", "tex", "bib"))
    draft = synthesis_stage.current_draft(store, slug)
    bib_keys = [b.key for b in draft.bib]
    # The validator judged the draft's own citations: exactly the bibliography, nothing from the papers.
    report = validate_markdown(md, bib)
    assert report.ok and sorted(report.keys_cited) == sorted(bib_keys), report.issues[:5]
    assert validate_latex(tex, bib).ok
    check_markdown(md, len(draft.sections))
    check_latex(tex)
    check_bibtex(bib, bib_keys)
    json.loads((out / "related_work.evidence.json").read_text(encoding="utf-8"))
    assert (out / "scores.csv").exists()
    check_html(build_report(store, slug))


@pytest.fixture(scope="module")
def dagster_instance():
    with DagsterInstance.ephemeral() as instance:
        yield instance


_counter = iter(range(10_000))


# Few, whole-job examples; no shrinking (each example is a full run), the failing rows are printed as drawn.
@settings(max_examples=4, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(rows=hostile_papers())
def test_hostile_paper_text_never_fails_the_main_job(sqlite_store, tmp_path, monkeypatch, dagster_instance, rows):
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    slug = f"hostile-{next(_counter)}"
    result = run_chain(sqlite_store, slug, rows, tmp_path, dagster_instance)
    assert_sound_outputs(sqlite_store, slug, home, result)


def test_demo_with_reference_markers_completes_with_a_validating_draft(sqlite_store, tmp_path, monkeypatch):
    """The reproduction of issue 20: " [1]." after the first sentence of every demo abstract."""
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    rows = [dict(r, abstract=re.sub(r"\. ", " [1]. ", r["abstract"], count=1)) for r in DEMO_ROWS]
    assert sum("[1]" in r["abstract"] for r in rows) >= 35
    with DagsterInstance.ephemeral() as instance:
        result = run_chain(sqlite_store, "demo-refs", rows, tmp_path, instance)
    assert_sound_outputs(sqlite_store, "demo-refs", home, result)
    md = (home / "results" / "demo-refs" / "related_work.md").read_text()
    assert "[1]" not in md and "WARNING" not in md
    assert "reports that “" in md or "states that “" in md  # abstracts are still quoted


def test_an_invalid_draft_degrades_the_asset_not_the_run(sqlite_store, tmp_path, monkeypatch):
    """A draft the validator rejects (here: an uncited claim added to the planner's output) is stored as
    invalid, its check fails with ERROR severity, the files carry a warning and the scores are exported."""
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTR_HOME", str(home))
    plan = synthesis_stage.plan_draft

    def plan_with_a_defect(*args, **kwargs):
        draft = plan(*args, **kwargs)
        paragraph = draft.sections[-1].paragraphs[0]
        extra = paragraph.sentences[0].model_copy(update={"id": paragraph.id + ".s99", "cites": [], "evidence": [],
                                                          "text": "Several papers report that TODO."})
        paragraph.sentences.append(extra)
        return draft

    monkeypatch.setattr(synthesis_stage, "plan_draft", plan_with_a_defect)
    with DagsterInstance.ephemeral() as instance:
        result = run_chain(sqlite_store, "degraded", DEMO_ROWS[:12], tmp_path, instance)
    assert result.success
    materialised = {e.asset_key.path[-1] for e in result.get_asset_materialization_events()}
    assert {"score_exports", "related_work"} <= materialised
    check = check_evaluations(result)["draft_validates"]
    assert not check.passed and check.severity == AssetCheckSeverity.ERROR
    verdict = stored_validation(sqlite_store, "degraded")
    codes = {i["code"] for i in verdict["markdown"]["issues"]}
    assert not verdict["ok"] and {"placeholder", "uncited_claim"} <= codes
    artifact = sqlite_store.results.latest_artifact("degraded", DRAFT_STAGE)
    assert artifact.payload["valid"] is False
    out = home / "results" / "degraded"
    md, tex, bib = ((out / f"related_work.{x}").read_text() for x in ("md", "tex", "bib"))
    assert md.split("---\n", 2)[2].lstrip().startswith("> **WARNING: this draft FAILS")
    assert tex.startswith("% WARNING") and "\\noindent\\textbf{WARNING" in tex and bib.startswith("% WARNING")
    check_latex(tex)
    check_bibtex(bib, [b.key for b in synthesis_stage.current_draft(sqlite_store, "degraded").bib])
    assert (out / "scores.csv").exists()
    status = {row.stage: row for row in sqlite_store.lifecycle.status("degraded")}
    assert status[DRAFT_STAGE].state == "completed" and "invalid" in (status[DRAFT_STAGE].detail or "")
