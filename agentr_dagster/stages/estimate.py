"""``agentr estimate <slug>``: tokens, USD and credits of the work a run would still do, before anything is spent.

What is counted is what the pipeline would call the model for, decided the way the pipeline decides it (a stage
whose stored artifact has the same input hash is reused; a paper whose score is stored under the same cache key
is skipped). Input tokens come from the real rendered prompts (``load_prompt(stage).render(...)``) plus the chat
format's per-message overhead. Tokenizer: tiktoken when its BPE file for the model's encoding is already in its
cache (it is never downloaded here), else an offline approximation of the same byte-pair tokenisation; the
estimate says which was used.

Output tokens: *expected* is the mean of this model's past calls of the stage when there are some, else the
stage's output cap; *upper bound* is the cap (what a reservation holds). USD and credits use the price and
multiplier in force now. Not included: repair rounds after a schema-invalid answer, retries, and papers that a
run's retrieval step may still add.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentr_dagster.domain import pricing as cost_rule
from agentr_dagster.domain.contracts import ResearchIntent
from agentr_dagster.domain.hashing import score_cache_key, sha256
from agentr_dagster.domain.prompts import load_prompt, prompt_version
from agentr_dagster.llm.gateway import MAX_OUTPUT_TOKENS, estimate_prompt_tokens
from agentr_dagster.settings import get_settings

if TYPE_CHECKING:
    from agentr_dagster.store import DomainStore

STAGES = ("intent", "queries", "score")
# OpenAI's chat format: each message costs its content plus ~3 tokens, and every reply is primed with 3 more
TOKENS_PER_MESSAGE = 3
TOKENS_PER_REPLY = 3
MIN_HISTORY = 3  # past calls of (model, stage) needed before their mean output is trusted over the cap

# sha256 of the BPE files tiktoken would download; a cached file must match before it is used (never fetched)
_TIKTOKEN_FILES = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}

# The GPT-4 pre-tokeniser's pieces, approximated with the standard library's ``re`` (no \p{L} classes).
_PIECES = re.compile(
    r"'(?:s|t|re|ve|m|ll|d)|[^\W\d_]+|\d{1,3}|\s*[\r\n]+|\s+(?!\S)|\s+|[^\s\w]+|_+",
    re.IGNORECASE,
)


def approx_tokens(text: str) -> int:
    """Offline token count modelled on byte-pair encodings with a 100k-200k vocabulary: a word of up to 7
    letters is one token, longer words about one per 5 letters; digits go in groups of 3; runs of punctuation
    about one token per 2 characters; whitespace attaches to the next word, except newline runs. English prose
    comes out near 4 characters a token, the usual figure for these encodings."""
    tokens = 0
    for piece in _PIECES.findall(text):
        if piece.isspace():
            tokens += 1 if ("\n" in piece or "\r" in piece) else 0
        elif piece[0].isalpha() or piece[0] == "'":
            tokens += 1 if len(piece) <= 7 else math.ceil(len(piece) / 5)
        elif piece[0].isdigit():
            tokens += 1
        else:
            tokens += math.ceil(len(piece) / 2)
    return tokens


@dataclass(frozen=True)
class Tokenizer:
    name: str  # "tiktoken:<encoding>" or "offline-approx"
    count: Callable[[str], int]
    note: str


def _tiktoken_cache_file(url: str) -> str | None:
    cache_dir = get_settings().paths.tiktoken_cache_dir
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None  # caching switched off: tiktoken would download every time
    return os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest())


def get_tokenizer(model: str) -> Tokenizer:
    """tiktoken if the model's encoding is already cached and intact; the offline approximation otherwise."""
    try:
        import tiktoken
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return Tokenizer("offline-approx", approx_tokens, "tiktoken is not installed")
    try:
        encoding = encoding_name_for_model(model)
    except KeyError:
        encoding = "o200k_base"  # not an OpenAI model: the current OpenAI encoding is the nearest yardstick
    if encoding not in _TIKTOKEN_FILES:
        encoding = "o200k_base"
    url, expected = _TIKTOKEN_FILES[encoding]
    path = _tiktoken_cache_file(url)
    if path is None or not os.path.exists(path):
        return Tokenizer("offline-approx", approx_tokens, f"tiktoken's {encoding} file is not cached (never fetched)")
    with open(path, "rb") as handle:
        if hashlib.sha256(handle.read()).hexdigest() != expected:
            return Tokenizer("offline-approx", approx_tokens, f"tiktoken's cached {encoding} file is damaged")
    enc = tiktoken.get_encoding(encoding)  # reads the verified cache file; no network
    return Tokenizer(f"tiktoken:{encoding}", lambda text: len(enc.encode(text, disallowed_special=())), "")


