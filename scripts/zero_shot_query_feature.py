"""Zero-shot with the project's own Boolean query as a feature: measured leave-one-review-out.

    AGENTR_HOME=/tmp/zsq-home AGENTR_ENCODER_THREADS=1 nice -n 10 .venv/bin/python \
        scripts/zero_shot_query_feature.py /work/shared/data/screening --cache /tmp/zsq [--verbose]

Per review, once (kept in ``--cache``, one ``.npz`` and one ``.tfidf.npz`` each): the features of ``agentr bench
screening`` (the transformer's vectors from their per-text cache), today's ``zero_shot_scores`` (``zs``), the
pipeline's parts to rebuild it (the prior before PRF, the share-weighted blend, the transformer's field cosine),
``dense_onnx`` exactly as the bench computes it, and the TF-IDF matrix the PRF round learns on.

Per review, each run (cheap, kept in ``queries.json``): the Boolean query the offline backend builds from the
question alone, as a new user's project gets it (``decompose_intent(question, None)``, no background: ``none``,
as ``agentr bench e2e``), and with the other reviews' records as background, as ``agentr bench queries`` builds it
(``pool``). The shipped shape is ``main OR (rest AND ...)``, so the query's blocks are read off its tree
(:func:`concept_groups`: each maximal OR of plain terms). Per record, on ``title. abstract`` (the matcher of
:mod:`agentr_dagster.domain.boolean_query`):

    all        1 if the record satisfies the whole query
    share      the share of the query's blocks it satisfies
    title      the share of the blocks its title alone satisfies
    share+title
    idf        the blocks it satisfies, each weighted by its IDF within the list (a block most records match
               says little), over the sum of those weights
    title_idf  the same on the title

Families (each a grid of weights ``w``; off = today's ``zero_shot_scores``):

    post    z(zs) + w x feature
    tier    the feature first, then zs
    tail    the bottom ``frac`` of today's list re-ordered by z(zs) + w x z(feature) (``rerank_tail``)
    head    the top ``frac`` of today's list re-ordered the same way (``frac`` 1: the whole list)
    pre     the prior before PRF + w x feature, then PRF, blend and tail re-rank as the code does
    both    pre and post with the same w
    select  the feature only picks PRF's pseudo-includes/-excludes (prior + w x feature); PRF's blend-back
            and the rest unchanged
    prfcol  the feature as a column (x w) beside TF-IDF in the PRF round

For each (query kind, family, feature) the weight is picked for each review on the other 17 by
(mean WSS@95 of their drug reviews + mean of the others) / 2 (ties keep the milder setting); then the whole choice
is nested: for each review the family, feature and weight best on the other 17 (within each family, and over all
of them, today included as a candidate). Reported: WSS@95 and recall@10 % held out, the count below
``dense_onnx``, drug / non-drug apart, and per review for the nested choice. The rebuilt pipeline is checked
against ``zs`` (``rebuilt pipeline == zs on 18 of 18``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import sparse

from agentr_dagster.bench.queries import build_pool, is_drug_review
from agentr_dagster.bench.screening import discover_reviews, load_review
from agentr_dagster.domain.boolean_query import Node, Not, Or, Term, matches, parse_boolean_query
from agentr_dagster.screening.metrics import evaluate_order
from agentr_dagster.screening.rankers import ZeroShotConfig, zero_shot_scores
from agentr_dagster.screening.rankers.dense import transformer_field_scores
from agentr_dagster.screening.rankers.design import design_prior
from agentr_dagster.screening.rankers.fused import fused_prior, transformer_share
from agentr_dagster.screening.rankers.zero_shot import rerank_tail
from agentr_dagster.screening.scores import order_from_scores, zscore

BASE = ZeroShotConfig()


def build_components(data: Path, cache: Path) -> dict[str, dict[str, np.ndarray]]:
    """Today's zero-shot scores and the parts to rebuild them, per review (cached)."""
    from agentr_dagster.domain.embeddings import get_embedder
    from agentr_dagster.domain.transformer import get_cached_transformer

    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict[str, np.ndarray]] = {}
    embedder = transformer = None
    for folder in discover_reviews(data):
        path = cache / f"{folder.name}.npz"
        if path.is_file():
            out[folder.name] = dict(np.load(path))
            continue
        if transformer is None:
            embedder, transformer = get_embedder(), get_cached_transformer()
            if transformer is None:
                raise SystemExit("the transformer encoder is not built: run `make models`")
        t0 = time.perf_counter()
        rv = load_review(folder)
        feats = build_features_for(rv, embedder, transformer)
        trans = transformer_field_scores(rv.question, feats)
        assert trans is not None and feats.temb is not None
        prior = fused_prior(rv.question, feats, BASE)
        prior = zscore(prior) + design_prior(rv.question, feats, BASE)
        have = {
            "labels": rv.labels,
            "zs": zero_shot_scores(rv.question, feats),
            "prior": prior,
            "blend": np.array(BASE.prf_transformer_blend * transformer_share(rv.question, feats, BASE)),
            "trans": trans[0] + BASE.title_weight * trans[1],
            "dense_onnx": feats.temb.astype(np.float64) @ transformer.encode([rv.question])[0].astype(np.float64),
        }
        sparse.save_npz(cache / f"{folder.name}.tfidf.npz", feats.tfidf)
        np.savez(path, **have)
        print(f"{rv.name}: {len(rv.labels)} records, {time.perf_counter() - t0:.1f} s", flush=True)
        out[folder.name] = have
    return out


