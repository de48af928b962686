"""The relevance stage: every candidate's relevance score and rank from the screening engine, stored per paper.

The engine is the one behind ``agentr screen`` and ``agentr rerank`` (:func:`agentr_dagster.screening.screen.screen`
with the default preset): zero-shot from the project's question, and learning from the project's include/exclude
labels (``agentr label``) when there are any. The question is the project's abstract, exactly what
``agentr screen --question`` would be given; a project without an abstract falls back to its research intent
(problem statement and seed keywords). The stored rows carry the engine's version and a fingerprint of their
inputs: an unchanged project (same question, papers, labels and engine) is not ranked again. A ranking learnt from
labels also says how far it moved from the zero-shot order (``RelevanceOutcome.versus_zero_shot``, stored beside it
by input hash).

The project's seed studies (``agentr queries SLUG --seeds FILE``, :mod:`agentr_dagster.stages.seeds`) are evidence
too (:func:`seed_evidence`): a seed that is one of the candidates (same DOI, or same normalised title) is a
labelled include unless the person labelled that paper (the person's label wins); a seed with a title that is no
candidate trains the learner as an extra include and is never ranked, stored or exported. The fingerprint
covers the seeds, so adding one re-ranks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from agentr_dagster.domain.hashing import sha256
from agentr_dagster.screening.calibration import CountEstimate
from agentr_dagster.screening.version import engine_version
from agentr_dagster.stages.lifecycle import require_active
from agentr_dagster.store.rows import PaperRow, RelevanceRow

if TYPE_CHECKING:  # pragma: no cover - pandas and the engine are imported where a ranking is computed, so that
    import pandas as pd  # the scoring stage's queue (which needs neither until it re-ranks) stays cheap to load

    from agentr_dagster.screening.active import Learner
    from agentr_dagster.screening.versus import VersusZeroShot
    from agentr_dagster.store import DomainStore

__all__ = ["RelevanceOutcome", "SeedEvidence", "current_relevance", "person_labels", "question_concepts",
           "rank_project", "reasons", "relevance_question", "seed_evidence", "training_labels"]

STAGE = "relevance"
TOP_N = 10


@dataclass
class RelevanceOutcome:
    papers: int
    includes_used: int  # the person's labels the ranking learnt from
    excludes_used: int
    method: str  # zero-shot | active | none (no candidates)
    engine_version: str
    estimated_relevant: float | None  # how many includes the list holds (= estimate.estimate)
    reused: bool  # inputs unchanged since the last ranking: nothing recomputed
    input_hash: str = ""  # fingerprint of question, papers, labels and engine version
    scores: list[float] = field(default_factory=list)  # P(include) per paper, best first
    labels: list[str] = field(default_factory=list)  # include/exclude/"" per score, best first
    top: pd.DataFrame | None = None  # rank, paper_id, p_include, label, title, why: the 10 best unlabelled papers
    labelled: pd.DataFrame | None = None  # the same columns: every labelled paper, in rank order
    estimate: CountEstimate | None = None  # the count of includes with its interval
    # with labels: how far the learned order moved from the zero-shot one on the unlabelled papers (None without)
    versus_zero_shot: VersusZeroShot | None = None
    # the project's seed studies: those the ranking learnt from as includes (the outside ones, and the matched
    # ones the person did not exclude), those among the candidates, those outside them (extra training records)
    seeds_used: int = 0
    seeds_matched: int = 0
    seeds_outside: int = 0

    @property
    def estimate_text(self) -> str:
        """The count of includes as the UI and CLI show it."""
        if self.estimate is None:
            return "unknown (no candidates)"
        e = self.estimate
        return (f"{e.estimate:.0f} includes expected (likely {e.low:.0f}-{e.high:.0f}; {e.found} labelled include; "
                "the unlabelled from a prior fitted on 18 labelled reviews)")


def relevance_question(store: DomainStore, slug: str) -> str:
    """The text the engine ranks against: the project's abstract; without one, its intent's problem statement
    and seed keywords (empty when neither exists)."""
    abstract = (store.projects.get_project(slug).abstract or "").strip()
    if abstract:
        return abstract
    artifact = store.results.latest_artifact(slug, "intent")
    if artifact is None or not isinstance(artifact.payload, dict):
        return ""
    payload = artifact.payload
    keywords = ", ".join(map(str, payload.get("seed_keywords", [])))
    return f"{payload.get('problem_statement', '')} {keywords}".strip()


def person_labels(store: DomainStore, slug: str) -> dict[int, int]:
    """{paper_id: 1 include | 0 exclude}: the project's labels on live papers (a person's decisions)."""
    return {row.paper_id: 1 if row.label == "include" else 0 for row in store.labels.list_labels(slug)}


@dataclass
class SeedEvidence:
    """The project's seed studies as ranking evidence: ``matched`` the candidates a seed names (paper id -> 1),
    ``outside`` the (title, abstract) of the seeds with a title that name no candidate, ``fingerprint`` one
    string per stored seed (for the input hash)."""

    matched: dict[int, int] = field(default_factory=dict)
    outside: list[tuple[str, str]] = field(default_factory=list)
    fingerprint: list[str] = field(default_factory=list)


def seed_evidence(store: DomainStore, slug: str, papers: list[PaperRow]) -> SeedEvidence:
    """The stored seed studies matched to ``papers`` (:func:`~agentr_dagster.stages.seeds.match_seeds`: by DOI,
    else by normalised title). A seed given by DOI alone that names no candidate has no text to learn from and is
    left out."""
    from agentr_dagster.stages.seeds import SEEDS_STAGE, match_seeds

    artifact = store.results.latest_artifact(slug, SEEDS_STAGE)
    seeds = artifact.payload.get("seeds", []) if artifact is not None and isinstance(artifact.payload, dict) else []
    matched, outside = match_seeds(seeds, [(p.id, p.title, p.doi) for p in papers])
    return SeedEvidence(matched=dict.fromkeys(matched, 1), outside=outside,
                        fingerprint=[f"seed:{s.get('doi') or ''}|{s.get('title') or ''}|{s.get('abstract') or ''}"
                                     for s in seeds])


def training_labels(person: dict[int, int], seeds: SeedEvidence) -> dict[int, int]:
    """The labels the ranking learns from: the seed-matched candidates as includes, the person's labels over
    them (a person's exclude of a seed-matched paper wins)."""
    return {**seeds.matched, **person}


def _input_hash(question: str, papers: list[PaperRow], labels: dict[int, int], version: str,
                seeds: list[str] | None = None) -> str:
    # without seeds the hash is the one stored before seeds counted (a project without seeds is not re-ranked)
    return sha256(question, version, *(f"{p.id}:{p.content_hash}" for p in sorted(papers, key=lambda p: p.id)),
                  *(f"{pid}={lab}" for pid, lab in sorted(labels.items())), *(seeds or []))


def current_relevance(store: DomainStore, slug: str) -> dict[int, RelevanceRow]:
    """The stored relevance of the project's live papers by paper id (empty before the stage has run)."""
    return {row.paper_id: row for row in store.relevance.for_project(slug)}


def ranking_is_current(store: DomainStore, slug: str) -> bool:
    """The stored ranking is the one the question, papers, labels and engine version call for (a label given since
    makes it stale: the labels sensor, or the next run, re-ranks)."""
    stored = store.relevance.for_project(slug)
    if not stored:
        return False
    papers = store.projects.list_papers(slug)
    wanted = _input_hash(relevance_question(store, slug), papers, person_labels(store, slug), engine_version(),
                         seed_evidence(store, slug, papers).fingerprint)
    return len(stored) == len(papers) and all(row.input_hash == wanted for row in stored)


ESTIMATE_STAGE = "relevance_estimate"  # artifact: the count of includes of the stored ranking (by input hash)
VERSUS_STAGE = "relevance_versus_zero_shot"  # artifact: a learned ranking against the zero-shot order (by input hash)


def rank_project(store: DomainStore, slug: str, *, run_id: str | None = None, embedder=None) -> RelevanceOutcome:
    """Rank every live candidate of the project with the screening engine and store score and rank per paper.

    Reuses the stored ranking when the question, the papers' text, the labels, the seed studies and the engine
    version are all unchanged (``reused=True``). Seed studies count as includes (see :func:`seed_evidence`)."""
    import pandas as pd

    from agentr_dagster.screening.screen import screen

    require_active(store, slug, STAGE, run_id)
    version = engine_version()
    papers = store.projects.list_papers(slug)
    person = person_labels(store, slug)
    seeds = seed_evidence(store, slug, papers)
    labels = training_labels(person, seeds)  # what the ranking learns from
    question = relevance_question(store, slug)
    input_hash = _input_hash(question, papers, person, version, seeds.fingerprint)
    stored = current_relevance(store, slug)
    by_id = {p.id: p for p in papers}
    includes = sum(1 for v in person.values() if v == 1)
    outcome = RelevanceOutcome(papers=len(papers), includes_used=includes, excludes_used=len(person) - includes,
                               method="none", engine_version=version, estimated_relevant=None, reused=False,
                               input_hash=input_hash,
                               seeds_used=sum(1 for pid in seeds.matched if labels[pid] == 1) + len(seeds.outside),
                               seeds_matched=len(seeds.matched), seeds_outside=len(seeds.outside))
    if not papers:
        store.relevance.replace(slug, [], method="none", engine_version=version, input_hash=input_hash)
        return outcome
    reusable = len(stored) == len(papers) and all(r.input_hash == input_hash for r in stored.values())
    saved = store.results.latest_artifact(slug, ESTIMATE_STAGE) if reusable else None
    if reusable and saved is not None and saved.input_hash == input_hash:
        ranked = sorted(stored.values(), key=lambda r: r.rank)
        ids = [r.paper_id for r in ranked]
        scores = np.array([r.score for r in ranked])
        outcome.method, outcome.reused = ranked[0].method, True
        outcome.estimate = CountEstimate(**saved.payload)
        versus = store.results.latest_artifact(slug, VERSUS_STAGE) if labels or seeds.outside else None
        if versus is not None and versus.input_hash == input_hash:
            from agentr_dagster.screening.versus import VersusZeroShot

            outcome.versus_zero_shot = VersusZeroShot.from_dict(versus.payload)
    else:
        frame = pd.DataFrame({"record_id": [str(p.id) for p in papers], "title": [p.title for p in papers],
                              "abstract": [p.abstract or "" for p in papers]})
        # The papers were de-duplicated at import: every one is ranked.
        result = screen(question, frame, {str(k): v for k, v in labels.items()} or None, embedder=embedder,
                        dedupe=False, extra_includes=seeds.outside)
        ids = [int(r) for r in result["record_id"]]
        # stored: the calibrated probability of inclusion (a labelled paper's is its label), in the engine's order
        scores = result["probability"].to_numpy(dtype=np.float64)
        outcome.method = str(result["method"].iloc[0])
        outcome.estimate = result.attrs["estimate"]
        ranked_rows = [(pid, float(s), i + 1) for i, (pid, s) in enumerate(zip(ids, scores, strict=True))]
        store.relevance.replace(slug, ranked_rows, method=outcome.method, engine_version=version,
                                input_hash=input_hash)
        store.results.save_artifact(slug, ESTIMATE_STAGE, asdict(outcome.estimate), prompt_version=version,
                                    model=None, backend=None, input_hash=input_hash)
        outcome.versus_zero_shot = result.attrs.get("versus_zero_shot")
        if outcome.versus_zero_shot is not None:
            store.results.save_artifact(slug, VERSUS_STAGE, outcome.versus_zero_shot.as_dict(),
                                        prompt_version=version, model=None, backend=None, input_hash=input_hash)
    label_vec = np.array([labels.get(pid, -1) for pid in ids])
    outcome.scores = [float(s) for s in scores]
    outcome.labels = ["include" if v == 1 else "exclude" if v == 0 else "" for v in label_vec]
    outcome.estimated_relevant = outcome.estimate.estimate
    # What to screen next: the best papers nobody has decided on; the decided ones are listed apart.
    unlabelled = [i for i, lab in enumerate(outcome.labels) if not lab]
    labelled = [i for i, lab in enumerate(outcome.labels) if lab]
    listed = [ids[i] for i in unlabelled[:TOP_N] + labelled]
    why = reasons(question, [by_id[pid] for pid in listed], embedder=embedder,
                  include_texts={pid: _text(by_id[pid]) for pid, v in labels.items() if v == 1 and pid in by_id})
    outcome.top = _listing(unlabelled[:TOP_N], ids, scores, outcome.labels, by_id, why)
    outcome.labelled = _listing(labelled, ids, scores, outcome.labels, by_id, why)
    return outcome


def _text(paper: PaperRow) -> str:
    return f"{paper.title}. {paper.abstract or ''}".strip()


WHY_CONCEPTS = 12  # the question's key phrases a paper is matched against
WHY_SHOWN = 3


def question_concepts(question: str) -> list[str]:
    """The question's key phrases (its most distinctive multi-word and single-word terms), best first."""
    from agentr_dagster.domain.text import collect_phrases, score_phrases, split_sentences, top_phrases

    sentences = split_sentences(question) or [question]
    return [p.text for p in top_phrases(score_phrases(collect_phrases(sentences), len(sentences)), WHY_CONCEPTS)]


def reasons(question: str, papers: list[PaperRow], *, embedder=None,
            include_texts: dict[int, str] | None = None) -> dict[int, str]:
    """A short "why" per paper, for a reader: the question's key phrases its title and abstract name (in any
    variant: abbreviation or expansion, plural, spelling), and, once the person labelled includes, the nearest of
    them by embedding (the learner ranks papers like the includes high). Not the engine's computation itself: what
    in the paper a reader can check against the rank."""
    from agentr_dagster.domain.concept_match import ConceptText

    concepts = question_concepts(question)
    out: dict[int, str] = {}
    for paper in papers:
        matched = ConceptText(_text(paper), context=[question]).matched(concepts)[:WHY_SHOWN]
        out[paper.id] = (("names " + ", ".join(f"'{c}'" for c in matched)) if matched else
                         "names none of the question's key phrases (ranked by meaning)")
    includes = dict(include_texts or {})
    if includes and papers:
        if embedder is None:
            from agentr_dagster.domain.embeddings import get_embedder

            embedder = get_embedder()
        inc_ids = sorted(includes)
        inc = np.asarray(embedder.encode([includes[i] for i in inc_ids]), dtype=np.float64)
        vecs = np.asarray(embedder.encode([_text(p) for p in papers]), dtype=np.float64)
        sims = vecs @ inc.T
        for row, paper in enumerate(papers):
            order = [j for j in np.argsort(-sims[row], kind="stable") if inc_ids[j] != paper.id]
            if order:
                j = order[0]
                out[paper.id] += f"; nearest labelled include: paper {inc_ids[j]} (cosine {sims[row, j]:.2f})"
    return out


def _listing(rows: list[int], ids: list[int], scores: np.ndarray, labels: list[str],
             by_id: dict[int, PaperRow], why: dict[int, str] | None = None) -> pd.DataFrame:
    """The papers at positions ``rows`` of the ranking (0-based), with their rank, ids (ours and the file's), score
    (4 decimals: the probability falls strictly down the ranking, and 3 decimals would tie neighbours in long
    lists), label, title and why."""
    import pandas as pd

    return pd.DataFrame({
        "rank": [i + 1 for i in rows],
        "paper_id": [ids[i] for i in rows],
        "source_id": [by_id[ids[i]].source_id or "" for i in rows],  # the id in the user's own file
        "p_include": [round(float(scores[i]), 4) for i in rows],
        "label": [labels[i] for i in rows],
        "title": [by_id[ids[i]].title[:120] for i in rows],
        "why": [(why or {}).get(ids[i], "") for i in rows],
    })


# -- the LLM's judgements as relevance, and the scoring queue -------------------------------------------------

# A scored paper's judged relevance, on [0, 1]: the mean of the model's semantic similarity and its stronger
# criterion score (C1 direct competitor or C2 supporting work, 0-10) over 10. A paper at or above the threshold
# is a weak include for the active learner, below it a weak exclude.
WEAK_LABEL_THRESHOLD = 0.5
# A weak label's sample weight beside a person's (1): a person's decision outweighs the model's, and where both
# exist for one paper the person's replaces the model's.
WEAK_LABEL_WEIGHT = 0.5


def judged_relevance(payload: dict) -> float:
    """The model's judgement of a stored PaperAssessment payload on [0, 1] (see WEAK_LABEL_THRESHOLD)."""
    criterion = max(float(payload["c1_direct_competitor"]["score"]), float(payload["c2_supporting_work"]["score"]))
    return 0.5 * float(payload["semantic_similarity"]) + 0.5 * criterion / 10.0


def weak_label(payload: dict) -> int:
    return int(judged_relevance(payload) >= WEAK_LABEL_THRESHOLD)


class RelevanceQueue:
    """The papers left to score, best first: the stored relevance order at the start, re-ranked after each batch
    by the engine's active learner from the model's judgements so far (weak labels) and the person's labels.

    The features and the zero-shot prior are built on the first re-ranking, with the same preset, encoders and
    cleaned question as :func:`~agentr_dagster.screening.screen.screen`: the prior the learner blends in is then
    the stored zero-shot order itself (before, the queue built its features without the transformer, so its
    prior was the static model's alone, a weaker order than the one the run started from).

    ``seeds``: the project's seed studies, the evidence :func:`rank_project` learns from too: a seed-matched paper
    counts as a person's include (under the person's own label), an outside seed trains the learner as an extra
    include and is never in the queue."""

    def __init__(self, question: str, papers: list[PaperRow], person: dict[int, int],
                 stored: dict[int, RelevanceRow], *, embedder=None, transformer=None,
                 seeds: SeedEvidence | None = None):
        self.question = question
        self.papers = papers
        self.seeds = seeds or SeedEvidence()
        self.person = training_labels(person, self.seeds)
        self.embedder = embedder
        self.transformer = transformer  # None: the cached ONNX transformer when the preset uses it (as screen)
        self.index = {p.id: i for i, p in enumerate(papers)}
        # never ranked (added after the relevance asset ran): after the ranked ones, in paper order
        worst = max((r.rank for r in stored.values()), default=0)
        rank = np.array([stored[p.id].rank if p.id in stored else worst + 1 + i for i, p in enumerate(papers)])
        self.scores = -rank.astype(np.float64)
        self.reranked = False
        self.training: dict[int, tuple[int, float]] = {}  # the last re-ranking's labels: paper id -> (y, weight)
        self._learner: Learner | None = None

    def order(self, exclude: set[int] | None = None) -> list[int]:
        """Paper ids best first (those in ``exclude`` left out)."""
        exclude = exclude or set()
        return [self.papers[i].id for i in np.argsort(-self.scores, kind="stable")
                if self.papers[i].id not in exclude]

    def rerank(self, weak: dict[int, int]) -> None:
        """Re-learn from ``weak`` (paper id -> 0/1, the model's) and the person's labels, which replace the
        model's on the same paper and weigh more."""
        labels = {**weak, **self.person}
        extra = self.seeds.outside
        if not labels and not extra:
            return
        if self._learner is None:
            from agentr_dagster.screening.presets import get_preset
            from agentr_dagster.screening.screen import zero_shot_inputs

            preset = get_preset("default")
            # the outside seeds are ranked after the papers (features and prior), trained on, then cut off
            feats, prior = zero_shot_inputs(preset, self.question,
                                            [p.title for p in self.papers] + [t for t, _ in extra],
                                            [p.abstract or "" for p in self.papers] + [a for _, a in extra],
                                            self.embedder, self.transformer)
            self._learner = preset.learner(feats, prior)
        ids = [pid for pid in labels if pid in self.index]
        n = len(self.papers)
        idx = np.r_[np.array([self.index[pid] for pid in ids], dtype=np.int64), np.arange(n, n + len(extra))]
        y = np.r_[np.array([labels[pid] for pid in ids], dtype=np.int64), np.ones(len(extra), dtype=np.int64)]
        weights = np.r_[[1.0 if pid in self.person else WEAK_LABEL_WEIGHT for pid in ids], np.ones(len(extra))]
        self.training = {pid: (int(lab), float(w)) for pid, lab, w in zip(ids, y, weights, strict=False)}
        try:
            # The Learner protocol has no label weights; the preset's learner (active.py) takes them.
            weighted = self._learner.scores(idx, y, weights=weights)  # type: ignore[call-arg]
            self.scores = np.asarray(weighted, dtype=np.float64)[:n]
        except TypeError:  # a learner without label weights: the person's labels still replace the model's
            self.scores = np.asarray(self._learner.scores(idx, y), dtype=np.float64)[:n]
        self.reranked = True
