"""A person's labels reach the synthesis: a paper labelled exclude leaves the landscape's competitors and the
related-work draft at the next run, a paper labelled include enters them (labels given with `agentr label`, the
project run offline on the bundled demo)."""

from __future__ import annotations

from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.cli.common import open_store
from agentr_dagster.stages.synthesis import run_landscape, run_related_work
from tests.integration.synthesis.test_synthesis import scored_project
from tests.support import DEMO


def agentr(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_an_excluded_paper_leaves_and_an_included_one_enters_the_landscape_and_draft(tmp_path):
    store = open_store()
    scored_project(store, "labelled", DEMO / "papers.csv")
    land = run_landscape(store, "labelled").landscape
    draft = run_related_work(store, "labelled", out_dir=tmp_path / "before").draft
    competitors = [c.paper_id for c in land.competitors]
    competitor_set = set(competitors)
    outsiders = [p for p in land.papers if p.paper_id not in competitor_set]
    outsider = min(outsiders, key=lambda p: (p.included, p.relevance))  # the least relevant non-competitor
    first = land.competitors[0]
    assert first.key in draft.keys  # the top competitor is cited before any label
    assert outsider.key not in {c.key for c in land.competitors}

    assert agentr("label", "labelled", f"id:{first.paper_id}", "exclude").exit_code == 0
    assert agentr("label", "labelled", f"id:{outsider.paper_id}", "include").exit_code == 0

    after = run_landscape(store, "labelled")
    assert not after.reused  # the labels changed the synthesis input
    redraft = run_related_work(store, "labelled", out_dir=tmp_path / "after")
    assert not redraft.reused
    keys_after = [c.key for c in after.landscape.competitors]
    assert first.paper_id not in {c.paper_id for c in after.landscape.competitors}
    assert first.paper_id not in {p.paper_id for p in after.landscape.papers}
    assert first.key not in redraft.draft.keys and f"[@{first.key}]" not in redraft.markdown
    assert first.key not in redraft.bibtex
    # the include is a competitor, listed first (the person's decision), and the draft cites it
    assert keys_after[0] == outsider.key
    assert outsider.key in redraft.draft.keys
    assert redraft.valid

    # unchanged labels: the next run reuses both
    assert run_landscape(store, "labelled").reused
    assert run_related_work(store, "labelled", out_dir=tmp_path / "again").reused


def test_a_label_given_between_the_landscape_and_the_draft_leaves_the_draft(tmp_path):
    """Seen in the UI: a labels run built the landscape, the person excluded a paper it routes, and the draft (the
    next step) failed with KeyError on that paper, retried three times. The draft now plans on a landscape current
    for its corpus: rebuilt here, without the excluded paper."""
    store = open_store()
    scored_project(store, "between", DEMO / "papers.csv")
    land = run_landscape(store, "between").landscape
    routed = land.competitors[0]
    assert agentr("label", "between", f"id:{routed.paper_id}", "exclude").exit_code == 0

    draft = run_related_work(store, "between", out_dir=tmp_path / "draft")  # no run_landscape in between
    assert draft.valid
    assert routed.key not in draft.draft.keys and routed.key not in draft.bibtex
    rebuilt = run_landscape(store, "between")
    assert rebuilt.reused  # the draft rebuilt it; the landscape step that follows finds it current
    assert routed.paper_id not in {p.paper_id for p in rebuilt.landscape.papers}
    assert run_related_work(store, "between", out_dir=tmp_path / "again").reused


def test_the_report_headline_counts_the_synthesis_not_a_run_and_names_the_excludes():
    """The report's first card read "35 papers scored" for a project of 40 whose run scored none (all reused) and
    whose 5 excludes had left the synthesis: it now says what the number is."""
    from agentr_dagster.stages.report import _summary_cards, read_report_inputs

    store = open_store()
    scored_project(store, "headline", DEMO / "papers.csv")
    before = _summary_cards(read_report_inputs(store, "headline"))[0]
    assert before == (40, "papers in the synthesis (each with a current score)")
    first = run_landscape(store, "headline").landscape.competitors[0]
    assert agentr("label", "headline", f"id:{first.paper_id}", "exclude").exit_code == 0
    after = _summary_cards(read_report_inputs(store, "headline"))[0]
    assert after == (39, "papers in the synthesis (each with a current score; 1 you labelled exclude left out)")
