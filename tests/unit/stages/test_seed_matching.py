"""Seed studies matched to candidates by the project's identity rules (DOI, else normalised title)."""

from __future__ import annotations

from agentr_dagster.stages.seeds import match_seeds

CANDIDATES = [(1, "Night shifts and sleep quality in nurses", "10.5555/abc.1"),
              (2, "Café noise and reading speed", None),
              (3, "Tidal currents in narrow straits", "10.5555/abc.3")]


def test_by_doi_by_title_and_outside():
    seeds = [{"title": "", "abstract": "", "doi": "10.5555/ABC.3"},  # the DOI in another case
             {"title": "CAFE NOISE and reading speed!", "abstract": "", "doi": ""},  # the normalised title
             {"title": "Night shifts and sleep quality in nurses", "abstract": "x", "doi": "10.5555/other"},
             {"title": "Rotating rosters and fatigue", "abstract": "Fatigue rose with rotation.", "doi": ""},
             {"title": "", "abstract": "", "doi": "10.5555/unknown"},  # by DOI alone, no candidate: no text
             {"title": "Cafe noise and reading speed", "abstract": "", "doi": ""}]  # a second seed, same paper
    matched, outside = match_seeds(seeds, CANDIDATES)
    assert matched == [3, 2]
    # the same title under a different DOI is another paper: an outside seed with its text
    assert outside == [("Night shifts and sleep quality in nurses", "x"),
                       ("Rotating rosters and fatigue", "Fatigue rose with rotation.")]


def test_no_seeds():
    assert match_seeds([], CANDIDATES) == ([], [])