def chat_tokens(messages: list[dict[str, str]], count: Callable[[str], int]) -> int:
    return sum(count(m["content"]) + TOKENS_PER_MESSAGE for m in messages) + TOKENS_PER_REPLY


@dataclass
class StageEstimate:
    stage: str
    calls: int
    reused: int  # calls not needed: their result is stored
    input_tokens: int
    output_tokens_expected: int
    output_tokens_max: int
    output_basis: str  # "history (N calls)" or "cap"
    cost_usd_expected: Decimal
    credits_expected: Decimal
    cost_usd_max: Decimal
    credits_max: Decimal
    largest_reservation: Decimal  # the biggest single reservation the gateway would ask for


@dataclass
class ProjectEstimate:
    slug: str
    model: str
    provider: str
    tier: str
    backend: str  # "llm" or "offline"
    tokenizer: str
    stages: list[StageEstimate]
    pricing_id: int | None
    multiplier_id: int
    credits_per_usd: Decimal
    account: str
    balance: Decimal
    budget_credits: Decimal | None
    budget_committed: Decimal
    notes: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.stages)

    def total(self, name: str):
        start: Any = Decimal("0E-8") if name.startswith(("cost", "credits", "largest")) else 0
        if name == "largest_reservation":
            return max((s.largest_reservation for s in self.stages), default=start)
        return sum((getattr(s, name) for s in self.stages), start)

    @property
    def budget_remaining(self) -> Decimal | None:
        if self.budget_credits is None:
            return None
        return max(self.budget_credits - self.budget_committed, Decimal("0E-8"))

    def verdict(self) -> str:
        """Whether the remaining work fits the balance and the budget: fits / may not fit / does not fit."""
        room = self.balance if self.budget_remaining is None else min(self.balance, self.budget_remaining)
        if self.total("credits_max") <= room:
            return "fits"
        if self.total("credits_expected") <= room:
            return "may not fit"  # fits as expected, not at the output caps
        return "does not fit"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["totals"] = {
            k: self.total(k)
            for k in ("calls", "input_tokens", "output_tokens_expected", "output_tokens_max", "cost_usd_expected",
                      "credits_expected", "cost_usd_max", "credits_max", "largest_reservation")
        }
        data["budget_remaining"] = self.budget_remaining
        data["verdict"] = self.verdict()
        return data


def estimate_project(
    store: DomainStore,
    slug: str,
    *,
    model: str,
    provider: str = "default",
    tier: str = "standard",
    backend: str = "llm",
    tokenizer: Tokenizer | None = None,
) -> ProjectEstimate:
    """Project the remaining LLM work of ``slug`` under ``model``; reads only, reserves and spends nothing."""
    project = store.projects.get_project(slug)
    tok = tokenizer or get_tokenizer(model)
    notes = [f"tokenizer: {tok.name}" + (f" ({tok.note})" if tok.note else "")]
    price = store.ledger.pricing_in_force(model, provider=provider, tier=tier)
    if price is None and provider != "default":
        price = store.ledger.pricing_in_force(model, tier=tier)
    multiplier = store.ledger.multiplier_in_force()
    prices = None if price is None else cost_rule.Prices(
        price.input_usd_per_m, price.output_usd_per_m, price.cached_input_usd_per_m
    )
    if prices is None:
        notes.append(f"no price in force for {model!r}: its calls would be recorded at zero cost "
                     f"(set one: agentr pricing set {model} --input ... --output ...)")
    if backend == "offline":
        notes.append("no LLM endpoint is configured: a run would use the offline backend and cost nothing; "
                     f"the figures are for {model!r}")
    history = _output_history(store, model)
    pricer = _StagePricer(history, tok, prices, multiplier.credits_per_usd)
    work = _remaining_work(store, project, model, history, notes)
    stages = [
        pricer.stage("intent", work.intent_prompts, work.intent_reused),
        pricer.stage("queries", work.queries_prompts, work.queries_reused, work.intent_extra),
        pricer.stage("score", work.score_prompts, work.scored, work.intent_extra),
    ]
    for s in stages:
        if s.calls and s.output_basis == "cap":
            notes.append(f"{s.stage}: no past calls of {model!r}, so expected output is taken at the cap")
            break
    notes.append("not included: the related-work draft's rewrite calls (one per paragraph, after scoring), repair "
                 "rounds after schema-invalid answers, retries, and papers retrieval may add")
    committed = sum((u.credits for u in store.ledger.usage(slug)), Decimal("0E-8")) + sum(
        (r.amount for r in store.ledger.reservations(slug, state="open")), Decimal("0E-8")
    )
    return ProjectEstimate(
        slug=slug,
        model=model,
        provider=provider,
        tier=tier,
        backend=backend,
        tokenizer=tok.name,
        stages=stages,
        pricing_id=None if price is None else price.id,
        multiplier_id=multiplier.id,
        credits_per_usd=multiplier.credits_per_usd,
        account=project.account,
        balance=store.ledger.balance(project.account),
        budget_credits=project.budget_credits,
        budget_committed=committed,
        notes=notes,
    )


