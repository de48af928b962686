"""Plots of the landscape as PNG bytes (matplotlib's object API on the Agg canvas: no display, no global pyplot
state, safe in threads). Used inline (base64) by the HTML report and by the assets' metadata."""

from __future__ import annotations

import base64
import io
import textwrap
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from agentr_dagster.synthesis.landscape import CONTRIBUTION_LABELS
from agentr_dagster.synthesis.models import Landscape

LEVELS = {"none": 0, "low": 1, "medium": 2, "high": 3}
FACETS = ("problem", "method", "domain", "constraint")
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f", "#edc948"]


def _png(fig: Figure, dpi: int) -> bytes:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _empty(message: str, dpi: int) -> bytes:
    fig = Figure(figsize=(6, 1.2))
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#555")
    return _png(fig, dpi)


def c1_vs_c2(landscape: Landscape, dpi: int = 110, annotate: int = 6) -> bytes:
    """Direct-competitor score against supporting-work score, coloured by contribution type; excluded papers
    in grey; the strongest competitors labelled with their citation keys."""
    papers = landscape.papers
    if not papers:
        return _empty("no scored papers", dpi)
    fig = Figure(figsize=(7.5, 5.2))
    ax = fig.add_subplot()
    types = list(CONTRIBUTION_LABELS)
    rng = np.random.default_rng(0)  # a fixed jitter: equal scores stay visible, and the figure is reproducible
    jitter = rng.uniform(-0.12, 0.12, size=(len(papers), 2))
    for t, ctype in enumerate(types):
        idx = [i for i, p in enumerate(papers) if p.included and p.contribution_type == ctype]
        if idx:
            ax.scatter([papers[i].c2 + jitter[i, 0] for i in idx], [papers[i].c1 + jitter[i, 1] for i in idx],
                       s=[20 + 80 * papers[i].similarity for i in idx], color=PALETTE[t % len(PALETTE)], alpha=0.8,
                       label=CONTRIBUTION_LABELS[ctype], edgecolors="white", linewidths=0.5)
    excluded = [i for i, p in enumerate(papers) if not p.included]
    if excluded:
        ax.scatter([papers[i].c2 + jitter[i, 0] for i in excluded], [papers[i].c1 + jitter[i, 1] for i in excluded],
                   s=18, color="#bbbbbb", label="not among the likely includes", marker="x")
    c1t = landscape.settings.get("c1_threshold", 5.0)
    c2t = landscape.settings.get("c2_threshold", 5.0)
    ax.axhline(c1t, color="#999", lw=0.8, ls="--")
    ax.axvline(c2t, color="#999", lw=0.8, ls="--")
    # Labels in one column in the upper-left corner (high C1 with low C2 is rare), one line each, with leader
    # lines: competitors share a score band, and labels placed next to their points overlap.
    labelled = sorted((landscape.paper(e.paper_id) for e in landscape.competitors[:annotate]), key=lambda p: -p.c1)
    for n, p in enumerate(labelled):
        ax.annotate(p.key, (p.c2, p.c1), xytext=(0.1, 10.1 - 0.62 * n), textcoords="data", fontsize=9, color="#333",
                    ha="left", va="center", arrowprops={"arrowstyle": "-", "color": "#aaa", "lw": 0.5})
    ax.set_xlim(-0.5, 10.5)
    ax.set_ylim(-0.5, 10.5)
    ax.set_xlabel("C2 supporting-work score (0-10)")
    ax.set_ylabel("C1 direct-competitor score (0-10)")
    ax.set_title("Direct competitors vs supporting work (marker size = semantic similarity)", fontsize=10)
    ax.legend(fontsize=9, loc="lower right", framealpha=0.9)
    ax.grid(alpha=0.25)
    return _png(fig, dpi)


