"""The Dagster UI as a person reads it: `dagster dev` started from the repo root as `make ui` starts it (no warning
in its start-up log), a project materialised into its instance, and the asset pages opened in headless Chromium
at 1600x1000. Each page renders without console errors and shows what matters first: status and counts, the top
papers as a table, no usage rows when nothing was spent, column descriptions, and plots that open at a readable
size. Screenshots are kept under the test's tmp dir."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pandas as pd
import pytest
from dagster import DagsterInstance, materialize

from agentr_dagster.defs.assets import pipeline_assets
from agentr_dagster.defs.resources import LLMResource, SourcesResource, StoreResource, close_all_stores
from agentr_dagster.stages.exports import COLUMN_DESCRIPTIONS, COLUMNS
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.store import DomainStore, default_database_url
from agentr_dagster.testing.llama_server import free_port
from tests.support import ABSTRACT, DEMO, REPO
from tests.support.browser import Chromium, png_size
from tests.support.polling import wait_for

# The module's fixture starts `dagster dev` and materialises the chain before the first test: slow on loaded cores.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

SLUG = "ui-demo"
WIDTH, HEIGHT = 1600, 1000
VENV_BIN = Path(sys.executable).parent  # the venv running the tests holds dagster's CLIs
DEV_NOTICE = "ignore:Function `dev_command` is superseded"  # as `make ui` filters it (see the Makefile)


# The metadata panel is a table whose header row starts with "Key"; a table entry is a table nested in a cell.
METADATA_TABLE = """Array.from(document.querySelectorAll('table')).find(t =>
    Array.from(t.querySelectorAll(':scope > thead td, :scope > thead th')).some(c => c.innerText.trim() === 'Key'))"""


def _metadata_keys_in_order(page) -> list[str]:
    """The metadata panel's keys in the order the page lists them."""
    return page.evaluate(f"""Array.from(({METADATA_TABLE}).querySelectorAll(':scope > tbody > tr > td:first-child'))
        .map(td => td.innerText.trim())""")


