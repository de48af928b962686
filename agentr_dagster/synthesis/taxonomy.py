"""A candidate-grounded taxonomy (after DAS): a rooted hierarchy whose nodes are labelled navigational
(overview of children), analytical (a group of papers discussed together) or reflective (what the literature
leaves open), a deterministic structural check, and reverse paper-to-section routing (sparse multi-label: each
paper goes to the theme it belongs to and, when it is nearly as close to another theme, to that one too)."""

from __future__ import annotations

import numpy as np

from agentr_dagster.domain.text import key_of
from agentr_dagster.synthesis.clustering import choose_clusters, distinctive_phrases, label_from
from agentr_dagster.synthesis.models import Route, Taxonomy, TaxonomyNode

ROOT_ID = "rw"
COMPETITORS_ID = "competitors"
GAPS_ID = "gaps"
ROOT_LABEL = "Related work"
COMPETITORS_LABEL = "Closest competing work"
GAPS_LABEL = "Recurring gaps"

MAX_DEPTH = 2  # root = 0, themes = 1, sub-themes = 2
MAX_THEMES = 6
MAX_SUBTHEMES = 3
SPLIT_MIN_PAPERS = 8  # a theme is split into sub-themes only from this size
SPLIT_MIN_SILHOUETTE = 0.04  # ... and only when the split separates the papers at least this well
MAX_THEME_ROUTES = 2
ROUTE_MARGIN = 0.03  # a second theme is routed when the paper is within this cosine of its own theme
ROUTE_FLOOR = 0.5
MAX_LABEL_CHARS = 80
KINDS = ("navigational", "analytical", "reflective")


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def _unique_labels(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        label = label[:MAX_LABEL_CHARS]
        n = seen.get(label.casefold(), 0)
        seen[label.casefold()] = n + 1
        out.append(label if n == 0 else f"{label} ({n + 1})")
    return out


def _relabel_unique(nodes: list[TaxonomyNode]) -> None:
    """Siblings never share a label (a repeated one gets a distinguishing suffix)."""
    for node, label in zip(nodes, _unique_labels([n.label for n in nodes]), strict=True):
        node.label = label


def build_taxonomy(
    paper_ids: list[int],
    vectors: np.ndarray,
    phrases: list[dict[tuple[str, ...], tuple[str, float]]],
    competitors: list[int],
    gap_papers: list[int],
) -> Taxonomy:
    """``paper_ids`` are the included papers, aligned with the rows of ``vectors`` (unit norm) and ``phrases``
    (each document's key phrases); ``competitors`` and ``gap_papers`` feed the role-based nodes."""
    root = TaxonomyNode(id=ROOT_ID, label=ROOT_LABEL, kind="navigational")
    nodes: list[TaxonomyNode] = [root]
    routes: list[Route] = []
    if competitors:
        nodes.append(TaxonomyNode(id=COMPETITORS_ID, label=COMPETITORS_LABEL, kind="analytical", parent=ROOT_ID,
                                  papers=list(competitors)))
        routes += [Route(paper_id=p, node=COMPETITORS_ID, score=1.0, primary=False) for p in competitors]

    n = len(paper_ids)
    top_labels, _ = choose_clusters(vectors, MAX_THEMES, max(2, n // 25))
    themes: list[list[int]] = (
        [np.flatnonzero(top_labels == c).tolist() for c in range(int(top_labels.max()) + 1)] if n else []
    )
    theme_names = distinctive_phrases(phrases, themes) if themes else []
    leaves: list[tuple[str, list[int]]] = []  # (node id, member row indices)
    theme_nodes: list[TaxonomyNode] = []
    for t, (members, names) in enumerate(zip(themes, theme_names, strict=True), start=1):
        node = TaxonomyNode(id=f"t{t}", label=label_from(names, f"Theme {t}"), kind="analytical", parent=ROOT_ID,
                            key_phrases=names)
        theme_nodes.append(node)
        subs: list[list[int]] = []
        if len(members) >= SPLIT_MIN_PAPERS:
            sub_labels, score = choose_clusters(vectors[members], MAX_SUBTHEMES, max(3, len(members) // 10))
            if score >= SPLIT_MIN_SILHOUETTE and sub_labels.max() >= 1:
                subs = [[members[i] for i in np.flatnonzero(sub_labels == c)] for c in range(int(sub_labels.max()) + 1)]
        if not subs:
            leaves.append((node.id, members))
            continue
        node.kind = "navigational"
        sub_names = distinctive_phrases(phrases, subs, exclude=[key_of(name) for name in names],
                                        background=list(range(len(paper_ids))))
        labels = _unique_labels([label_from(s, f"{node.label}: part {i}") for i, s in enumerate(sub_names, 1)])
        for s, (sub, label, names_s) in enumerate(zip(subs, labels, sub_names, strict=True), start=1):
            child = TaxonomyNode(id=f"t{t}-{s}", label=label, kind="analytical", parent=node.id, key_phrases=names_s)
            node.children.append(child.id)
            theme_nodes.append(child)
            leaves.append((child.id, sub))
    _relabel_unique([n for n in theme_nodes if n.parent == ROOT_ID])
    nodes += theme_nodes

    # Reverse routing: every paper to its own leaf; to a second leaf only when nearly as close to it.
    by_id = {node.id: node for node in nodes}
    if leaves:
        centroids = np.stack([_unit(vectors[m].mean(axis=0)) for _, m in leaves])
        own = {i: li for li, (_, members) in enumerate(leaves) for i in members}
        sims = vectors @ centroids.T
        for i, paper_id in enumerate(paper_ids):
            home = own[i]
            routed = [(home, float(sims[i, home]), True)]
            for li in np.argsort(-sims[i], kind="stable"):
                if len(routed) >= MAX_THEME_ROUTES:
                    break
                sim = float(sims[i, li])
                if li != home and sim >= ROUTE_FLOOR and sim >= sims[i, home] - ROUTE_MARGIN:
                    routed.append((int(li), sim, False))
            for li, sim, primary in routed:
                leaf = by_id[leaves[li][0]]
                leaf.papers.append(paper_id)
                routes.append(Route(paper_id=paper_id, node=leaf.id, score=round(sim, 4), primary=primary))
        for leaf_id, _ in leaves:
            by_id[leaf_id].papers.sort()
    if gap_papers:
        nodes.append(TaxonomyNode(id=GAPS_ID, label=GAPS_LABEL, kind="reflective", parent=ROOT_ID,
                                  papers=sorted(gap_papers)))
        routes += [Route(paper_id=p, node=GAPS_ID, score=1.0, primary=False) for p in sorted(gap_papers)]
    root.children = [n.id for n in nodes if n.parent == ROOT_ID]
    return Taxonomy(nodes=nodes, routes=routes)


def check_taxonomy(taxonomy: Taxonomy, included: list[int]) -> list[str]:
    """Deterministic structural check; returns the problems found (empty = sound).

    One root; unique ids; parent and children lists agree; no cycles, every node reachable, depth bounded;
    kinds valid, navigational exactly for inner nodes, inner nodes with at least two children; labels present,
    short and unique among siblings; every leaf has papers, only known papers are routed, routes agree with the
    leaves, and every included paper is routed to at least one theme (analytical leaf), at most
    ``MAX_THEME_ROUTES`` of them."""
    problems: list[str] = []
    ids = [n.id for n in taxonomy.nodes]
    by_id = {n.id: n for n in taxonomy.nodes}
    if len(set(ids)) != len(ids):
        problems.append("duplicate node ids: " + ", ".join(sorted({i for i in ids if ids.count(i) > 1})))
    roots = [n for n in taxonomy.nodes if n.parent is None]
    if len(roots) != 1:
        problems.append(f"expected exactly one root, found {len(roots)}")
        return problems  # without a single root the walks below have nowhere to start
    for node in taxonomy.nodes:
        problems += _node_problems(node, by_id)
    problems += _reachability_problems(roots[0].id, ids, by_id)
    problems += _sibling_label_problems(taxonomy.nodes, by_id)
    problems += _route_problems(taxonomy, by_id, set(included))
    return problems


def _node_problems(node: TaxonomyNode, by_id: dict[str, TaxonomyNode]) -> list[str]:
    """One node on its own: links to its parent and children, kind, label, and where papers may sit."""
    problems = []
    if node.parent is not None and node.parent not in by_id:
        problems.append(f"{node.id}: parent {node.parent!r} does not exist")
    for child in node.children:
        if child not in by_id:
            problems.append(f"{node.id}: child {child!r} does not exist")
        elif by_id[child].parent != node.id:
            problems.append(f"{node.id}: child {child!r} names {by_id[child].parent!r} as its parent")
    if node.parent in by_id and node.id not in by_id[node.parent].children:
        problems.append(f"{node.id}: not listed among the children of {node.parent!r}")
    if node.kind not in KINDS:
        problems.append(f"{node.id}: unknown kind {node.kind!r}")
    if node.children and node.kind != "navigational":
        problems.append(f"{node.id}: an inner node must be navigational, not {node.kind}")
    if not node.children and node.kind == "navigational":
        problems.append(f"{node.id}: a navigational node needs children")
    if node.children and len(node.children) < 2:
        problems.append(f"{node.id}: an inner node needs at least two children")
    if not node.label.strip() or len(node.label) > MAX_LABEL_CHARS:
        problems.append(f"{node.id}: label missing or longer than {MAX_LABEL_CHARS} characters")
    if not node.children and not node.papers:
        problems.append(f"{node.id}: leaf with no papers routed to it")
    if node.children and node.papers:
        problems.append(f"{node.id}: papers are routed to leaves only")
    return problems


def _reachability_problems(root_id: str, ids: list[str], by_id: dict[str, TaxonomyNode]) -> list[str]:
    """Cycles, shared children, depth and unreachable nodes, from a walk down from the root."""
    problems = []
    seen: set[str] = set()
    stack: list[tuple[str, int, tuple[str, ...]]] = [(root_id, 0, (root_id,))]
    while stack:
        node_id, depth, path = stack.pop()
        if node_id in seen:
            problems.append(f"{node_id}: reached twice (cycle or shared child)")
            continue
        seen.add(node_id)
        if depth > MAX_DEPTH:
            problems.append(f"{node_id}: depth {depth} exceeds {MAX_DEPTH}")
        for child in by_id[node_id].children if node_id in by_id else []:
            if child in path:
                problems.append(f"{node_id}: cycle through {child}")
            elif child in by_id:
                stack.append((child, depth + 1, (*path, child)))
    unreachable = sorted(set(ids) - seen)
    if unreachable:
        problems.append("unreachable nodes: " + ", ".join(unreachable))
    return problems


def _sibling_label_problems(nodes: list[TaxonomyNode], by_id: dict[str, TaxonomyNode]) -> list[str]:
    problems = []
    for node in nodes:
        labels = [by_id[c].label.casefold() for c in node.children if c in by_id]
        if len(set(labels)) != len(labels):
            problems.append(f"{node.id}: sibling labels are not unique")
    return problems


def _route_problems(taxonomy: Taxonomy, by_id: dict[str, TaxonomyNode], known: set[int]) -> list[str]:
    """Routes and node paper lists agree, only included papers are routed, and each included paper reaches
    between one and ``MAX_THEME_ROUTES`` themes (the competitor section is a role, not a theme)."""
    problems = []
    themes: dict[int, int] = {}  # paper id -> number of themes it is routed to
    for route in taxonomy.routes:
        node = by_id.get(route.node)
        if node is None:
            problems.append(f"paper {route.paper_id} routed to unknown node {route.node!r}")
            continue
        if route.paper_id not in known:
            problems.append(f"paper {route.paper_id} routed to {route.node} but is not an included paper")
        if route.paper_id not in node.papers:
            problems.append(f"paper {route.paper_id}: route to {route.node} missing from the node's papers")
        if node.kind == "analytical" and node.id != COMPETITORS_ID:
            themes[route.paper_id] = themes.get(route.paper_id, 0) + 1
    for node in taxonomy.nodes:
        routed = {r.paper_id for r in taxonomy.routes if r.node == node.id}
        stray = sorted(set(node.papers) - routed)
        if stray:
            problems.append(f"{node.id}: papers {stray[:5]} listed without a route")
    unrouted = sorted(known - set(themes))
    if unrouted:
        problems.append(f"{len(unrouted)} included paper(s) not routed to any theme, e.g. {unrouted[:5]}")
    over = sorted(p for p, n in themes.items() if n > MAX_THEME_ROUTES)
    if over:
        problems.append(f"papers routed to more than {MAX_THEME_ROUTES} themes: {over[:5]}")
    return problems
