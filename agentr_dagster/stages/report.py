"""One self-contained HTML report of a project: summary, plots, tables, the related-work draft with its
bibliography and evidence, cost and the lifecycle timeline. No scripts, no fonts, no external references:
plots are inline PNG data URIs and links are in-page anchors only, so it opens offline and fetches nothing.
The page is a Jinja2 template (templates/report.html.j2) with autoescape on: this module builds only the data it
shows, as plain text, and never writes HTML itself."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from agentr_dagster.domain.atomic import write_atomically
from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.prisma import PrismaCounts
from agentr_dagster.stages.intent import current_intent
from agentr_dagster.stages.synthesis import (
    DRAFT_STAGE,
    LANDSCAPE_STAGE,
    current_draft,
    run_landscape,
    run_related_work,
)
from agentr_dagster.store import ArtifactRow, DomainStore, FailureRow, ProjectRow, StatusRow, TransitionRow, UsageRow
from agentr_dagster.synthesis import plots
from agentr_dagster.synthesis.draft import md_unescape, to_bibtex, to_markdown
from agentr_dagster.synthesis.landscape import CONTRIBUTION_LABELS
from agentr_dagster.synthesis.models import Draft, Landscape, PaperSummary
from agentr_dagster.synthesis.validate import ValidationReport, validate_markdown

REPORT_FILE = "report.html"  # under results/<slug>/: written by the related_work asset and `agentr report`
MAX_PAPER_ROWS = 500  # the full table is in the exports; the report stays light on 10k-paper projects
MAX_EVIDENCE_KEYS = 12
MAX_ROUTED_KEYS = 40  # per taxonomy leaf; the rest are counted
MAX_TIMELINE_ROWS = 200
MAX_FAILURE_ROWS = 100
DRAFT_PARAGRAPHS_SHOWN = 1  # per draft section; the rest are one click away (all of it: related_work.md)
DRAFT_SECTIONS_SHOWN = 6  # the draft's first sections; the others one click away


_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_MD_INLINE = [(re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # a link: its text
              (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"), (re.compile(r"(?<![\w*])[*_](\S.*?)[*_](?![\w*])"), r"\1"),
              (re.compile(r"`([^`]+)`"), r"\1")]


def abstract_blocks(text: str) -> list[tuple[str, str]]:
    """The abstract (often Markdown: a ``# Title`` line, emphasis) as plain text blocks: ("h", a heading) and
    ("p", a paragraph of its lines joined), so the page shows what the researcher wrote, not its markup."""
    blocks: list[tuple[str, str]] = []
    lines: list[str] = []

    def flush() -> None:
        if lines:
            blocks.append(("p", _plain(" ".join(lines))))
            lines.clear()

    for line in text.splitlines():
        heading = _MD_HEADING.match(line)
        if heading:
            flush()
            blocks.append(("h", _plain(heading.group(1))))
        elif not line.strip():
            flush()
        else:
            lines.append(line.strip())
    flush()
    return [(kind, value) for kind, value in blocks if value]


def _plain(text: str) -> str:
    for pattern, repl in _MD_INLINE:
        text = pattern.sub(repl, text)
    return text


def _anchor(key: str) -> str:
    return "ref-" + re.sub(r"[^A-Za-z0-9_-]", "_", key)


_CITE_RE = re.compile(r"(?<!\\)\[@([^\]]*)\]")


def sentence_parts(text: str, known: set[str]) -> list[tuple[str, object]]:
    """Our Markdown sentence as ("text", plain text) and ("cites", [(key, anchor or None when unknown)]) parts,
    so the page links each citation to the bibliography."""
    parts: list[tuple[str, object]] = []
    last = 0
    for match in _CITE_RE.finditer(text):
        parts.append(("text", md_unescape(text[last : match.start()])))
        keys = [k for k in (k.strip().lstrip("@") for k in match.group(1).split(";")) if k]
        parts.append(("cites", [(key, _anchor(key) if key in known else None) for key in keys]))
        last = match.end()
    parts.append(("text", md_unescape(text[last:])))
    return parts


def _money(value) -> str:
    return f"{Decimal(str(value)):.6f}".rstrip("0").rstrip(".") if value is not None else ""


def ensure_synthesis(store: DomainStore, slug: str) -> tuple[Landscape, Draft, list[str]]:
    """The stored landscape and draft, built (offline, no LLM call) when missing or stale; notes say which."""
    notes = []
    landscape = run_landscape(store, slug, record_reuse=False)
    if not landscape.reused:
        notes.append("the research landscape was (re)built for this report")
    draft = current_draft(store, slug)
    artifact = store.results.latest_artifact(slug, DRAFT_STAGE)
    landscape_artifact = store.results.latest_artifact(slug, LANDSCAPE_STAGE)
    assert landscape_artifact is not None, "run_landscape stored (or reused) it above"
    if draft is None or artifact is None or artifact.created_at < landscape_artifact.created_at:
        draft = run_related_work(store, slug).draft
        notes.append("the related-work draft was written offline (extractive) for this report")
    return landscape.landscape, draft, notes


@dataclass
class ReportInputs:
    """Everything the report shows, read (and built when missing) before any HTML is written."""

    slug: str
    title: str
    stamp: str
    project: ProjectRow
    intent: ResearchIntent
    landscape: Landscape
    draft: Draft
    draft_artifact: ArtifactRow | None
    notes: list[str]  # what ensure_synthesis had to (re)build for this report
    check: ValidationReport  # the deterministic validator on the draft's Markdown
    transitions: list[TransitionRow]
    usage: list[UsageRow]
    status: list[StatusRow]
    failures: list[FailureRow]
    prisma: PrismaCounts = field(default_factory=PrismaCounts)
    searches: list = field(default_factory=list)  # store.searches rows (SearchRow)
    updates: list[dict] = field(default_factory=list)  # living-review updates, newest first
    latest_update: list[dict] = field(default_factory=list)  # the newest update's papers, best first
    p_include: dict[int, float] = field(default_factory=dict)  # the relevance asset's calibrated P(include)
    estimate: dict | None = None  # the relevance asset's count of includes (estimate, low, high, found, method)
    excluded: int = 0  # papers the person labelled exclude: left out of the synthesis

    @property
    def heuristic(self) -> bool:
        """The scores come from the offline backend: C1, C2, gaps and similarity are heuristics."""
        return self.landscape.backend == "offline"

    @property
    def by_id(self) -> dict[int, PaperSummary]:
        return {p.paper_id: p for p in self.landscape.papers}


def build_report(store: DomainStore, slug: str, *, now: datetime | None = None) -> str:
    """The report as one HTML string; ``now`` fixes the "generated" stamp (tests)."""
    return _render(read_report_inputs(store, slug, now=now))


def write_report(store: DomainStore, slug: str, out: Path | None = None) -> Path:
    """Build the report and write it (``results/<slug>/report.html`` by default, atomically); returns its path."""
    from agentr_dagster.settings import results_dir

    page = build_report(store, slug)
    path = out or results_dir(slug) / REPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, lambda tmp: tmp.write_text(page, encoding="utf-8"))


def read_report_inputs(store: DomainStore, slug: str, *, now: datetime | None = None) -> ReportInputs:
    project = store.projects.get_project(slug)
    intent, _ = current_intent(store, slug)
    landscape, draft, notes = ensure_synthesis(store, slug)  # may write: read everything else after it
    scopes = {p.id: set(p.scope) for p in draft.paragraphs()}
    estimate = _relevance_estimate(store, slug)
    return ReportInputs(
        p_include={row.paper_id: row.score for row in store.relevance.for_project(slug)},
        estimate=estimate,
        excluded=sum(1 for row in store.labels.list_labels(slug) if row.label == "exclude"),
        slug=slug,
        title=project.title or slug,
        stamp=(now or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC"),
        project=project,
        intent=intent,
        landscape=landscape,
        draft=draft,
        draft_artifact=store.results.latest_artifact(slug, DRAFT_STAGE),
        notes=notes,
        check=validate_markdown(to_markdown(draft), to_bibtex(draft.bib), scopes),
        transitions=store.lifecycle.transitions(slug),
        usage=store.ledger.usage(slug),
        status=store.lifecycle.status(slug),
        failures=store.lifecycle.failures(slug),
        **_search_inputs(store, slug),
    )


def _search_inputs(store: DomainStore, slug: str) -> dict:
    from agentr_dagster.stages.living import update_digest, update_history
    from agentr_dagster.stages.prisma import prisma_counts

    updates = update_history(store, slug)
    latest = update_digest(store, slug, updates[0]["update"]).head(20).to_dict("records") if updates else []
    return {"prisma": prisma_counts(store, slug), "searches": store.searches.searches(slug), "updates": updates,
            "latest_update": latest}


# -- the page: agentr_dagster/stages/templates/report.html.j2 (autoescaped); below only the data it shows

NAV = [("summary", "Summary"), ("plots", "Plots"), ("competitors", "Competitors"), ("supporting", "Supporting"),
       ("gaps", "Gaps"), ("taxonomy", "Taxonomy"), ("draft", "Draft"), ("papers", "Papers"), ("searches", "Searches"),
       ("cost", "Cost"), ("lifecycle", "Lifecycle"), ("evidence", "Evidence")]
# None renders as an empty cell (a missing year, detail or paper id), never as the word "None"
_PAGE = Environment(loader=PackageLoader("agentr_dagster.stages", "templates"), autoescape=True,
                    undefined=StrictUndefined, finalize=lambda v: "" if v is None else v,
                    keep_trailing_newline=True).get_template("report.html.j2")


def _render(r: ReportInputs) -> str:
    landscape, by_id = r.landscape, r.by_id
    return _PAGE.render(
        nav=NAV, title=r.title, slug=r.slug, stamp=r.stamp, backend=landscape.backend, model=landscape.model,
        heuristic=r.heuristic, cards=_summary_cards(r), check=r.check, problems=landscape.structure_problems,
        check_counts=", ".join(f"{k}: {n}" for k, n in r.check.counts().items()),
        abstract=abstract_blocks(r.project.abstract),
        intent=_intent_rows(r.intent), notes=r.notes, figures=_figures(landscape, r.transitions),
        competitors=[[("n", c.rank), ("key", c.key), ("", by_id[c.paper_id].title), ("n", f"{c.c1:.1f}"),
                      ("n", f"{c.similarity:.2f}"), ("", "/".join(c.overlap[f][0] for f in plots.FACETS)),
                      ("long", c.justification), ("code", c.claim_id)] for c in landscape.competitors],
        supporting=[{"label": g.label.capitalize(), "claim_id": g.claim_id,
                     "rows": [[("key", s.key), ("", by_id[s.paper_id].title), ("n", f"{s.c2:.1f}"),
                               ("", "; ".join(s.relevance_areas))] for s in g.papers]} for g in landscape.supporting],
        gaps=[[("code", g.id), ("", g.representative), ("n", len(g.papers)), ("", ", ".join(g.key_phrases)),
               ("n", f"{len(g.statements)} ({len({s.text for s in g.statements})} distinct)")]
              for g in landscape.gap_clusters],
        taxonomy=_taxonomy_node(landscape, landscape.taxonomy.root.id, by_id),
        draft_shown=DRAFT_PARAGRAPHS_SHOWN, draft_sections_shown=DRAFT_SECTIONS_SHOWN,
        **_draft_data(r.draft, r.draft_artifact),
        **_papers_data(landscape, r.p_include), **_searches_data(r),
        cost=_cost_data(r.usage), **_lifecycle_data(r.status, r.transitions, r.failures),
        evidence=_evidence_rows(landscape),
    )


def _total(values) -> Decimal:
    return sum((Decimal(str(v)) for v in values), Decimal(0))


def _timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _figure(png: bytes, alt: str, caption: str, wide: bool = False, more: bool = False) -> dict:
    """A figure of the page (``more``: behind a click, when a section lists the same thing)."""
    return {"src": plots.data_uri(png), "alt": alt, "caption": caption, "wide": wide, "more": more}


# -- summary

def _relevance_estimate(store: DomainStore, slug: str) -> dict | None:
    """The count of includes of the current ranking (the relevance asset's), or None before it ran."""
    from agentr_dagster.stages.relevance import ESTIMATE_STAGE

    rows = store.relevance.for_project(slug)
    artifact = store.results.latest_artifact(slug, ESTIMATE_STAGE)
    if not rows or artifact is None or artifact.input_hash != rows[0].input_hash:
        return None
    return dict(artifact.payload)


def _summary_cards(r: ReportInputs) -> list[tuple]:
    landscape, settings = r.landscape, r.landscape.settings
    # offline, C1/C2 are heuristics: the counts say "above a heuristic threshold", never "direct competitors"
    tag = " heuristic" if r.heuristic else ""
    c1 = f"{settings.get('c1_threshold', 5):g}"
    c2 = f"{settings.get('c2_threshold', 5):g}"
    competitor_text = (f"above the offline C1 ≥ {c1} heuristic (not a finding)" if r.heuristic
                       else f"direct competitors (LLM C1 ≥ {c1})")
    est = r.estimate
    return [
        # what the synthesis covers, not what a run scored (a re-run reuses every unchanged score)
        (landscape.n_papers, "papers in the synthesis (each with a current score"
         + (f"; {r.excluded} you labelled exclude left out)" if r.excluded else ")")),
        *([(f"{est['estimate']:.0f} ({est['low']:.0f}–{est['high']:.0f})",
            "includes expected (calibrated probability of inclusion; likely range)")] if est else []),
        (sum(1 for p in landscape.papers if p.included), f"discussed (C1/C2{tag} floor or your include)"),
        (len(landscape.competitors), competitor_text),
        (sum(len(g.papers) for g in landscape.supporting), f"supporting (C2{tag} ≥ {c2})"),
        (len(landscape.gap_clusters), "recurring gaps" + (" (heuristic)" if r.heuristic else "")),
        (sum(1 for n in landscape.taxonomy.nodes if n.parent is not None), "taxonomy sections"),
        (len(r.draft.bib), "papers cited in the draft"),
        (len(r.usage), "LLM calls"),
        (_money(_total(u.credits for u in r.usage)) or "0", "credits"),
    ]


def _intent_rows(intent: ResearchIntent) -> list[tuple[str, str]]:
    return [("Problem", intent.problem_statement), ("Methodologies", "; ".join(intent.methodologies)),
            ("Domains", "; ".join(intent.application_domains)),
            ("Constraints", "; ".join(intent.constraints) or "—"),
            ("Contribution types", "; ".join(c.value for c in intent.contribution_types)),
            ("Seed keywords", "; ".join(intent.seed_keywords))]


# -- plots and the taxonomy

def _figures(landscape: Landscape, transitions: list[TransitionRow]) -> list[dict]:
    figures = plots.landscape_plots(landscape)
    h = " (offline heuristics, not judgements)" if landscape.backend == "offline" else ""
    return [
        _figure(figures["c1_vs_c2"], "C1 vs C2 scatter", "Direct-competitor (C1) against supporting-work (C2) "
                f"scores{h}; dashed lines are the thresholds."),
        _figure(figures["similarity"], "similarity histogram", f"Semantic similarity of every scored paper{h}."),
        _figure(figures["overlap"], "overlap heat map", f"Per-facet overlap of the most relevant papers{h}."),
        _figure(figures["gaps"], "gap clusters", f"Recurring gaps: clusters of the per-paper research gaps{h}."),
        _figure(figures["taxonomy"], "taxonomy", "The taxonomy; counts are papers routed to each subtree.", wide=True,
                more=True),
        _figure(plots.timeline(transitions), "lifecycle timeline", "Stage-level state changes over time.", wide=True,
                more=True),
    ]


def _taxonomy_node(landscape: Landscape, node_id: str, by_id: dict[int, PaperSummary]) -> dict:
    """One node and its children; a leaf lists the papers routed to it (``routed``), the first MAX_ROUTED_KEYS."""
    node = landscape.taxonomy.node(node_id)
    routed = None
    if node.papers and not node.children:
        hidden = len(node.papers) - MAX_ROUTED_KEYS
        routed = (", ".join(by_id[i].key for i in node.papers[:MAX_ROUTED_KEYS])
                  + (f" and {hidden} more" if hidden > 0 else ""))
    return {"label": node.label, "kind": node.kind, "count": len(landscape.taxonomy.subtree_papers(node_id)),
            "phrases": ", ".join(node.key_phrases), "routed": routed,
            "children": [_taxonomy_node(landscape, child, by_id) for child in node.children]}


# -- the related-work draft and its bibliography

def _draft_data(draft: Draft, draft_artifact: ArtifactRow | None) -> dict:
    origin_counts: dict[str, int] = defaultdict(int)
    for paragraph in draft.paragraphs():
        origin_counts[paragraph.origin] += 1
    writer = (draft_artifact.payload.get("writer") if draft_artifact is not None else None) or "offline"
    known = {b.key for b in draft.bib}
    sections = [{"level": min(6, section.level + 2), "title": section.title, "kind": section.kind,
                 "paragraphs": [[{"id": s.id, "parts": sentence_parts(s.text, known)} for s in paragraph.sentences]
                                for paragraph in section.paragraphs]} for section in draft.sections]
    bibliography = []
    for entry in draft.bib:
        f = entry.fields
        bits = [f.get("author"), f.get("title"), f.get("journal"), f.get("year"),
                f"doi:{f['doi']}" if f.get("doi") else None]
        bibliography.append({"anchor": _anchor(entry.key), "key": entry.key, "text": ". ".join(b for b in bits if b)})
    return {"writer": writer.split(" at ")[0],  # the endpoint's URL stays in the artifact; the page names no address
            "origins": ", ".join(f"{n} {k}" for k, n in sorted(origin_counts.items())),
            "draft": sections, "bibliography": bibliography}


# -- every scored paper

def _papers_data(landscape: Landscape, p_include: dict[int, float]) -> dict:
    # by the calibrated probability of inclusion (the export's relevance), the C1/C2/similarity mix breaking ties
    ranked = sorted(landscape.papers, key=lambda p: (-p_include.get(p.paper_id, -1.0), -p.relevance, p.paper_id))
    rows = [[("key", p.key), ("", p.title), ("n", p.year or ""),
             ("n", f"{p_include[p.paper_id]:.4f}" if p.paper_id in p_include else ""), ("n", f"{p.c1:.1f}"),
             ("n", f"{p.c2:.1f}"), ("", CONTRIBUTION_LABELS[p.contribution_type]), ("n", f"{p.similarity:.2f}"),
             ("", ", ".join(p.sections) if p.included else f"— {p.exclusion_reason}")]
            for p in ranked[:MAX_PAPER_ROWS]]
    return {"papers_total": len(ranked), "papers": rows}


# -- searches, PRISMA flow and living-review updates

def _number(value, fmt: str) -> str:
    """A digest cell: blank when missing (None, NaN, pd.NA: a paper not scored yet)."""
    import pandas as pd

    return "" if value is None or pd.isna(value) else fmt.format(int(value) if fmt == "{:d}" else value)


def _searches_data(r: ReportInputs) -> dict:
    by_source: dict[str, list] = defaultdict(list)
    for row in r.searches:
        by_source[row.source].append(row)
    return {
        "prisma": _figure(plots.prisma_flow(r.prisma), "PRISMA 2020 flow diagram", "PRISMA 2020 flow: records "
                          "identified per source and file (every row an importer read), duplicates and unusable rows "
                          "removed, records screened, excluded and included by your labels, not yet screened; beside "
                          "it, what the model scored (ranking orders the records, it includes none).", wide=True),
        "sources": [[("", source), ("n", len(rows)), ("n", sum(1 for x in rows if x.status == "failed")),
                     ("n", sum(x.hits for x in rows)), ("n", sum(x.new_papers for x in rows)),
                     ("", _timestamp(rows[-1].created_at))] for source, rows in sorted(by_source.items())],
        "updates": [[("", u["update"]), *(("n", u[k]) for k in ("searches", "failed", "hits", "new_papers"))]
                    for u in r.updates],
        "latest_update_name": r.updates[0]["update"] if r.updates else None,
        "latest_update": [[("n", p["rank"]), ("", p["title"]), ("n", _number(p["year"], "{:d}")),
                           ("n", _number(p["c1_score"], "{:.1f}")), ("n", _number(p["c2_score"], "{:.1f}")),
                           ("", p["found_by"])] for p in r.latest_update],
    }


# -- cost, lifecycle and evidence

def _cost_data(usage: list[UsageRow]) -> dict:
    by_stage: dict[tuple[str, str], list] = defaultdict(list)
    for u in usage:
        by_stage[(u.stage or "?", u.model)].append(u)
    rows = []
    for (stage, model), group in sorted(by_stage.items()):
        latencies = [u.latency_ms for u in group if u.latency_ms is not None]
        rows.append([("", stage), ("", model), ("n", len(group)), ("n", sum(u.input_tokens for u in group)),
                     ("n", sum(u.output_tokens for u in group)), ("n", _money(_total(u.cost_usd for u in group))),
                     ("n", _money(_total(u.credits for u in group))),
                     ("n", round(sum(latencies) / len(latencies)) if latencies else "")])
    return {"calls": len(usage), "usd": _money(_total(u.cost_usd for u in usage)) or "0",
            "credits": _money(_total(u.credits for u in usage)) or "0", "rows": rows}


def _lifecycle_data(status: list[StatusRow], transitions: list[TransitionRow], failures: list[FailureRow]) -> dict:
    stage_rows = [t for t in transitions if t.paper_id is None]  # per-paper rows would drown the timeline
    return {
        "status": [[("", row.stage), ("", row.state), ("", ", ".join(f"{k}: {v}" for k, v in
                                                                     sorted(row.paper_counts.items()))),
                    ("", row.detail), ("", _timestamp(row.updated_at) if row.updated_at else "")] for row in status],
        "timeline": [[("", _timestamp(t.created_at)), ("", t.stage), ("", t.state), ("", t.detail),
                      ("code", (t.run_id or "")[:8])] for t in stage_rows[-MAX_TIMELINE_ROWS:]],
        "per_paper_transitions": len(transitions) - len(stage_rows),
        "failures": [[("", _timestamp(f.created_at)), ("", f.stage), ("", f.failure_class), ("", f.paper_id),
                      ("", f.message[:300])] for f in failures[-MAX_FAILURE_ROWS:]],
    }


def _evidence_rows(landscape: Landscape) -> list[list[tuple]]:
    rows = []
    for claim in landscape.claims:
        keys = list(dict.fromkeys(ev.key for ev in claim.evidence))
        # research_gaps[3] and research_gaps[0] are one kind of field
        fields = sorted({re.sub(r"\[\d+\]", "[i]", f) for ev in claim.evidence for f in ev.fields})
        more = f" … +{len(keys) - MAX_EVIDENCE_KEYS}" if len(keys) > MAX_EVIDENCE_KEYS else ""
        rows.append([("code", claim.id), ("long", claim.text), ("key", ", ".join(keys[:MAX_EVIDENCE_KEYS]) + more),
                     ("code", ", ".join(fields))])
    return rows