def build_features_for(rv, embedder, transformer):
    from agentr_dagster.screening.features import build_features

    return build_features(rv.titles, rv.abstracts, embedder, transformer)


# --------------------------------------------------------------------------------------------------------------
# The query and its per-record features
# --------------------------------------------------------------------------------------------------------------


def concept_groups(node: Node) -> list[Node]:
    """The query's concept blocks however they are combined: each maximal OR of plain terms (or a lone term) in
    the tree, in order (``A OR (B AND C)`` -> A, B, C; ``A AND B`` -> A, B). NOT-ed parts are left out."""
    if isinstance(node, Term):
        return [node]
    if isinstance(node, Not):
        return []
    if isinstance(node, Or) and all(isinstance(c, Term) for c in node.children):
        return [node]
    return [g for c in node.children for g in concept_groups(c)]


def build_queries(data: Path, cache: Path) -> dict[str, dict[str, str]]:
    """Per review: the Boolean query from the question alone (``none``) and with the other reviews' records as
    background (``pool``, as ``agentr bench queries``); kept in ``queries.json``."""
    path = cache / "queries.json"
    if path.is_file():
        return json.loads(path.read_text())
    from agentr_dagster.llm.offline import OfflineBackend

    backend = OfflineBackend()
    folders = discover_reviews(data)
    pool, _ = build_pool(folders)
    out: dict[str, dict[str, str]] = {}
    for folder in folders:
        rv = load_review(folder)
        out[folder.name] = {}
        for kind, background in (("none", None), ("pool", pool.background_without(rv.name))):
            intent = backend.decompose_intent(rv.question, background)
            out[folder.name][kind] = backend.generate_queries(intent).boolean_query
        print(f"{rv.name}: {out[folder.name]['none']}", flush=True)
    path.write_text(json.dumps(out, indent=1))
    return out


def query_features(query: str, titles: list[str], abstracts: list[str]) -> dict[str, np.ndarray]:
    """Per record: matches the whole query, share of its concept blocks matched (title + abstract), the first
    (main) block matched, the share of blocks its title matches."""
    n = len(titles)
    if not query.strip():
        return {k: np.zeros(n) for k in ("all", "share", "main", "title", "idf", "title_idf")}
    tree = parse_boolean_query(query)
    groups = concept_groups(tree)
    texts = [f"{t}. {a}" if a and a != "nan" else t for t, a in zip(titles, abstracts, strict=True)]
    hit = np.array([[matches(g, x) for g in groups] for x in texts], dtype=np.float64).reshape(n, len(groups))
    thit = np.array([[matches(g, t) for g in groups] for t in titles], dtype=np.float64).reshape(n, len(groups))
    # a block most records match says little: each block weighted by its IDF within the list (label-free)
    idf = np.log((n + 1) / (hit.sum(axis=0) + 1))
    norm = idf.sum() if idf.sum() > 0 else 1.0
    return {
        "idf": hit @ idf / norm,
        "title_idf": thit @ idf / norm,
        "all": np.array([matches(tree, x) for x in texts], dtype=np.float64),
        "share": hit.mean(axis=1),
        "main": hit[:, 0],
        "title": thit.mean(axis=1),
    }


# --------------------------------------------------------------------------------------------------------------
# Rebuilding zero-shot with the feature
# --------------------------------------------------------------------------------------------------------------