def similarity_distribution(landscape: Landscape, dpi: int = 110) -> bytes:
    papers = landscape.papers
    if not papers:
        return _empty("no scored papers", dpi)
    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    bins = np.linspace(0, 1, 21).tolist()
    c1t = landscape.settings.get("c1_threshold", 5.0)
    groups = [
        (f"direct competitors (C1 ≥ {c1t:g})", [p.similarity for p in papers if p.included and p.c1 >= c1t], "#e15759"),
        ("other likely includes", [p.similarity for p in papers if p.included and p.c1 < c1t], "#4e79a7"),
        ("not among the likely includes", [p.similarity for p in papers if not p.included], "#bbbbbb"),
    ]
    groups = [g for g in groups if g[1]]
    ax.hist([g[1] for g in groups], bins=bins, stacked=True, color=[g[2] for g in groups],
            label=[f"{g[0]} ({len(g[1])})" for g in groups])
    values = np.array([p.similarity for p in papers])
    ax.axvline(float(np.median(values)), color="#333", lw=1, ls=":", label=f"median {np.median(values):.2f}")
    ax.set_xlabel("semantic similarity to the planned work")
    ax.set_ylabel("papers")
    ax.set_title("Similarity distribution", fontsize=10)
    ax.legend(fontsize=9)
    ax.grid(alpha=0.25, axis="y")
    return _png(fig, dpi)


def overlap_heatmap(landscape: Landscape, dpi: int = 110, top: int = 20) -> bytes:
    """Problem / method / domain / constraint overlap (none..high) of the most relevant papers."""
    papers = sorted((p for p in landscape.papers if p.included), key=lambda p: (-p.relevance, p.paper_id))[:top]
    if not papers:
        return _empty("no included papers", dpi)
    matrix = np.array([[LEVELS[p.overlap[f]] for f in FACETS] for p in papers], dtype=float)
    fig = Figure(figsize=(6.5, 1.4 + 0.26 * len(papers)))
    ax = fig.add_subplot()
    image = ax.imshow(matrix, aspect="auto", cmap="YlOrRd", vmin=0, vmax=3)
    ax.set_xticks(range(len(FACETS)), labels=FACETS, fontsize=9)
    ax.set_yticks(range(len(papers)), labels=[p.key for p in papers], fontsize=9)
    ax.xaxis.tick_top()
    for (i, j), value in np.ndenumerate(matrix):
        ax.text(j, i, "nlmh"[int(value)], ha="center", va="center", fontsize=8,
                color="white" if value >= 2 else "#333")
    bar = fig.colorbar(image, ax=ax, ticks=[0, 1, 2, 3], fraction=0.05)
    bar.ax.set_yticklabels(["none", "low", "medium", "high"], fontsize=9)
    ax.set_title(f"Overlap with the planned work (top {len(papers)} by relevance)", fontsize=10, pad=24)
    return _png(fig, dpi)


def gap_clusters(landscape: Landscape, dpi: int = 110) -> bytes:
    clusters = landscape.gap_clusters
    if not clusters:
        return _empty("no research gaps recorded", dpi)
    included = sum(p.included for p in landscape.papers) or 1
    # labels wrapped onto two lines inside a figure a page column shows at its natural size (9 pt stays 9 pt)
    fig = Figure(figsize=(7.5, 1.0 + 0.6 * len(clusters)))
    fig.subplots_adjust(left=0.42, right=0.97)
    ax = fig.add_subplot()
    y = np.arange(len(clusters))[::-1]
    counts = [len(c.papers) for c in clusters]
    ax.barh(y, counts, color="#76b7b2")
    labels = [textwrap.fill(textwrap.shorten(f"{c.id}: {c.label}", 76, placeholder="…"), 40) for c in clusters]
    ax.set_yticks(y, labels=labels, fontsize=9)
    for yi, n in zip(y, counts, strict=True):
        ax.text(n, yi, f" {n} ({100 * n / included:.0f}%)", va="center", fontsize=9)
    ax.set_xlim(0, max(counts) * 1.25)
    ax.set_xlabel("papers recording the gap")
    ax.set_title("Recurring research gaps (clusters of the per-paper gaps)", fontsize=10)
    return _png(fig, dpi)


