"""The report of a 1,700-record review stays readable in a real browser: under 15 screen heights at a 1000 px
viewport, its long tables showing their first rows with the rest one click away, every plot at (nearly) its
natural size so its 9 pt labels stay legible at 100 % zoom, and the abstract as text (no Markdown markup)."""

from __future__ import annotations

import pandas as pd
import pytest

from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.report import abstract_blocks, build_report
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.stages.synthesis import run_landscape
from agentr_dagster.store import DomainStore
from agentr_dagster.testing.replay_server import generate_corpus
from tests.support import ABSTRACT
from tests.support.browser import Chromium

RECORDS = 1700
SCREEN = 1000  # px: the viewport's width and height


@pytest.fixture(scope="module")
def big_report(tmp_path_factory):
    home = tmp_path_factory.mktemp("big-report")
    store = DomainStore(f"sqlite:///{home}/agentr.db")
    add_project(store, "big", "# Screening automation\n\n" + ABSTRACT, title="Screening automation")
    frame = pd.DataFrame([{"title": p.title, "abstract": p.abstract, "year": p.published.year, "doi": p.doi,
                           "authors": "; ".join(p.authors)} for p in generate_corpus(RECORDS)])
    frame.to_csv(home / "papers.csv", index=False)
    assert add_papers_file(store, "big", home / "papers.csv").added == RECORDS
    backend = OfflineStageBackend()
    run_intent(store, backend, "big")
    run_queries(store, backend, "big")
    score_project(store, backend, "big")
    run_landscape(store, "big")
    page = build_report(store, "big")
    path = home / "report.html"
    path.write_text(page, encoding="utf-8")
    return page, path


@pytest.mark.browser
def test_a_1700_record_report_is_under_15_screens_with_legible_plots(big_report):
    page, path = big_report
    with Chromium() as browser:
        tab = browser.page(path.resolve().as_uri(), width=SCREEN, height=SCREEN)
        facts = tab.evaluate("""({
            height: document.documentElement.scrollHeight,
            images: Array.from(document.images).map(i => ({alt: i.alt, natural: i.naturalWidth,
                shown: i.getBoundingClientRect().width, hidden: !i.offsetParent})),
            papersShown: document.querySelectorAll('#papers > table tr').length - 1,
            papersMore: document.querySelectorAll('#papers details.more table tr').length - 1,
            abstract: document.querySelector('.abstract').innerText,
        })""")
        assert facts["height"] < 15 * SCREEN, facts["height"]
        assert facts["papersShown"] == 25 and facts["papersMore"] > 400  # the rest on a click, not dropped
        assert facts["abstract"].startswith("Screening automation\n") and "#" not in facts["abstract"]
        shown = [i for i in facts["images"] if not i["hidden"]]
        assert len(shown) >= 5 and all(i["natural"] > 0 for i in facts["images"])
        for image in shown:  # drawn at >= 80 % of its size: 9 pt at 110 dpi stays >= 11 px on screen
            assert image["shown"] >= 0.8 * image["natural"], image
        # a click opens the rest of the papers: the page grows by their rows
        tab.page.click("#papers details.more summary")
        assert tab.evaluate("document.documentElement.scrollHeight") > facts["height"] + 5000
    assert page.count('<details class="more">') >= 5


def test_the_abstract_is_text_not_markdown():
    assert abstract_blocks("# A *tertiary* study\n\nHow have **SLRs** been\nused in [SE](http://x.org)?\n\n"
                           "## Scope\nJournals only.") == [
        ("h", "A tertiary study"), ("p", "How have SLRs been used in SE?"), ("h", "Scope"), ("p", "Journals only.")]
    assert abstract_blocks("Plain text with snake_case and 2 * 3 = 6.") == [
        ("p", "Plain text with snake_case and 2 * 3 = 6.")]
