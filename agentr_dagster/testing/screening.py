"""Stand-ins for screening tests: a hashing embedder (no model files) and a synthetic labelled review."""

from __future__ import annotations

import hashlib
import re

import numpy as np


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder: a stand-in for the static model (no files needed)."""

    name = "test:hash-bow"
    dim = 64

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", str(t).lower()):
                h = int(hashlib.md5(w.encode()).hexdigest()[:8], 16)
                out[i, h % self.dim] += 1.0 if (h >> 8) & 1 else -1.0
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, n, out=np.zeros_like(out), where=n > 0)


def synthetic_review(n=400, n_inc=30, seed=0):
    """(titles, abstracts, labels): includes share hidden design words the question never mentions; every record
    matches the topic."""
    rng = np.random.default_rng(seed)
    topic = ["hypertension", "blood", "pressure", "ace", "inhibitor", "enalapril", "patients", "treatment"]
    hidden = ["randomized", "double-blind", "placebo", "crossover", "allocation", "masked", "titration"]
    other = ["cohort", "registry", "review", "editorial", "cost", "survey", "pharmacy", "guideline", "letter"]
    filler = [f"w{i}" for i in range(300)]
    titles, abstracts, y = [], [], []
    for i in range(n):
        inc = i < n_inc
        words = list(rng.choice(topic, 6)) + list(rng.choice(filler, 25))
        words += list(rng.choice(hidden if inc else other, 5 if inc else 6))
        if not inc and rng.random() < 0.5:
            words += list(rng.choice(topic, 6))  # many excludes are even more on-topic
        rng.shuffle(words)
        titles.append(" ".join(words[:8]))
        abstracts.append(" ".join(words[8:]))
        y.append(int(inc))
    perm = rng.permutation(n)
    return [titles[i] for i in perm], [abstracts[i] for i in perm], np.asarray(y)[perm]