@dataclass
class _StagePricer:
    """Prices one stage's remaining prompts: expected output from the model's history, else the stage's cap."""

    history: dict[str, list[int]]
    tok: Tokenizer
    prices: cost_rule.Prices | None
    credits_per_usd: Decimal

    def stage(self, name: str, prompts: list[list[dict[str, str]]], reused: int, extra_input: int = 0):
        cap = MAX_OUTPUT_TOKENS[name]
        past = self.history.get(name, [])
        expected_each = round(sum(past) / len(past)) if len(past) >= MIN_HISTORY else cap
        inp = sum(chat_tokens(m, self.tok.count) + extra_input for m in prompts)
        out_expected, out_max = expected_each * len(prompts), cap * len(prompts)
        cost_e, credits_e = cost_rule.charge(inp, out_expected, 0, self.prices, self.credits_per_usd)
        credits_max = cost_rule.estimate_credits(inp, out_max, self.prices, self.credits_per_usd)
        cost_max = cost_rule.estimate_credits(inp, out_max, self.prices, 1)  # at 1 credit/USD: the USD upper bound
        largest = max(
            (cost_rule.estimate_credits(estimate_prompt_tokens(m) + extra_input, cap, self.prices,
                                        self.credits_per_usd) for m in prompts),
            default=Decimal("0E-8"),
        )
        return StageEstimate(
            stage=name, calls=len(prompts), reused=reused, input_tokens=inp, output_tokens_expected=out_expected,
            output_tokens_max=out_max,
            output_basis=f"history ({len(past)} calls)" if len(past) >= MIN_HISTORY else "cap",
            cost_usd_expected=cost_e, credits_expected=credits_e, cost_usd_max=cost_max, credits_max=credits_max,
            largest_reservation=largest,
        )


@dataclass
class _RemainingWork:
    intent_prompts: list
    intent_reused: int
    queries_prompts: list
    queries_reused: int
    score_prompts: list
    scored: int
    intent_extra: int  # tokens the not-yet-written intent JSON adds to each later prompt


def _remaining_work(
    store: DomainStore, project, model: str, history: dict[str, list[int]], notes: list[str]
) -> _RemainingWork:
    """The prompts a run would still send, found with the same hashes the pipeline computes (its stage inputs
    and score_cache_key)."""
    slug = project.slug
    intent_hash = sha256(project.abstract, prompt_version("intent"), model)
    queries_hash = sha256(intent_hash, prompt_version("queries"), model)
    intent_artifact = store.results.latest_artifact(slug, "intent")
    intent_done = intent_artifact is not None and intent_artifact.input_hash == intent_hash
    queries_artifact = store.results.latest_artifact(slug, "queries")
    queries_done = queries_artifact is not None and queries_artifact.input_hash == queries_hash

    intent_prompts = [] if intent_done else [load_prompt("intent").render(abstract=project.abstract)]
    if intent_artifact is not None and intent_done:
        intent_json = ResearchIntent.model_validate(intent_artifact.payload).model_dump_json(indent=1)
        intent_extra = 0
    else:  # not written yet: counted at the intent stage's projected output size
        intent_json = ""
        past = history.get("intent", [])
        intent_extra = round(sum(past) / len(past)) if len(past) >= MIN_HISTORY else MAX_OUTPUT_TOKENS["intent"]
        notes.append(f"the intent is not written yet: its JSON is counted as {intent_extra} tokens in later prompts")
    queries_prompts = [] if queries_done else [load_prompt("queries").render(intent_json=intent_json)]

    papers = store.projects.list_papers(slug)
    keys = {p.id: score_cache_key(p.content_hash, intent_hash, model) for p in papers}
    scored = {r.paper_id for r in store.results.results_for_project(slug, cache_keys=keys)}
    score_template = load_prompt("score")
    score_prompts = [
        score_template.render(abstract=project.abstract, intent_json=intent_json, title=p.title,
                              paper_abstract=p.abstract or "(no abstract available)")
        for p in papers if p.id not in scored
    ]
    return _RemainingWork(intent_prompts, int(intent_done), queries_prompts, int(queries_done), score_prompts,
                          len(scored), intent_extra)


