"""`agentr report`: one self-contained HTML file, opened in headless Chromium (Debian `chromium`, driven by
Playwright) with no console errors, no network requests, every image decoded, every in-page link
resolving, and a full-page screenshot checked for size."""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal

import pandas as pd
import pytest
from click.testing import CliRunner

from agentr_dagster.cli import main
from agentr_dagster.llm.backends import OfflineStageBackend
from agentr_dagster.llm.gateway import LLMSettings, OpenAICompatibleBackend
from agentr_dagster.stages.intake import add_papers_file, add_project
from agentr_dagster.stages.intent import run_intent
from agentr_dagster.stages.queries import run_queries
from agentr_dagster.stages.report import build_report
from agentr_dagster.stages.scoring import score_project
from agentr_dagster.stages.synthesis import run_landscape, run_related_work
from agentr_dagster.store import DomainStore, default_database_url
from agentr_dagster.synthesis.redraft import GatewayParagraphWriter
from agentr_dagster.testing.scripted_server import ScriptedOpenAIServer
from tests.support import DEMO
from tests.support.browser import open_in_chromium, png_size

KEYS_RE = re.compile(r"Citation keys you may use: (.*)")


def _rewrite(body: dict) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    keys = [k.strip() for k in KEYS_RE.search(user).group(1).split(",") if k.strip()]
    return json.dumps({"paragraph": f"These papers bear on the planned work [@{'; @'.join(keys[:3])}]."})


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The demo scored offline; the draft rewritten through a real OpenAI-compatible server, so the report
    has LLM usage to show."""
    home = tmp_path_factory.mktemp("report-home")
    store = DomainStore(default_database_url(home))
    slug = "report-demo"
    add_project(store, slug, (DEMO / "abstract.md").read_text(), title="Auditable automation of systematic reviews")
    csv = home / "papers.csv"
    pd.read_csv(DEMO / "papers.csv").to_csv(csv, index=False)
    add_papers_file(store, slug, csv)
    backend = OfflineStageBackend()
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    score_project(store, backend, slug)
    run_landscape(store, slug)
    store.ledger.set_pricing("scripted-model", Decimal("0.15"), Decimal("0.60"))
    store.ledger.ensure_account("default")
    with ScriptedOpenAIServer(_rewrite) as server:
        gateway = OpenAICompatibleBackend(LLMSettings(base_url=server.base_url, model="scripted-model"), store)
        outcome = run_related_work(store, slug, writer=GatewayParagraphWriter(gateway))
    assert outcome.report.ok and server.calls == len(outcome.draft.paragraphs())
    return store, slug, home


@pytest.mark.browser
def test_the_harness_sees_console_errors_and_network_requests(tmp_path):
    """A positive control: the same harness flags a page that logs an error and fetches from a server."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><title>bad</title></head><body><p>x</p>'
                    '<img src="http://127.0.0.1:9/missing.png"><script>console.error("boom")</script></body></html>')
    seen = open_in_chromium(page)
    assert any("boom" in json.dumps(e) for e in seen["console_errors"])
    assert any(url.startswith("http://127.0.0.1:9/") for url in seen["requests"])


@pytest.mark.browser
def test_report_is_self_contained_and_renders_cleanly_in_chromium(project, tmp_path):
    store, slug, _ = project
    page = build_report(store, slug)
    # Statically: no scripts, no external stylesheet or font, nothing fetched from a URL.
    assert "<script" not in page.lower() and "<link" not in page.lower() and "@import" not in page
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#|data:image/png;base64,)""", page)
    assert "http://" not in page and "https://" not in page
    for section in ("summary", "plots", "competitors", "supporting", "gaps", "taxonomy", "draft", "papers",
                    "searches", "cost", "lifecycle", "evidence"):
        assert f'id="{section}"' in page
    assert "passes</span> the deterministic validator" in page
    assert "related_work</td><td>scripted-model" in page  # the redraft calls are priced in the cost table
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")

    seen = open_in_chromium(path)
    assert seen["console_errors"] == [] and seen["exceptions"] == [], (seen["console_errors"], seen["exceptions"])
    assert seen["log_errors"] == [], seen["log_errors"]
    assert [u for u in seen["requests"] if not u.startswith(("file:", "data:"))] == []
    facts = seen["facts"]
    assert facts["scripts"] == 0 and facts["images"] == 7 and facts["decoded"] == 7  # six plots + the PRISMA flow
    assert facts["dangling"] == 0 and facts["citations"] > 20
    assert all(a.startswith("#") for a in facts["anchors"])
    width, height = png_size(seen["screenshot"])
    assert width == 1280 and height >= 4000, (width, height)
    assert len(seen["screenshot"]) > 200_000
    import matplotlib.image

    pixels = matplotlib.image.imread(io.BytesIO(seen["screenshot"]), format="png")
    assert pixels.std() > 0.05  # not a blank page
    (tmp_path / "report.png").write_bytes(seen["screenshot"])


def test_report_command_writes_the_file(project, monkeypatch, tmp_path):
    store, slug, home = project
    monkeypatch.setenv("AGENTR_HOME", str(home))
    out = CliRunner().invoke(main, ["report", slug, "--out", str(tmp_path / "r.html")])
    assert out.exit_code == 0, out.output
    text = (tmp_path / "r.html").read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    default = CliRunner().invoke(main, ["report", slug])
    assert default.exit_code == 0 and (home / "results" / slug / "report.html").exists()
    missing = CliRunner().invoke(main, ["report", "no-such-project"])
    assert missing.exit_code == 1 and "error:" in missing.output


def test_hostile_project_and_paper_text_is_escaped_everywhere_it_shows(project):
    """The template escapes: a title, abstract and paper title that are markup show as text, in the page's
    <title>, header, summary and tables, and add no element."""
    store, _, home = project
    hostile = '<script>alert("x")</script> & \'q\' </td>'
    slug = "report-hostile"
    add_project(store, slug, (DEMO / "abstract.md").read_text() + hostile, title=hostile)
    frame = pd.read_csv(DEMO / "papers.csv")
    frame.loc[0, "title"] = f"{frame.loc[0, 'title']} {hostile}"
    frame.to_csv(home / "hostile.csv", index=False)
    add_papers_file(store, slug, home / "hostile.csv")
    backend = OfflineStageBackend()
    run_intent(store, backend, slug)
    run_queries(store, backend, slug)
    score_project(store, backend, slug)
    page = build_report(store, slug)
    assert "<script" not in page.lower() and "</td> &" not in page
    escaped = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;q&#39; &lt;/td&gt;"
    assert f"<title>{escaped} · agentr report</title>" in page and f"<h1>{escaped}</h1>" in page
    assert page.count(escaped) >= 4  # title, header, abstract, the paper's row in the papers table