def taxonomy_tree(landscape: Landscape, dpi: int = 110) -> bytes:
    """The taxonomy drawn left to right: node label, kind and number of papers routed to its subtree."""
    tax = landscape.taxonomy
    nodes = tax.preorder()
    leaves = [n for n in nodes if not n.children]
    ypos: dict[str, float] = {}
    for i, leaf in enumerate(leaves):
        ypos[leaf.id] = -float(i)
    for node in reversed(nodes):
        if node.children:
            ypos[node.id] = float(np.mean([ypos[c] for c in node.children]))
    fig = Figure(figsize=(10, 1.0 + 0.55 * len(leaves)))
    ax = fig.add_subplot()
    ax.axis("off")
    colours = {"navigational": "#4e79a7", "analytical": "#59a14f", "reflective": "#e15759"}
    xstep = 3.4
    for node in nodes:
        x = tax.depth(node.id) * xstep
        for child in node.children:
            ax.plot([x + 0.15, tax.depth(child) * xstep - 0.1], [ypos[node.id], ypos[child]], color="#bbb", lw=1)
        count = len(tax.subtree_papers(node.id))
        label = textwrap.shorten(node.label, 44, placeholder="…")
        ax.scatter([x], [ypos[node.id]], s=60, color=colours.get(node.kind, "#999"), zorder=3)
        ax.text(x + 0.15, ypos[node.id] + 0.18, f"{label} ({count})", fontsize=9, va="bottom")
    for kind, colour in colours.items():
        ax.scatter([], [], color=colour, label=kind)
    ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0, -0.02), ncol=3, frameon=False)
    depth = max(tax.depth(n.id) for n in nodes)
    ax.set_xlim(-0.3, depth * xstep + 3.2)
    ax.set_ylim(-len(leaves) - 0.3, 0.8)
    ax.set_title("Taxonomy of the candidates (papers routed to each subtree)", fontsize=10)
    return _png(fig, dpi)