def _output_history(store: DomainStore, model: str) -> dict[str, list[int]]:
    """Output tokens of this model's past calls, per stage (from every project: it is the model's habit)."""
    out: dict[str, list[int]] = {}
    for row in store.ledger.usage():
        if row.model == model and row.stage:
            out.setdefault(row.stage, []).append(row.output_tokens)
    return out


def format_estimate(est: ProjectEstimate) -> str:
    lines = [
        f"estimate for {est.slug}: model {est.model} ({est.provider}/{est.tier}), backend {est.backend}, "
        f"tokenizer {est.tokenizer}",
        f"{'stage':<8} {'calls':>6} {'reused':>6} {'input tok':>10} {'output tok (exp/max)':>22} "
        f"{'USD expected':>14} {'credits expected':>17} {'credits max':>14}",
    ]
    for s in est.stages:
        lines.append(
            f"{s.stage:<8} {s.calls:>6} {s.reused:>6} {s.input_tokens:>10} "
            f"{f'{s.output_tokens_expected}/{s.output_tokens_max}':>22} {s.cost_usd_expected:>14.8f} "
            f"{s.credits_expected:>17.8f} {s.credits_max:>14.8f}"
        )
    out = f"{est.total('output_tokens_expected')}/{est.total('output_tokens_max')}"
    lines.append(
        f"{'total':<8} {est.calls:>6} {est.total('reused'):>6} {est.total('input_tokens'):>10} {out:>22} "
        f"{est.total('cost_usd_expected'):>14.8f} {est.total('credits_expected'):>17.8f} "
        f"{est.total('credits_max'):>14.8f}"
    )
    budget = "no budget" if est.budget_credits is None else (
        f"budget {est.budget_credits:f} ({est.budget_committed:f} committed, {est.budget_remaining:f} left)"
    )
    price = "no price row" if est.pricing_id is None else f"price row {est.pricing_id}"
    lines.append(
        f"account {est.account}: balance {est.balance:f}; {budget}; {price}, "
        f"multiplier row {est.multiplier_id} ({est.credits_per_usd} credits/USD) -> {est.verdict()}"
    )
    lines.extend(f"note: {n}" for n in est.notes)
    return "\n".join(lines)


def rerun_after_adding(store: DomainStore, slug: str, added: int) -> str | None:
    """What the next run re-does once ``added`` papers join a project whose chain had finished, and what it
    costs, said before it runs (None when nothing was added or the project had not finished: its run is the one
    already expected). Scoring is priced as ``agentr estimate`` prices it; the related-work draft is rewritten one
    call per paragraph, counted on the current draft (the rebuilt taxonomy may add sections, and their paragraphs)
    and priced at this model's past rewrites when it has some."""
    from agentr_dagster.domain import failures as st
    from agentr_dagster.stages.synthesis import current_draft

    states = {row.stage: row.state for row in store.lifecycle.status(slug)}
    if not added or states.get("related_work") != st.COMPLETED:
        return None
    settings = get_settings()
    total = store.projects.count_papers(slug)
    redo = (f"{slug} had finished; adding {added} paper{'s' if added != 1 else ''} makes its next run re-rank all "
            f"{total:,} papers, score the new ones and rebuild the landscape and the related-work draft")
    if not settings.llm.configured:
        return f"{redo}: offline, at no cost (no LLM endpoint is configured)"
    model = settings.llm.model
    est = estimate_project(store, slug, model=model, provider=settings.llm.provider, backend="llm")
    score = next(s for s in est.stages if s.stage == "score")
    draft = current_draft(store, slug)
    paragraphs = len(draft.paragraphs()) if draft is not None else 0
    past = [u.credits for u in store.ledger.usage() if u.stage == "related_work" and u.model == model]
    rewrite = (f"about {paragraphs} paragraph rewrite call{'s' if paragraphs != 1 else ''} (one per paragraph of "
               "the draft: the current one has that many, a new section adds its own)")
    if past:
        per_call = sum(past, Decimal(0)) / len(past)
        rewrite += (f", {per_call:.4f} credits each at the mean of {len(past)} past rewrite(s) "
                    f"({per_call * paragraphs:.4f} for {paragraphs})")
    else:
        rewrite += ", not priced (no past rewrite by this model)"
    return (f"{redo} with {model}: {score.calls} scoring call{'s' if score.calls != 1 else ''} "
            f"({score.credits_expected:.4f} credits expected, {score.credits_max:.4f} at most) and {rewrite}. "
            f"`agentr estimate {slug}` details the scoring; `agentr run {slug}` starts it")