def prf(prior: np.ndarray, X: sparse.csr_matrix, cfg: ZeroShotConfig = BASE,
        select: np.ndarray | None = None) -> np.ndarray:
    """``pseudo_relevance_feedback`` on the cached TF-IDF (no transformer block: ``prf_transformer_weight`` 0);
    the pseudo-includes and -excludes taken from the order of ``select`` when given (else ``prior``)."""
    from sklearn.linear_model import LogisticRegression

    n = len(prior)
    if not cfg.prf or n < cfg.prf_min_records or X.shape[1] <= 1:
        return prior
    order = np.argsort(-(prior if select is None else select), kind="stable")
    pos = order[: cfg.prf_top_k(n)]
    neg = order[int(n * (1 - cfg.prf_bottom_frac)):]
    idx = np.r_[pos, neg]
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    clf = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit(X[idx], y)
    return zscore(clf.decision_function(X)) + cfg.prf_prior_weight * zscore(prior)


def rest_of_pipeline(scores: np.ndarray, c: dict[str, np.ndarray]) -> np.ndarray:
    blend = float(c["blend"])
    if blend:
        scores = zscore(scores) + blend * zscore(c["trans"])
    if BASE.tail_transformer_frac:
        scores = rerank_tail(scores, c["trans"], BASE.tail_transformer_frac, BASE.tail_transformer_weight)
    return scores


def variant_scores(family: str, w, c: dict[str, np.ndarray], f: np.ndarray, tfidf: sparse.csr_matrix,
                   memo: dict) -> np.ndarray:
    if w == 0 or w == (0.0, 0.0):
        return c["zs"]
    if family == "tail":  # the bottom ``frac`` of today's list re-ordered with the feature (rerank_tail)
        frac, weight = w
        return rerank_tail(c["zs"], f, frac, weight)
    if family == "head":  # the top ``frac`` of today's list re-ordered with the feature, the rest untouched
        frac, weight = w
        if frac >= 1:  # the whole list
            return zscore(c["zs"]) + weight * zscore(f)
        return -rerank_tail(-c["zs"], -f, frac, weight)
    if family == "post":
        return zscore(c["zs"]) + w * f
    if family == "tier":
        return f * 1e6 + zscore(c["zs"])  # the feature first, zs within a tier
    if family == "prfcol":  # the feature as a column beside TF-IDF in the PRF round: its weight learned there
        X = sparse.hstack([tfidf, sparse.csr_matrix(w * f[:, None])]).tocsr()
        return rest_of_pipeline(prf(c["prior"], X), c)
    if family == "select":  # the feature only picks PRF's pseudo-examples; the prior blended back unchanged
        return rest_of_pipeline(prf(c["prior"], tfidf, select=c["prior"] + w * f), c)
    key = (id(f), w)
    if key not in memo:
        memo[key] = rest_of_pipeline(prf(c["prior"] + w * f, tfidf), c)
    pre = memo[key]
    return pre if family == "pre" else zscore(pre) + w * f


FAMILIES = {"post": (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0), "tier": (0.0, 1.0),
            "pre": (0.0, 0.5, 1.0, 2.0, 4.0), "both": (0.0, 0.25, 0.5, 1.0, 2.0),
            "select": (0.0, 0.5, 1.0, 2.0, 4.0), "prfcol": (0.0, 0.5, 1.0, 2.0, 4.0),
            "tail": ((0.0, 0.0), (0.3, 0.5), (0.3, 1.0), (0.3, 2.0), (0.3, 4.0), (0.5, 0.5), (0.5, 1.0), (0.5, 2.0),
                     (0.5, 4.0), (0.7, 0.5), (0.7, 1.0), (0.7, 2.0), (0.7, 4.0)),
            "head": ((0.0, 0.0), *((f, w) for f in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0) for w in (0.25, 0.5, 1.0, 2.0)))}


