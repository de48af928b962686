"""The engine version: a fingerprint of the code that scores, so that a ranker change marks relevance stale."""

from __future__ import annotations

import shutil

from agentr_dagster.screening.version import engine_version, scoring_sources, version_of


def _package():
    return next(p for p in scoring_sources() if p.name == "active.py").parents[1]


def test_the_version_covers_rankers_features_and_learner_but_not_the_measuring_modules():
    names = {p.relative_to(_package()).as_posix() for p in scoring_sources()}
    assert {"screening/rankers/zero_shot.py", "screening/features.py", "screening/active.py",
            "screening/presets.py", "screening/screen.py", "domain/embeddings.py"} <= names
    assert not {"screening/metrics.py", "screening/simulation.py", "screening/stopping.py",
                "screening/version.py"} & names
    assert engine_version() == version_of(scoring_sources()) and engine_version().startswith("engine-")


def test_a_changed_ranker_changes_the_version(tmp_path):
    package = _package()
    copies = []
    for path in scoring_sources():
        copy = tmp_path / path.relative_to(package)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        copies.append(copy)
    assert version_of(copies, root=tmp_path) == engine_version()
    ranker = tmp_path / "screening" / "rankers" / "zero_shot.py"
    ranker.write_text(ranker.read_text() + "\n# a tuned weight\n")
    assert version_of(copies, root=tmp_path) != engine_version()


def test_another_transformer_gives_another_version(monkeypatch):
    from agentr_dagster.screening import version

    monkeypatch.setenv("AGENTR_TRANSFORMER", "all-mpnet-base-v2")
    version.engine_version.cache_clear()
    try:
        assert version.engine_version() == version_of(scoring_sources()) + "+all-mpnet-base-v2"
    finally:
        monkeypatch.delenv("AGENTR_TRANSFORMER")
        version.engine_version.cache_clear()
    assert version.engine_version() == version_of(scoring_sources())