def _entry_table(page, header: str) -> dict | None:
    """The table entry (nested in the metadata panel) whose header row has ``header``: headers, rows, fit."""
    return page.evaluate(f"""(() => {{ const panel = {METADATA_TABLE};
        const t = Array.from(panel.querySelectorAll('td table')).find(t =>
            Array.from(t.querySelectorAll(':scope > thead th')).some(th => th.innerText.trim() === {header!r}));
        if (!t) return null;
        return {{headers: Array.from(t.querySelectorAll(':scope > thead th')).map(th => th.innerText.trim()),
                 rows: t.querySelectorAll(':scope > tbody > tr').length,
                 right: t.getBoundingClientRect().right, panel_right: panel.getBoundingClientRect().right,
                 row_height: Math.max(...Array.from(t.querySelectorAll(':scope > tbody > tr'))
                     .map(r => r.getBoundingClientRect().height))}}; }})()""")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status == 200
    except OSError:  # URLError is an OSError: refused while the port is not bound yet
        return False


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    """`dagster dev` on a fresh instance (booting while the project is materialised into it); yields the base URL,
    the browser and the screenshot folder."""
    home = tmp_path_factory.mktemp("ui-home")
    shots = tmp_path_factory.mktemp("ui-screenshots")
    dagster_home = home / "dagster"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text((REPO / "agentr_dagster" / "data" / "dagster.yaml").read_text())
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTR_", "DAGSTER_"))}
    env.update(AGENTR_HOME=str(home), DAGSTER_HOME=str(dagster_home), PYTHONPATH=str(REPO),
               PYTHONWARNINGS=DEV_NOTICE, PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}")
    # Both storages exist before `dagster dev` starts: two processes creating one SQLite storage at once can
    # each stamp its schema version (Dagster then refuses it: "more than one head").
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("AGENTR_DATABASE_URL", raising=False)
        DomainStore(default_database_url(home)).close()
    instance = DagsterInstance.from_config(str(dagster_home))
    instance.add_dynamic_partitions("projects", [SLUG])
    log = home / "dagster-dev.log"
    with log.open("w") as out:
        server = subprocess.Popen([str(VENV_BIN / "dagster"), "dev", "-w", "workspace.yaml", "-p", str(port)],
                                  cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with pytest.MonkeyPatch.context() as patch:  # exports go to this home's results/
            patch.setenv("AGENTR_HOME", str(home))
            patch.delenv("AGENTR_DATABASE_URL", raising=False)
            patch.delenv("AGENTR_LLM_BASE_URL", raising=False)
            url = default_database_url(home)
            with DomainStore(url) as store:
                add_project(store, SLUG, ABSTRACT)
                csv = home / "papers.csv"
                pd.read_csv(DEMO / "papers.csv").head(20).to_csv(csv, index=False)
                add_papers_file(store, SLUG, csv)
            result = materialize(pipeline_assets, partition_key=SLUG, instance=instance,
                                 resources={"store": StoreResource(database_url=url), "llm": LLMResource(),
                                            "sources": SourcesResource()})
            assert result.success
            close_all_stores()
        base = f"http://127.0.0.1:{port}"

        def serving() -> bool:
            assert server.poll() is None, f"dagster dev exited:\n{log.read_text()[-3000:]}"
            # The webserver logs "Serving" just before uvicorn binds its port: ask until it answers.
            return "Serving dagster-webserver" in log.read_text() and _answers(f"{base}/server_info")

        wait_for(serving, lambda: f"dagster dev serving\n{log.read_text()[-3000:]}", timeout=180, interval=0.5)
        with Chromium() as browser:
            first = browser.page(f"{base}/server_info", WIDTH, HEIGHT)
            # the "join the community" dialog a first visit shows over every page, dismissed as its Skip does
            first.evaluate("localStorage.setItem('communityNux', JSON.stringify('1'))")
            yield {"base": base, "browser": browser, "shots": shots, "log": log}
    finally:
        # The whole process group (dagster dev, its webserver, daemon and code servers): SIGINT may be ignored in
        # a background shell's children, and nothing of the instance is needed afterwards.
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _open_asset(ui, asset: str, ready: str):
    page = ui["browser"].page(f"{ui['base']}/assets/{asset}?partition={SLUG}", WIDTH, HEIGHT)
    page.wait_until(f"document.body.innerText.includes({ready!r})", timeout=60, what=ready)
    page.drain(1.0)
    shot = page.screenshot(WIDTH, HEIGHT)
    (ui["shots"] / f"{asset}.png").write_bytes(shot)
    assert png_size(shot) == (WIDTH, HEIGHT)
    return page


def _assert_clean(page) -> None:
    assert page.console_errors() == [] and page.exceptions() == []
    assert [e for e in page.log_errors() if "favicon" not in e.get("url", "")] == []


def test_dagster_dev_starts_without_a_warning(ui):
    text = ui["log"].read_text()
    assert "Serving dagster-webserver" in text
    warnings = [line for line in text.splitlines() if "WARNING" in line or "Warning" in line]
    assert warnings == [], warnings


def test_paper_scores_shows_status_and_the_top_papers_first_and_no_usage_offline(ui):
    page = _open_asset(ui, "paper_scores", "top_papers")
    keys = _metadata_keys_in_order(page)
    assert keys[:2] == ["status", "papers"], keys
    assert keys.index("top_papers") < keys.index("backend") < keys.index("prompt_version")
    assert not [k for k in keys if k.startswith("usage")], keys  # offline: nothing was spent, no usage at all
    table = _entry_table(page, "C1")
    assert table is not None, "no top-papers table on the page"
    assert table["headers"] == ["rank", "title", "P(include)", "C1", "C2"] and table["rows"] == 10, table
    assert table["right"] <= table["panel_right"] + 1, table  # the whole table fits the panel: nothing cut off
    assert table["row_height"] <= 80, table  # a title wraps to three lines at most
    _assert_clean(page)


def test_research_intent_shows_the_intent_itself_first(ui):
    page = _open_asset(ui, "research_intent", "problem_statement")
    keys = _metadata_keys_in_order(page)
    assert keys[:5] == ["problem_statement", "methodologies", "application_domains", "constraints",
                        "seed_keywords"], keys
    assert "systematic literature reviews" in page.evaluate("document.body.innerText")  # as text, inline
    _assert_clean(page)


def test_score_exports_column_schema_has_a_description_for_every_column(ui):
    assert set(COLUMN_DESCRIPTIONS) == set(COLUMNS)
    page = _open_asset(ui, "score_exports", "top_papers")
    text = page.evaluate("document.body.innerText")
    for column in ("c1_score", "injection_flag"):  # the overview's column panel lists names with descriptions
        assert column in text
    assert COLUMN_DESCRIPTIONS["injection_flag"] in text and COLUMN_DESCRIPTIONS["c2_score"] in text
    assert "results/<slug>/" in text  # the description's markup shows as written
    _assert_clean(page)


def test_landscape_plots_open_at_a_readable_size(ui):
    page = _open_asset(ui, "research_landscape", "plot_c1_vs_c2")
    keys = _metadata_keys_in_order(page)
    assert keys.index("top_competitors") < keys.index("plot_c1_vs_c2") < keys.index("artifact_id"), keys
    page.evaluate("""(() => { const row = Array.from(document.querySelectorAll('tr'))
        .filter(r => r.querySelector('td') && r.querySelector('td').innerText.trim() === 'plot_c1_vs_c2').pop();
        const link = Array.from(row.querySelectorAll('a')).find(a => a.innerText.includes('Show Markdown'));
        link.scrollIntoView(); link.click(); })()""")
    page.wait_until("(() => { const i = document.querySelector('[role=dialog] img');"
                    " return i && i.complete && i.naturalWidth > 0; })()", timeout=20, what="the plot in its dialog")
    size = page.evaluate("""(() => { const i = document.querySelector('[role=dialog] img');
        const r = i.getBoundingClientRect(); return [i.naturalWidth, i.naturalHeight, r.width, r.height]; })()""")
    shot = page.screenshot(WIDTH, HEIGHT)
    (ui["shots"] / "research_landscape-plot_c1_vs_c2.png").write_bytes(shot)
    natural_w, natural_h, shown_w, shown_h = size
    assert natural_w >= 700 and natural_h >= 450, size  # 110 dpi: labels at 8 pt (12 px) or more stay legible
    assert shown_w >= 0.95 * natural_w, size  # shown at (about) its natural size, not shrunk into the panel
    _assert_clean(page)


def test_asset_checks_say_what_they_judge(ui):
    page = ui["browser"].page(f"{ui['base']}/assets/paper_scores?view=checks", WIDTH, HEIGHT)
    page.wait_until("document.body.innerText.includes('every_paper_scored')", timeout=60, what="the checks tab")
    page.drain(1.0)
    (ui["shots"] / "paper_scores-checks.png").write_bytes(page.screenshot(WIDTH, HEIGHT))
    text = page.evaluate("document.body.innerText")
    assert "Every active candidate paper has a stored score" in text  # the spec's description
    assert "all 20 paper(s) scored" in text  # the result's own
    # no numeric check metadata: the history has nothing to plot, so no line mixing every partition
    assert "Include numeric metadata entries in your check metadata" in text
    _assert_clean(page)