def metrics(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    return {k: round(float(v), 4) for k, v in evaluate_order(labels[order_from_scores(scores)]).items()}


def objective(rows: dict[str, dict[str, float]], names: list[str]) -> float:
    drug = [rows[n]["wss95"] for n in names if is_drug_review(n)]
    other = [rows[n]["wss95"] for n in names if not is_drug_review(n)]
    return (float(np.mean(drug)) + float(np.mean(other))) / 2


def held_out(grid: dict[float, dict[str, dict[str, float]]], names: list[str]) -> tuple[dict, dict]:
    """For each review, the weight best on the other 17 (ties: the smallest), and its figures there."""
    picks, rows = {}, {}
    for name in names:
        rest = [n for n in names if n != name]
        keys = list(grid)  # mildest first: a tie goes to the milder setting
        w = max(keys, key=lambda v: (objective(grid[v], rest), -keys.index(v)))
        picks[name], rows[name] = w, grid[w][name]
    return picks, rows


def summary(rows: dict[str, dict[str, float]], dense: dict[str, float], names: list[str]) -> str:
    parts = []
    for label, group in (("all", names), ("drug", [n for n in names if is_drug_review(n)]),
                         ("other", [n for n in names if not is_drug_review(n)])):
        wss = np.mean([rows[n]["wss95"] for n in group])
        r10 = np.mean([rows[n]["recall10"] for n in group])
        below = sum(rows[n]["wss95"] < dense[n] for n in group)
        parts.append(f"{label} {wss:.4f}/r10 {r10:.3f}/below {below}")
    return "  ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/zsq"))
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--families", nargs="*", default=list(FAMILIES))
    ap.add_argument("--features", nargs="*", default=["all", "share", "title", "share+title", "idf", "title_idf"])
    ap.add_argument("--kinds", nargs="*", default=["none", "pool"])
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    comps = build_components(args.data, args.cache)
    if args.build_only:
        return
    queries = build_queries(args.data, args.cache)
    names = sorted(comps)
    reviews = {n: load_review(args.data / n) for n in names}
    tfidf = {n: sparse.load_npz(args.cache / f"{n}.tfidf.npz").tocsr() for n in names}
    dense = {n: metrics(comps[n]["dense_onnx"], comps[n]["labels"])["wss95"] for n in names}
    today = {n: metrics(comps[n]["zs"], comps[n]["labels"]) for n in names}
    check = {n: metrics(rest_of_pipeline(prf(comps[n]["prior"], tfidf[n]), comps[n]), comps[n]["labels"])["wss95"]
             for n in names}
    print("rebuilt pipeline == zs on", sum(abs(check[n] - today[n]["wss95"]) < 1e-4 for n in names), "of", len(names))
    print(f"{'today':28s} {summary(today, dense, names)}")
    report: dict = {"today": today, "dense_onnx": dense, "queries": queries, "variants": {}}
    for kind in args.kinds:
        feats = {n: query_features(queries[n][kind], reviews[n].titles, reviews[n].abstracts) for n in names}
        for n in names:
            feats[n]["share+title"] = feats[n]["share"] + feats[n]["title"]
            y = comps[n]["labels"].astype(bool)
            if args.verbose:
                print(f"  {kind} {n[:30]:30s} " + " ".join(
                    f"{k}: inc {feats[n][k][y].mean():.2f} exc {feats[n][k][~y].mean():.2f}"
                    for k in ("all", "share", "main", "title")))
        memo: dict = {}  # the pre-PRF pipelines, shared by ``pre`` and ``both``
        cands: dict[str, dict[str, dict[str, float]]] = {"today": today}  # every grid point of this kind
        for family in args.families:
            for feat in args.features:
                grid = {w: {n: metrics(variant_scores(family, w, comps[n], feats[n][feat], tfidf[n], memo),
                                       comps[n]["labels"]) for n in names} for w in FAMILIES[family]}
                picks, rows = held_out(grid, names)
                label = f"{kind}/{family}/{feat}"
                insample = " ".join(f"{w}:{objective(grid[w], names):.3f}" for w in FAMILIES[family])
                print(f"{label:28s} {summary(rows, dense, names)}  picks {sorted(set(picks.values()))}\n"
                      f"    in-sample [{insample}]", flush=True)
                report["variants"][label] = {"picks": {k: str(v) for k, v in picks.items()}, "rows": rows,
                                             "grid": {str(w): g for w, g in grid.items()}}
                cands.update({f"{family}/{feat}@{w}": g for w, g in grid.items() if w not in (0.0, (0.0, 0.0))})
        nested(kind, cands, args.families, dense, names, report)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))


def nested(kind: str, cands: dict, families: list[str], dense: dict[str, float], names: list[str],
           report: dict) -> None:
    """The whole choice held out: for each review, the family, feature and weight best on the other 17 (within
    each family, then over all of them; today first, so a tie keeps today)."""
    for fam in [*families, "any"]:
        sub = {k: g for k, g in cands.items() if k == "today" or fam == "any" or k.startswith(fam + "/")}
        picks, rows = held_out(sub, names)
        print(f"{kind}/nested/{fam:14s} {summary(rows, dense, names)}  picks {sorted(set(picks.values()))[:4]}",
              flush=True)
        report["variants"][f"{kind}/nested/{fam}"] = {"picks": picks, "rows": rows}
        if fam == "any":
            for n in names:
                t, r = cands["today"][n], rows[n]
                print(f"  {n[:32]:32s} dense_onnx {dense[n]:.3f}  today {t['wss95']:.3f} r10 {t['recall10']:.3f}"
                      f"  -> {r['wss95']:.3f} r10 {r['recall10']:.3f}  ({picks[n]})")

if __name__ == "__main__":
    main()
