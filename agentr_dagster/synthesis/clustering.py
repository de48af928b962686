"""Deterministic clustering of unit-norm embeddings and labelling of clusters by distinctive key phrases."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from agentr_dagster.domain.text import extract_phrases, is_near_duplicate

SEED = 0  # fixed: the same inputs always give the same clusters
SILHOUETTE_SAMPLE = 2000  # silhouette is O(n^2): score a fixed sample on large projects
AGGLOMERATIVE_MAX = 3000  # above this many points, k-means instead of an O(n^2) linkage


def _relabel_by_size(labels: np.ndarray) -> np.ndarray:
    """Cluster 0 is the largest; ties go to the cluster whose first member comes first."""
    order = sorted(set(labels.tolist()), key=lambda c: (-(labels == c).sum(), int(np.argmax(labels == c))))
    mapping = {old: new for new, old in enumerate(order)}
    return np.array([mapping[c] for c in labels.tolist()], dtype=int)


def merge_small(x: np.ndarray, labels: np.ndarray, min_size: int) -> np.ndarray:
    """Fold clusters smaller than ``min_size`` into the nearest remaining centroid, smallest first."""
    labels = labels.copy()
    while True:
        sizes = Counter(labels.tolist())
        if len(sizes) <= 1:
            return labels
        small = [c for c, n in sizes.items() if n < min_size]
        if not small:
            return labels
        victim = min(small, key=lambda c: (sizes[c], c))
        others = [c for c in sizes if c != victim]
        centroids = np.stack([x[labels == c].mean(axis=0) for c in others])
        for i in np.flatnonzero(labels == victim):
            labels[i] = others[int(np.argmax(centroids @ x[i]))]


def choose_clusters(x: np.ndarray, k_max: int, min_size: int, tolerance: float = 0.02) -> tuple[np.ndarray, float]:
    """k-means for k in 2..k_max; small clusters merged; the largest k whose silhouette (cosine) is within
    ``tolerance`` of the best wins (a related-work section reads better with a few themes than with two).
    Returns labels (0 = largest cluster) and the silhouette, or all zeros and 0.0 if no split is worth it."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    n = len(x)
    k_max = min(k_max, n // max(1, min_size))
    if n < 2 * min_size or k_max < 2:
        return np.zeros(n, dtype=int), 0.0
    scored: list[tuple[int, float, np.ndarray]] = []
    for k in range(2, k_max + 1):
        km = KMeans(n_clusters=k, n_init=4, random_state=SEED).fit(x)
        labels = merge_small(x, km.labels_.astype(int), min_size)
        if len(set(labels.tolist())) < 2:
            continue
        score = float(silhouette_score(x, labels, metric="cosine", sample_size=min(n, SILHOUETTE_SAMPLE),
                                       random_state=SEED))
        scored.append((len(set(labels.tolist())), score, labels))
    if not scored:
        return np.zeros(n, dtype=int), 0.0
    best = max(s for _, s, _ in scored)
    k, score, labels = max((c for c in scored if c[1] >= best - tolerance), key=lambda c: (c[0], c[1]))
    return _relabel_by_size(labels), score


def threshold_clusters(x: np.ndarray, distance: float) -> np.ndarray:
    """Average-linkage clusters whose members are within ``distance`` (cosine) on average; k-means with
    k = sqrt(n) on very large inputs. Labels: 0 = largest."""
    n = len(x)
    if n == 0:
        return np.zeros(0, dtype=int)
    if n == 1:
        return np.zeros(1, dtype=int)
    if n > AGGLOMERATIVE_MAX:
        from sklearn.cluster import KMeans

        k = int(math.sqrt(n))
        return _relabel_by_size(KMeans(n_clusters=k, n_init=2, random_state=SEED).fit(x).labels_.astype(int))
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(n_clusters=None, distance_threshold=distance, metric="cosine", linkage="average")
    return _relabel_by_size(model.fit(x).labels_.astype(int))


def medoid(x: np.ndarray, members: list[int]) -> int:
    """The member closest on average to the others (ties: the earliest)."""
    if len(members) == 1:
        return members[0]
    sub = x[members]
    mean_sim = (sub @ sub.T).mean(axis=1)
    return members[int(np.argmax(np.round(mean_sim, 6)))]


_NOISE_RE = re.compile(r"^(?:[\d.]+|[a-z]|et al)$", re.I)


def doc_phrases(texts: list[str], per_doc: int = 15) -> list[dict[tuple[str, ...], str]]:
    """Each document's best key phrases: {stem key: display text}."""
    out = []
    for text in texts:
        found: dict[tuple[str, ...], str] = {}
        for phrase in extract_phrases(text)[: per_doc * 2]:
            if len(found) >= per_doc:
                break
            if _NOISE_RE.match(phrase.text) or len(phrase.text) < 3:
                continue
            found.setdefault(phrase.key, phrase.text)
        out.append(found)
    return out


def distinctive_phrases(
    phrases: list[dict[tuple[str, ...], str]], groups: list[list[int]], k: int = 3,
    exclude: list[tuple[str, ...]] | None = None,
) -> list[list[str]]:
    """For each group of documents, its ``k`` most distinctive phrases (class-based TF-IDF): the share of the
    group's documents holding a phrase times log(1 + documents / documents holding it anywhere)."""
    members = [i for g in groups for i in g]
    total = len(members)
    df_all: Counter = Counter()
    display: dict[tuple[str, ...], Counter] = {}
    for i in members:
        for key, text in phrases[i].items():
            df_all[key] += 1
            display.setdefault(key, Counter())[text] += 1
    out = []
    for group in groups:
        df: Counter = Counter()
        for i in group:
            df.update(phrases[i].keys())
        need = 2 if len(group) >= 3 else 1
        ranked = sorted(
            (key for key, n in df.items() if n >= need),
            key=lambda key: (-(df[key] / len(group)) * math.log(1 + total / df_all[key]), -len(key), key),
        )
        chosen: list[tuple[str, ...]] = list(exclude or [])
        picked: list[str] = []
        for key in ranked:
            if len(picked) >= k:
                break
            if is_near_duplicate(key, chosen):
                continue
            chosen.append(key)
            picked.append(display[key].most_common(1)[0][0])
        out.append(picked)
    return out


def label_from(phrases: list[str], fallback: str) -> str:
    if not phrases:
        return fallback
    text = phrases[0] if len(phrases) == 1 else f"{phrases[0]} and {phrases[1]}"
    return text[:1].upper() + text[1:]
