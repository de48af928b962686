"""One self-contained HTML report of a project: summary, plots, tables, the related-work draft with its
bibliography and evidence, cost and the lifecycle timeline. No scripts, no fonts, no external references:
plots are inline PNG data URIs and links are in-page anchors only, so it opens offline and fetches nothing."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

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

MAX_PAPER_ROWS = 500  # the full table is in the exports; the report stays light on 10k-paper projects
MAX_EVIDENCE_KEYS = 12
MAX_ROUTED_KEYS = 40  # per taxonomy leaf; the rest are counted
MAX_TIMELINE_ROWS = 200
MAX_FAILURE_ROWS = 100

CSS = """
:root { --ink:#1d2330; --muted:#5b6476; --line:#dde2ea; --accent:#2f5d9e; --bg:#f7f8fa; }
* { box-sizing: border-box; }
body { margin:0; font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); background: var(--bg); }
header { background: #22324d; color: #fff; padding: 22px 32px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 0; color: #c9d4e6; }
nav { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 32px;
      z-index: 2; font-size: 14px; }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
main { max-width: 1180px; margin: 0 auto; padding: 12px 32px 48px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 18px 22px; margin: 18px 0; }
h2 { margin-top: 0; font-size: 20px; } h3 { font-size: 16px; margin-bottom: 6px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 10px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; background: var(--bg); }
.card b { display: block; font-size: 22px; } .card span { color: var(--muted); font-size: 13px; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 14px; }
figure { margin: 0; } figure.wide { grid-column: 1 / -1; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: var(--bg); position: sticky; top: 37px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, .key { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.muted { color: var(--muted); } .ok { color: #2e7d32; } .bad { color: #b22222; }
.draft p { max-width: 820px; } .draft .s:hover { background: #fff6d6; }
.draft h3, .draft h4, .draft h5 { margin-bottom: 4px; } a.cite { color: var(--accent); text-decoration: none; }
.pill { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 11px; background: #e8eef8;
        color: #2f4a7a; margin-left: 6px; }
details { margin: 4px 0; } summary { cursor: pointer; color: var(--accent); }
ul.tax, ul.tax ul { list-style: none; padding-left: 18px; } ul.tax li { margin: 3px 0; }
.bib li { margin-bottom: 4px; }
"""


def e(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _anchor(key: str) -> str:
    return "ref-" + re.sub(r"[^A-Za-z0-9_-]", "_", key)


_CITE_RE = re.compile(r"(?<!\\)\[@([^\]]*)\]")


def sentence_html(text: str, known: set[str]) -> str:
    """Our Markdown sentence as HTML: escaped text, citations as in-page links to the bibliography."""
    out, last = [], 0
    for match in _CITE_RE.finditer(text):
        out.append(e(md_unescape(text[last : match.start()])))
        links = []
        for key in (k.strip().lstrip("@") for k in match.group(1).split(";")):
            if not key:
                continue
            links.append(f'<a class="cite" href="#{_anchor(key)}">{e(key)}</a>' if key in known
                         else f'<span class="bad">{e(key)}?</span>')
        out.append("[" + "; ".join(links) + "]")
        last = match.end()
    out.append(e(md_unescape(text[last:])))
    return "".join(out)


def _img(png: bytes, alt: str, caption: str, wide: bool = False) -> str:
    cls = ' class="wide"' if wide else ""
    return (f'<figure{cls}><img src="{plots.data_uri(png)}" alt="{e(alt)}">'
            f"<figcaption>{e(caption)}</figcaption></figure>")


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

    @property
    def heuristic(self) -> bool:
        """The scores come from the offline backend: C1, C2, gaps and similarity are heuristics."""
        return self.landscape.backend == "offline"

    @property
    def by_id(self) -> dict[int, PaperSummary]:
        return {p.paper_id: p for p in self.landscape.papers}


def build_report(store: DomainStore, slug: str, *, now: datetime | None = None) -> str:
    """The report as one HTML string; ``now`` fixes the "generated" stamp (tests)."""
    r = read_report_inputs(store, slug, now=now)
    by_id = r.by_id
    sections = [
        _summary_section(r),
        _plots_section(r.landscape, r.transitions),
        _competitors_section(r.landscape, by_id),
        _supporting_section(r.landscape, by_id),
        _gaps_section(r.landscape),
        _taxonomy_section(r.landscape, by_id),
        _draft_section(r.draft, r.draft_artifact, r.slug),
        _papers_section(r.landscape, r.p_include),
        _searches_section(r),
        _cost_section(r.usage),
        _lifecycle_section(r.status, r.transitions, r.failures),
        _evidence_section(r.landscape, r.slug),
    ]
    parts = _page_start(r) + [part for section in sections for part in section]
    return "\n".join(parts) + PAGE_END


def read_report_inputs(store: DomainStore, slug: str, *, now: datetime | None = None) -> ReportInputs:
    project = store.projects.get_project(slug)
    intent, _ = current_intent(store, slug)
    landscape, draft, notes = ensure_synthesis(store, slug)  # may write: read everything else after it
    scopes = {p.id: set(p.scope) for p in draft.paragraphs()}
    estimate = _relevance_estimate(store, slug)
    return ReportInputs(
        p_include={row.paper_id: row.score for row in store.relevance.for_project(slug)},
        estimate=estimate,
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


# -- small HTML pieces; every value goes through e() (html.escape) on its way in

PAGE_END = "</main></body></html>"
NAV = [("summary", "Summary"), ("plots", "Plots"), ("competitors", "Competitors"), ("supporting", "Supporting"),
       ("gaps", "Gaps"), ("taxonomy", "Taxonomy"), ("draft", "Draft"), ("papers", "Papers"), ("searches", "Searches"),
       ("cost", "Cost"),
       ("lifecycle", "Lifecycle"), ("evidence", "Evidence")]


def _header_row(*names: str) -> str:
    return "<tr>" + "".join(f"<th>{e(name)}</th>" for name in names) + "</tr>"


def _muted(text: str) -> str:
    return f'<p class="muted">{e(text)}</p>'


def _total(values) -> Decimal:
    return sum((Decimal(str(v)) for v in values), Decimal(0))


def _timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _page_start(r: ReportInputs) -> list[str]:
    """Head, page header and the in-page navigation; opens <main>, which PAGE_END closes."""
    landscape = r.landscape
    return [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{e(r.title)} · agentr report</title><style>{CSS}</style></head><body>",
        f"<header><h1>{e(r.title)}</h1><p>Project <code>{e(r.slug)}</code> · literature landscape and related-work "
        f"draft · generated {e(r.stamp)} · scores by {e(landscape.backend or '?')} ({e(landscape.model or '?')})</p>"
        "</header>",
        "<nav>" + "".join(f'<a href="#{a}">{e(t)}</a>' for a, t in NAV) + "</nav><main>",
    ]


# -- summary

def _summary_section(r: ReportInputs) -> list[str]:
    parts = ['<section id="summary"><h2>Summary</h2><div class="cards">', _summary_cards(r), _verdict_paragraph(r)]
    parts.append(f"<h3>Abstract</h3><p>{e(r.project.abstract)}</p><h3>Research intent</h3><table>")
    parts += _intent_rows(r.intent)
    parts.append("</table>")
    parts += [f'<p class="muted">Note: {e(note)}.</p>' for note in r.notes]
    if r.heuristic:
        parts.append('<p class="muted">Scores come from the offline backend: deterministic lexical statistics and '
                     "static embeddings, not a language model's reading. C1, C2, similarity and gaps below are "
                     "heuristics: their thresholds are filters, not findings (a paper above C1 ≥ 5 is not shown to "
                     "compete). Relevance (P(include)) is the screening engine's calibrated probability of "
                     "inclusion, the same number as in the score export.</p>")
    parts.append("</section>")
    return parts


def _relevance_estimate(store: DomainStore, slug: str) -> dict | None:
    """The count of includes of the current ranking (the relevance asset's), or None before it ran."""
    from agentr_dagster.stages.relevance import ESTIMATE_STAGE

    rows = store.relevance.for_project(slug)
    artifact = store.results.latest_artifact(slug, ESTIMATE_STAGE)
    if not rows or artifact is None or artifact.input_hash != rows[0].input_hash:
        return None
    return dict(artifact.payload)


def _summary_cards(r: ReportInputs) -> str:
    landscape, settings = r.landscape, r.landscape.settings
    # offline, C1/C2 are heuristics: the counts say "above a heuristic threshold", never "direct competitors"
    tag = " heuristic" if r.heuristic else ""
    c1 = f"{settings.get('c1_threshold', 5):g}"
    c2 = f"{settings.get('c2_threshold', 5):g}"
    competitor_text = (f"above the offline C1 ≥ {c1} heuristic (not a finding)" if r.heuristic
                       else f"direct competitors (LLM C1 ≥ {c1})")
    est = r.estimate
    cards = [
        (landscape.n_papers, "papers scored"),
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
    return "".join(f'<div class="card"><b>{e(v)}</b><span>{e(t)}</span></div>' for v, t in cards) + "</div>"


def _verdict_paragraph(r: ReportInputs) -> str:
    """The validator's verdict on the draft and the taxonomy's structural check, in one paragraph."""
    check, problems = r.check, r.landscape.structure_problems
    verdict = ('<span class="ok">passes</span>' if check.ok else
               f'<span class="bad">fails ({e(", ".join(f"{k}: {n}" for k, n in check.counts().items()))})</span>')
    structure = ('<span class="ok">sound</span>' if not problems else
                 '<span class="bad">' + e("; ".join(problems)) + "</span>")
    return (f"<p>The related-work draft {verdict} the deterministic validator: {check.citations} citations to "
            f"{len(check.keys_cited)} papers, all resolving to its bibliography; {check.claims} literature claims in "
            f"{check.sentences} sentences, each citing at least one paper. Taxonomy structural check: "
            + structure + ".</p>")


def _intent_rows(intent: ResearchIntent) -> list[str]:
    rows = (("Problem", intent.problem_statement), ("Methodologies", "; ".join(intent.methodologies)),
            ("Domains", "; ".join(intent.application_domains)),
            ("Constraints", "; ".join(intent.constraints) or "—"),
            ("Contribution types", "; ".join(c.value for c in intent.contribution_types)),
            ("Seed keywords", "; ".join(intent.seed_keywords)))
    return [f"<tr><th>{e(label)}</th><td>{e(value)}</td></tr>" for label, value in rows]


# -- plots

def _plots_section(landscape: Landscape, transitions: list[TransitionRow]) -> list[str]:
    figures = plots.landscape_plots(landscape)
    h = " (offline heuristics, not judgements)" if landscape.backend == "offline" else ""
    return [
        '<section id="plots"><h2>Plots</h2><div class="plots">',
        _img(figures["c1_vs_c2"], "C1 vs C2 scatter", "Direct-competitor (C1) against supporting-work (C2) "
             f"scores{h}; dashed lines are the thresholds."),
        _img(figures["similarity"], "similarity histogram", f"Semantic similarity of every scored paper{h}."),
        _img(figures["overlap"], "overlap heat map", f"Per-facet overlap of the most relevant papers{h}."),
        _img(figures["gaps"], "gap clusters", f"Recurring gaps: clusters of the per-paper research gaps{h}."),
        _img(figures["taxonomy"], "taxonomy", "The taxonomy; counts are papers routed to each subtree.", wide=True),
        _img(plots.timeline(transitions), "lifecycle timeline", "Stage-level state changes over time.", wide=True),
        "</div></section>",
    ]


# -- landscape: competitors, supporting work, gaps, taxonomy

def _competitors_section(landscape: Landscape, by_id: dict[int, PaperSummary]) -> list[str]:
    if landscape.backend == "offline":
        parts = ['<section id="competitors"><h2>Candidate competitors (C1 heuristic)</h2>',
                 _muted("Offline heuristic: papers your labelled includes and the C1 heuristic (facet overlap with "
                        "your abstract) put forward. Read them before calling any a competitor; label one exclude "
                        "and it leaves this list and the draft at the next run.")]
    else:
        parts = ['<section id="competitors"><h2>Direct competitors (C1)</h2>']
    if not landscape.competitors:
        return [*parts, _muted("No candidate reaches the direct-competitor threshold."), "</section>"]
    parts.append("<table>" + _header_row("#", "key", "title", "C1", "similarity", "overlap p/m/d/c",
                                         "justification", "claim"))
    for c in landscape.competitors:
        overlap = "/".join(c.overlap[f][0] for f in plots.FACETS)  # first letters, e.g. h/m/n/l
        parts.append(f'<tr><td class="n">{c.rank}</td><td class="key">{e(c.key)}</td><td>{e(by_id[c.paper_id].title)}'
                     f'</td><td class="n">{c.c1:.1f}</td><td class="n">{c.similarity:.2f}</td><td>{e(overlap)}</td>'
                     f'<td>{e(c.justification)}</td><td><code>{e(c.claim_id)}</code></td></tr>')
    return [*parts, "</table>", "</section>"]


def _supporting_section(landscape: Landscape, by_id: dict[int, PaperSummary]) -> list[str]:
    parts = ['<section id="supporting"><h2>Supporting work by contribution type (C2)</h2>']
    for group in landscape.supporting:
        parts.append(f"<h3>{e(group.label.capitalize())} <span class=\"pill\">{len(group.papers)}</span> "
                     f"<code>{e(group.claim_id)}</code></h3><table>"
                     + _header_row("key", "title", "C2", "relevance areas"))
        for s in group.papers:
            parts.append(f'<tr><td class="key">{e(s.key)}</td><td>{e(by_id[s.paper_id].title)}</td><td class="n">'
                         f'{s.c2:.1f}</td><td>{e("; ".join(s.relevance_areas))}</td></tr>')
        parts.append("</table>")
    if not landscape.supporting:
        parts.append(_muted("No candidate reaches the supporting-work threshold."))
    return [*parts, "</section>"]


def _gaps_section(landscape: Landscape) -> list[str]:
    parts = ['<section id="gaps"><h2>Recurring gaps</h2><table>'
             + _header_row("claim", "gap (representative statement)", "papers", "distinctive phrases", "statements")]
    for g in landscape.gap_clusters:
        distinct = len({s.text for s in g.statements})
        parts.append(f'<tr><td><code>{e(g.id)}</code></td><td>{e(g.representative)}</td><td class="n">'
                     f'{len(g.papers)}</td><td>{e(", ".join(g.key_phrases))}</td><td class="n">{len(g.statements)} '
                     f"({distinct} distinct)</td></tr>")
    return [*parts, "</table></section>"]


TAXONOMY_INTRO = ("Navigational nodes give an overview, analytical nodes discuss a group of papers, the reflective "
                  "node collects gaps. Each paper is routed to its theme and, when nearly as close to another theme, "
                  "to that one too.")
def _taxonomy_section(landscape: Landscape, by_id: dict[int, PaperSummary]) -> list[str]:
    return [f'<section id="taxonomy"><h2>Taxonomy and routing</h2><p class="muted">{e(TAXONOMY_INTRO)}</p>'
            '<ul class="tax">',
            *_taxonomy_tree(landscape, landscape.taxonomy.root.id, by_id),
            "</ul></section>"]


def _taxonomy_tree(landscape: Landscape, node_id: str, by_id: dict[int, PaperSummary]) -> list[str]:
    """One node as a list item, its children nested below it; leaves list the papers routed to them."""
    node = landscape.taxonomy.node(node_id)
    papers = landscape.taxonomy.subtree_papers(node_id)
    parts = [f"<li><b>{e(node.label)}</b> <span class=\"pill\">{e(node.kind)}</span> <span class=\"pill\">"
             f"{len(papers)} papers</span>"]
    if node.key_phrases:
        parts.append(f' <span class="muted">({e(", ".join(node.key_phrases))})</span>')
    if node.papers and not node.children:
        keys = ", ".join(by_id[i].key for i in node.papers[:MAX_ROUTED_KEYS])
        hidden = len(node.papers) - MAX_ROUTED_KEYS
        more = f" and {hidden} more" if hidden > 0 else ""
        parts.append(f'<details><summary>routed papers</summary><span class="key">{e(keys)}{e(more)}</span></details>')
    if node.children:
        parts.append("<ul>")
        for child in node.children:
            parts += _taxonomy_tree(landscape, child, by_id)
        parts.append("</ul>")
    parts.append("</li>")
    return parts


# -- the related-work draft and its bibliography

def _draft_section(draft: Draft, draft_artifact: ArtifactRow | None, slug: str) -> list[str]:
    origin_counts: dict[str, int] = defaultdict(int)
    for paragraph in draft.paragraphs():
        origin_counts[paragraph.origin] += 1
    writer = (draft_artifact.payload.get("writer") if draft_artifact is not None else None) or "offline"
    writer = writer.split(" at ")[0]  # the endpoint's URL stays in the artifact; the page names no address
    origins = ", ".join(f"{n} {k}" for k, n in sorted(origin_counts.items()))
    parts = [f'<section id="draft" class="draft"><h2>Related-work draft</h2><p class="muted">Writer: {e(writer)}; '
             f"paragraphs: {e(origins)}. Hover a sentence to see its id; <code>agentr trace {e(slug)} &lt;id&gt;"
             "</code> shows the papers and score fields it rests on. Files: <code>related_work.md</code>, "
             "<code>.tex</code>, <code>.bib</code> under the project's results.</p>"]
    known = {b.key for b in draft.bib}
    for section in draft.sections:
        level = min(6, section.level + 2)
        parts.append(f"<h{level}>{e(section.title)} <span class=\"pill\">{e(section.kind)}</span></h{level}>")
        for paragraph in section.paragraphs:
            parts.append("<p>" + " ".join(
                f'<span class="s" id="s-{e(s.id)}" title="{e(s.id)}">{sentence_html(s.text, known)}</span>'
                for s in paragraph.sentences) + "</p>")
    return [*parts, '<h3>References</h3><ol class="bib">', *_bibliography_items(draft), "</ol></section>"]


def _bibliography_items(draft: Draft) -> list[str]:
    items = []
    for entry in draft.bib:
        f = entry.fields
        bits = [f.get("author"), f.get("title"), f.get("journal"), f.get("year"),
                f"doi:{f['doi']}" if f.get("doi") else None]
        items.append(f'<li id="{_anchor(entry.key)}"><span class="key">[{e(entry.key)}]</span> '
                     + e(". ".join(b for b in bits if b)) + "</li>")
    return items


# -- every scored paper

def _papers_section(landscape: Landscape, p_include: dict[int, float] | None = None) -> list[str]:
    p_include = p_include or {}
    # by the calibrated probability of inclusion (the export's relevance), the C1/C2/similarity mix breaking ties
    ranked = sorted(landscape.papers, key=lambda p: (-p_include.get(p.paper_id, -1.0), -p.relevance, p.paper_id))
    shown = f"; the first {MAX_PAPER_ROWS} are shown" if len(ranked) > MAX_PAPER_ROWS else ""
    h = " (C1, C2 and similarity: offline heuristics)" if landscape.backend == "offline" else ""
    parts = [f'<section id="papers"><h2>All scored papers</h2><p class="muted">{len(ranked)} papers by relevance, '
             f"the calibrated probability of inclusion P(include) shown in the score exports{h}{shown}. The full "
             "table is in the score exports.</p><table>"
             + _header_row("key", "title", "year", "P(include)", "C1", "C2", "type", "similarity", "sections")]
    for p in ranked[:MAX_PAPER_ROWS]:
        sections = ", ".join(p.sections) if p.included else f"— {p.exclusion_reason}"
        prob = f"{p_include[p.paper_id]:.2f}" if p.paper_id in p_include else ""
        parts.append(f'<tr><td class="key">{e(p.key)}</td><td>{e(p.title)}</td><td class="n">{e(p.year or "")}</td>'
                     f'<td class="n">{prob}</td><td class="n">{p.c1:.1f}</td><td class="n">{p.c2:.1f}</td>'
                     f'<td>{e(CONTRIBUTION_LABELS[p.contribution_type])}</td><td class="n">{p.similarity:.2f}</td>'
                     f"<td>{e(sections)}</td></tr>")
    return [*parts, "</table></section>"]


# -- searches, PRISMA flow and living-review updates

def _number(value, fmt: str) -> str:
    """A digest cell: blank when missing (None, NaN, pd.NA: a paper not scored yet)."""
    import pandas as pd

    return "" if value is None or pd.isna(value) else fmt.format(int(value) if fmt == "{:d}" else value)


def _searches_section(r: ReportInputs) -> list[str]:
    parts = ['<section id="searches"><h2>Searches, PRISMA flow and updates</h2>',
             _img(plots.prisma_flow(r.prisma), "PRISMA 2020 flow diagram", "PRISMA 2020 flow: records identified "
                  "per source, duplicates removed, screened (ranked), scored, above threshold and labelled.",
                  wide=True)]
    by_source: dict[str, list] = defaultdict(list)
    for row in r.searches:
        by_source[row.source].append(row)
    if by_source:
        parts.append("<h3>Sources</h3><table>" + _header_row("source", "searches", "failed", "hits", "new papers",
                                                              "last search (UTC)"))
        for source, rows in sorted(by_source.items()):
            parts.append(f"<tr><td>{e(source)}</td><td class=\"n\">{len(rows)}</td>"
                         f"<td class=\"n\">{sum(1 for x in rows if x.status == 'failed')}</td>"
                         f"<td class=\"n\">{sum(x.hits for x in rows)}</td>"
                         f"<td class=\"n\">{sum(x.new_papers for x in rows)}</td>"
                         f"<td>{e(_timestamp(rows[-1].created_at))}</td></tr>")
        parts.append("</table>")
    else:
        parts.append(_muted("No search source was run for this project (AGENTR_SOURCES is empty): its candidates "
                            "come from imported files and the paper lake."))
    if r.updates:
        parts.append("<h3>Living-review updates</h3><table>" + _header_row("update", "searches", "failed", "hits",
                                                                            "new papers"))
        for u in r.updates:
            parts.append(f"<tr><td>{e(u['update'])}</td><td class=\"n\">{u['searches']}</td>"
                         f"<td class=\"n\">{u['failed']}</td><td class=\"n\">{u['hits']}</td>"
                         f"<td class=\"n\">{u['new_papers']}</td></tr>")
        parts.append(f"</table><h4>New in the update of {e(r.updates[0]['update'])}</h4>")
        if r.latest_update:
            parts.append("<table>" + _header_row("rank", "title", "year", "C1", "C2", "found by"))
            for p in r.latest_update:
                parts.append(f"<tr><td class=\"n\">{p['rank']}</td><td>{e(p['title'])}</td>"
                             f"<td class=\"n\">{_number(p['year'], '{:d}')}</td>"
                             f"<td class=\"n\">{_number(p['c1_score'], '{:.1f}')}</td>"
                             f"<td class=\"n\">{_number(p['c2_score'], '{:.1f}')}</td><td>{e(p['found_by'])}</td></tr>")
            parts.append("</table>")
        else:
            parts.append(_muted("Nothing new."))
    return [*parts, "</section>"]


# -- cost, lifecycle and evidence

def _cost_section(usage: list[UsageRow]) -> list[str]:
    credits, usd = _total(u.credits for u in usage), _total(u.cost_usd for u in usage)
    parts = [f'<section id="cost"><h2>Cost</h2><p>{len(usage)} LLM calls, {_money(usd) or "0"} USD, '
             f'{_money(credits) or "0"} credits for this project.</p>']
    if not usage:
        return [*parts, _muted("No LLM calls: everything was computed offline, at no cost."), "</section>"]
    by_stage: dict[tuple[str, str], list] = defaultdict(list)
    for u in usage:
        by_stage[(u.stage or "?", u.model)].append(u)
    parts.append("<table>" + _header_row("stage", "model", "calls", "input tokens", "output tokens", "USD",
                                         "credits", "mean latency ms"))
    for (stage, model), rows in sorted(by_stage.items()):
        latencies = [r.latency_ms for r in rows if r.latency_ms is not None]
        mean_latency = round(sum(latencies) / len(latencies)) if latencies else ""
        parts.append(f"<tr><td>{e(stage)}</td><td>{e(model)}</td><td class=\"n\">{len(rows)}</td>"
                     f"<td class=\"n\">{sum(r.input_tokens for r in rows)}</td>"
                     f"<td class=\"n\">{sum(r.output_tokens for r in rows)}</td>"
                     f"<td class=\"n\">{_money(_total(r.cost_usd for r in rows))}</td>"
                     f"<td class=\"n\">{_money(_total(r.credits for r in rows))}</td>"
                     f"<td class=\"n\">{mean_latency}</td></tr>")
    return [*parts, "</table>", "</section>"]


def _lifecycle_section(status: list[StatusRow], transitions: list[TransitionRow],
                       failures: list[FailureRow]) -> list[str]:
    parts = ['<section id="lifecycle"><h2>Lifecycle</h2><h3>Current state</h3><table>'
             + _header_row("stage", "state", "papers by state", "detail", "updated")]
    for row in status:
        counts = ", ".join(f"{k}: {v}" for k, v in sorted(row.paper_counts.items()))
        updated = _timestamp(row.updated_at) if row.updated_at else ""
        parts.append(f"<tr><td>{e(row.stage)}</td><td>{e(row.state or '')}</td><td>{e(counts)}</td>"
                     f"<td>{e(row.detail or '')}</td><td>{e(updated)}</td></tr>")
    parts.append("</table><h3>Timeline</h3><table>" + _header_row("time (UTC)", "stage", "state", "detail", "run"))
    stage_rows = [t for t in transitions if t.paper_id is None]  # per-paper rows would drown the timeline
    for t in stage_rows[-MAX_TIMELINE_ROWS:]:
        parts.append(f"<tr><td>{e(_timestamp(t.created_at))}</td><td>{e(t.stage)}</td><td>{e(t.state)}</td>"
                     f"<td>{e(t.detail or '')}</td><td><code>{e((t.run_id or '')[:8])}</code></td></tr>")
    parts.append("</table>")
    parts.append(_muted(f"{len(transitions) - len(stage_rows)} per-paper transitions are recorded as well "
                        "(agentr status, SQL)."))
    if failures:
        parts.append("<h3>Failures</h3><table>" + _header_row("time", "stage", "class", "paper", "message"))
        for f in failures[-MAX_FAILURE_ROWS:]:
            parts.append(f"<tr><td>{e(_timestamp(f.created_at))}</td><td>{e(f.stage)}</td>"
                         f"<td>{e(f.failure_class)}</td><td>{e(f.paper_id or '')}</td><td>{e(f.message[:300])}</td>"
                         "</tr>")
        parts.append("</table>")
    return [*parts, "</section>"]


def _evidence_section(landscape: Landscape, slug: str) -> list[str]:
    parts = ['<section id="evidence"><h2>Evidence pointers</h2><p class="muted">Every landscape claim with the papers '
             "and score fields it rests on (draft sentences: see <code>related_work.evidence.json</code> or "
             f"<code>agentr trace {e(slug)} &lt;sentence-id&gt;</code>).</p><table>"
             + _header_row("claim", "text", "papers", "fields")]
    for claim in landscape.claims:
        keys = list(dict.fromkeys(ev.key for ev in claim.evidence))
        # research_gaps[3] and research_gaps[0] are one kind of field
        fields = sorted({re.sub(r"\[\d+\]", "[i]", f) for ev in claim.evidence for f in ev.fields})
        more = f" … +{len(keys) - MAX_EVIDENCE_KEYS}" if len(keys) > MAX_EVIDENCE_KEYS else ""
        parts.append(f"<tr><td><code>{e(claim.id)}</code></td><td>{e(claim.text)}</td><td class=\"key\">"
                     f"{e(', '.join(keys[:MAX_EVIDENCE_KEYS]))}{e(more)}</td><td><code>{e(', '.join(fields))}</code>"
                     "</td></tr>")
    return [*parts, "</table></section>"]