def timeline(transitions: Sequence, dpi: int = 110) -> bytes:
    """Stage-level lifecycle transitions over time: one lane per stage, one marker per state change."""
    rows = [t for t in transitions if t.paper_id is None]
    if not rows:
        return _empty("no lifecycle transitions recorded", dpi)
    stages = list(dict.fromkeys(t.stage for t in rows))
    states = list(dict.fromkeys(t.state for t in rows))
    colour = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(states)}
    colour.update({"completed": "#59a14f", "in_progress": "#4e79a7", "failed_transient": "#f28e2b",
                   "failed_no_credits": "#e15759", "failed_other": "#b22222", "failed_orphan": "#9c755f"})
    start: datetime = min(t.created_at for t in rows)
    fig = Figure(figsize=(8, 1.0 + 0.45 * len(stages)))
    ax = fig.add_subplot()
    for lane, stage in enumerate(stages):
        mine = [t for t in rows if t.stage == stage]
        xs = [(t.created_at - start).total_seconds() for t in mine]
        ax.plot(xs, [lane] * len(xs), color="#ccc", lw=1, zorder=1)
        ax.scatter(xs, [lane] * len(xs), c=[colour[t.state] for t in mine], s=28, zorder=2)
    for state in states:
        ax.scatter([], [], color=colour[state], label=state)
    ax.set_yticks(range(len(stages)), labels=stages, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel(f"seconds since {start:%Y-%m-%d %H:%M:%S} UTC")
    ax.set_title("Lifecycle timeline (stage-level state changes)", fontsize=10)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    ax.grid(alpha=0.25, axis="x")
    return _png(fig, dpi)


def landscape_plots(landscape: Landscape, dpi: int = 110) -> dict[str, bytes]:
    return {
        "c1_vs_c2": c1_vs_c2(landscape, dpi),
        "similarity": similarity_distribution(landscape, dpi),
        "overlap": overlap_heatmap(landscape, dpi),
        "gaps": gap_clusters(landscape, dpi),
        "taxonomy": taxonomy_tree(landscape, dpi),
    }


def relevance_distribution(scores: Sequence[float], labels: Sequence[str] = (), dpi: int = 110) -> bytes:
    """Histogram of the screening engine's calibrated probabilities of inclusion (the ``relevance`` asset; 0-1, a
    label's is 1/0), the project's labelled includes and excludes stacked in their own colours."""
    values = np.asarray(list(scores), dtype=np.float64)
    if not len(values):
        return _empty("no candidate papers", dpi)
    marks = list(labels) or [""] * len(values)
    fig = Figure(figsize=(7, 3.4))
    ax = fig.add_subplot()
    bins = np.linspace(0.0, 1.0 + 1e-9, 41).tolist()
    groups = [(name, values[[m == key for m in marks]], colour) for name, key, colour in (
        ("unlabelled", "", "#4e79a7"), ("labelled include", "include", "#59a14f"),
        ("labelled exclude", "exclude", "#bbbbbb"))]
    groups = [g for g in groups if len(g[1])]
    ax.hist([g[1] for g in groups], bins=bins, stacked=True, color=[g[2] for g in groups],
            label=[f"{g[0]} ({len(g[1])})" for g in groups])
    ax.set_xlabel("calibrated probability of inclusion (higher = read sooner)")
    ax.set_ylabel("papers")
    ax.set_yscale("symlog", linthresh=10)  # most papers sit near 0; the few likely includes stay visible
    ax.set_title("Probability of inclusion", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.25, axis="y")
    return _png(fig, dpi)


def prisma_flow(counts, dpi: int = 110) -> bytes:
    """The PRISMA 2020 flow diagram of a project (:class:`~agentr_dagster.domain.prisma.PrismaCounts`): records
    identified per source, removed before screening (duplicates, unusable rows), screened, excluded and not yet
    screened by a person, included; the model's ranking beside it."""
    sources = list(counts.identified.items()) or [("no source", 0)]
    fig = Figure(figsize=(9, 6.8))
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.axis("off")

    def box(x: float, y: float, w: float, h: float, text: str, colour: str = "#eef3f8") -> None:
        ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="#4e79a7", linewidth=1.2))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=10)

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops={"arrowstyle": "->", "color": "#555"})

    for label, y in (("Identification", 8.3), ("Screening", 4.6), ("Included", 0.9)):
        ax.text(0.15, y, label, rotation=90, ha="center", va="center", fontsize=11, weight="bold", color="#4e79a7")
    shown = [f"{textwrap.shorten(name, 34, placeholder='...')}: {n:,}" for name, n in sources[:6]]
    if len(sources) > 6:
        shown.append(f"and {len(sources) - 6} more: {sum(n for _, n in sources[6:]):,}")
    box(0.5, 6.9, 5.0, 2.9, f"Records identified ({counts.identified_total:,})\n" + "\n".join(shown))
    box(6.2, 6.9, 3.7, 2.9, f"Removed before screening\nduplicates {counts.duplicates_removed:,}\n"
        f"  by the importer {counts.duplicates_by_importer:,}\n  across sources {counts.duplicates_across_sources:,}"
        f"\nunusable rows {counts.unusable_removed:,}", "#fbeee6")
    arrow(5.5, 8.35, 6.2, 8.35)
    box(0.5, 4.0, 5.0, 1.6, f"Records screened\n{counts.screened:,}")
    arrow(3.0, 6.9, 3.0, 5.6)
    box(6.2, 4.6, 3.7, 1.2, f"Excluded (labelled)\n{counts.labelled_excluded:,}", "#fbeee6")
    arrow(5.5, 5.2, 6.2, 5.2)
    box(6.2, 3.0, 3.7, 1.3, f"Not yet screened\n{counts.not_yet_screened:,}", "#f4f4f4")
    arrow(5.5, 4.3, 6.2, 3.7)
    box(0.5, 0.3, 5.0, 1.5, f"Studies included (labelled)\n{counts.labelled_included:,}", "#e6f4ea")
    arrow(3.0, 4.0, 3.0, 1.8)
    reasons = ", ".join(f"{why} {n:,}" for why, n in counts.not_scored.items() if n)
    box(6.2, 0.3, 3.7, 2.2, f"Ranking (orders, decides nothing)\nscored by the model {counts.scored:,}\n"
        f"not scored {counts.not_scored_total:,}" + (f"\n{reasons}" if reasons else ""), "#ffffff")
    fig.suptitle("PRISMA 2020 flow", fontsize=12)
    return _png(fig, dpi)
