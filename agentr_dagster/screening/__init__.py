"""Screening: rank candidate records against a research question, learn from include/exclude labels, and
measure how much reading that saves. Pure logic (no Dagster); ASReview-like roles, one module each, each a
small contract with swappable implementations.

Roles (contract -> implementations):

* ``features``   ``build_features(titles, abstracts, encoder) -> ScreeningFeatures``; the encoder is any
                 :class:`~agentr_dagster.screening.features.TextEncoder`. Lexical terms (``stemmed_terms``),
                 TF-IDF, static and (optional) transformer embeddings.
* ``rankers/``   ``Ranker``: ``(question, feats) -> scores``, no labels. ``lexical`` (weighted BM25),
                 ``dense`` (cosine per field), ``fused`` (``fused_prior``), ``design`` (``design_prior``),
                 ``zero_shot`` (``zero_shot_scores``: fused + design + pseudo-relevance feedback).
* ``active``     ``Learner``: ``scores(labeled_idx, labels) -> scores``, built by a factory ``(feats, prior)``.
                 ``ActiveRanker`` (LinearSVC over TF-IDF blended with a decaying prior).
* ``stopping``   ``StoppingRule``: ``(seen_labels, all_labels) -> bool``. ``all_includes_found``,
                 ``consecutive_excludes(n)``.
* ``simulation`` the simulation protocol: ``choose_priors``, ``default_schedule``, ``simulate_active``.
* ``metrics``    ``wss_at``, ``recall_at``, ``evaluate_order`` of a screening order.
* ``screen``     the ``agentr screen`` contract: input/output columns, ``normalise_label``, ``screen()``.
* ``versus``     ``compare_with_zero_shot``: how far a learned order moved from the zero-shot order on the
                 unlabelled records (top-K overlap, Spearman, the prior's weight), as ``screen`` reports it.
* ``presets``    named compositions of a ranker and a learner factory: ``default`` (what every command runs;
                 without a transformer it reproduces the former ``domain/ranking.py`` exactly), ``lexical`` (no
                 dense scores), ``classic`` (ASReview's ELAS u4 learner without our prior).

Helpers: ``question`` (the sentences of a question that say what is wanted), ``scores`` (z-scores, order).
The bench (``agentr bench screening``) lives in :mod:`agentr_dagster.bench.screening` and imports from here; what
reads or writes the domain store lives in ``stages/``: ``feedback`` (labels per project and ``agentr rerank``) and
``llm_rerank`` (``agentr screen --llm-top K``, the top K re-ordered by the LLM through the gateway).
"""
