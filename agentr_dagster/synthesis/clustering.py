"""Deterministic clustering of unit-norm embeddings and labelling of clusters by distinctive key phrases."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np

from agentr_dagster.domain.text import GENERIC_WORDS, extract_phrases, is_near_duplicate

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
    n = len(x)
    k_max = min(k_max, n // max(1, min_size))
    if n < 2 * min_size or k_max < 2:
        return np.zeros(n, dtype=int), 0.0
    with _threads(n):
        return _choose_clusters(x, k_max, min_size, tolerance)


def _threads(n: int):
    """One BLAS/OpenMP thread for small inputs: thread start-up costs more than the work (and the runs of a
    busy 2-core machine would otherwise fight over the cores)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1) if n < 5000 else threadpool_limits(limits=None)


def _choose_clusters(x: np.ndarray, k_max: int, min_size: int, tolerance: float) -> tuple[np.ndarray, float]:
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    n = len(x)
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


Phrases = dict[tuple[str, ...], tuple[str, float]]  # stem key -> (display text, weight)
TITLE_WEIGHT = 1.0
ABSTRACT_WEIGHT = 0.4  # a title names what a paper is about more reliably than its abstract does


def doc_phrases(texts: list[str], per_doc: int = 15, titles: list[str] | None = None) -> list[Phrases]:
    """Each document's key phrases with a weight: title phrases and their shorter pieces (so papers sharing
    "cost" inside "software development cost uncertainty" and "cost prediction systems" are seen to share it),
    then the abstract's best phrases."""
    out = []
    for n, text in enumerate(texts):
        found: Phrases = {}
        for phrase in extract_phrases(titles[n]) if titles else []:
            words = phrase.text.split()
            if len(words) != len(phrase.key):
                found.setdefault(phrase.key, (phrase.text, TITLE_WEIGHT))
                continue
            for size in range(len(words), 0, -1):
                for start in range(len(words) - size + 1):
                    shown = words[start : start + size]
                    if size == 1 and (shown[0].casefold() in GENERIC_WORDS or len(shown[0]) < 4):
                        continue
                    found.setdefault(phrase.key[start : start + size], (" ".join(shown), TITLE_WEIGHT))
        kept = 0
        for phrase in extract_phrases(text):
            if kept >= per_doc:
                break
            # A lone abstract word ("project", "experience") rarely names a theme.
            if _NOISE_RE.match(phrase.text) or len(phrase.text) < 3 or len(phrase.key) < 2:
                continue
            kept += 1
            found.setdefault(phrase.key, (phrase.text, ABSTRACT_WEIGHT))
        out.append(found)
    return out


_ADJECTIVE_RE = re.compile(r"(?:ical|al|ive|ic|ous|ary|able|ible|ful|less)$")


def _length_weight(key: tuple[str, ...]) -> float:
    # "software measurement" labels a theme better than "information"; a whole phrase better than its piece.
    return {1: 1.0, 2: 1.5, 3: 1.65}.get(len(key), 1.7)


def distinctive_phrases(
    phrases: list[Phrases], groups: list[list[int]], k: int = 3, exclude: list[tuple[str, ...]] | None = None,
    background: list[int] | None = None,
) -> list[list[str]]:
    """For each group of documents, its ``k`` most distinctive phrases (class-based TF-IDF): the weighted share
    of the group's documents holding a phrase times log(documents / documents holding it anywhere), so a
    phrase every paper shares ("software") names no theme.
    Phrases held by at least two of the group's documents come first (one when the group is that small).
    Document frequencies come from ``background`` (default: the groups' documents); a single word held by more
    than a quarter of the background documents is never a label."""
    members = background if background is not None else [i for g in groups for i in g]
    total = len(members)
    df_all: Counter = Counter()
    display: dict[tuple[str, ...], Counter] = {}
    for i in members:
        for key, (text, _) in phrases[i].items():
            df_all[key] += 1
            display.setdefault(key, Counter())[text] += 1
    for group in groups:
        for i in group:
            for key, (text, _) in phrases[i].items():
                df_all[key] = max(df_all[key], 1)
                display.setdefault(key, Counter())[text] += 0
    banned = {key for key, n in df_all.items() if len(key) == 1 and n > max(2, total / 4)}
    banned |= {key for key in df_all if len(key) == 1 and _ADJECTIVE_RE.search(key[0])}  # "empirical" names nothing
    out = []
    labelled: list[tuple[str, ...]] = []  # phrases naming an earlier (larger) sibling do not name this one
    for group in groups:
        count: Counter = Counter()
        weight: defaultdict[tuple[str, ...], float] = defaultdict(float)
        for i in group:
            for key, (_, w) in phrases[i].items():
                count[key] += 1
                weight[key] += w

        def score(key: tuple[str, ...], group=group, weight=weight) -> float:
            idf = math.log(max(total, df_all[key]) / df_all[key] + 0.05)
            return (weight[key] / len(group)) * idf * _length_weight(key)

        need = 2 if len(group) >= 3 else 1
        candidates = [key for key in count if key not in banned]
        ranked = sorted((key for key in candidates if count[key] >= need), key=lambda key: (-score(key), key))
        ranked += sorted((key for key in candidates if count[key] < need), key=lambda key: (-score(key), key))
        chosen: list[tuple[str, ...]] = list(exclude or [])
        picked: list[str] = []
        for key in ranked:
            if len(picked) >= k:
                break
            if is_near_duplicate(key, chosen) or (len(picked) < 2 and key in labelled):
                continue
            chosen.append(key)
            picked.append(display[key].most_common(1)[0][0])
            if len(picked) <= 2:
                labelled.append(key)
        out.append(picked)
    return out


def label_from(phrases: list[str], fallback: str) -> str:
    if not phrases:
        return fallback
    text = phrases[0] if len(phrases) == 1 else f"{phrases[0]} and {phrases[1]}"
    return text[:1].upper() + text[1:]
