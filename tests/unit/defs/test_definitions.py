"""The code location loads and holds everything the UI should show."""

import re

from dagster import AssetKey

from agentr_dagster.definitions import defs
from agentr_dagster.screening.version import engine_version
from tests.support import REPO


def test_code_location_holds_the_chain_job_and_sensor():
    graph = defs.resolve_asset_graph()
    keys = {key.to_user_string() for key in graph.get_all_asset_keys()}
    assert keys == {"research_intent", "search_queries", "candidate_papers", "relevance", "paper_scores",
                    "score_exports", "research_landscape", "related_work", "snowball", "inbox"}
    assert not graph.get(AssetKey("inbox")).is_materializable  # the drop folder: observed by the sensor only
    assert defs.resolve_job_def("project_pipeline").executor_def.name == "in_process"  # measured: README
    # the implicit asset job (the UI's Materialize buttons, the labels sensor's re-rank runs) runs in-process too
    assert defs.resolve_implicit_global_asset_job_def().executor_def.name == "in_process"
    assert defs.resolve_sensor_def("inbox_sensor") is not None
    scores = graph.get(AssetKey("paper_scores"))
    assert scores.partitions_def.name == "projects"
    assert {k.to_user_string() for k in scores.parent_keys} == {"candidate_papers", "research_intent", "relevance"}
    assert scores.code_version.startswith("score-v1-")
    # relevance sits between the candidates and the scores, versioned by the screening engine's code
    relevance = graph.get(AssetKey("relevance"))
    assert {k.to_user_string() for k in relevance.parent_keys} == {"candidate_papers"}
    assert relevance.code_version == engine_version() and relevance.code_version.startswith("engine-")
    exports = graph.get(AssetKey("score_exports"))
    assert {k.to_user_string() for k in exports.parent_keys} == {"paper_scores", "relevance"}


def test_api_key_comes_from_the_environment_not_the_config(monkeypatch):
    from agentr_dagster.definitions import build_definitions

    monkeypatch.setenv("AGENTR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTR_LLM_API_KEY", "sk-fake-secret-123")
    llm = build_definitions().resources["llm"]  # settings are read when the code location is built
    assert "sk-fake-secret-123" not in repr(llm)
    assert llm.base_url.env_var_name == "AGENTR_LLM_BASE_URL"


def test_the_embedded_instance_config_lives_in_the_package_only(tmp_path, monkeypatch):
    """`dagster dev` warns about a dagster.yaml in the folder it starts in that is not DAGSTER_HOME, so the repo
    root has none: the package's copy is the one the CLI and `make ui` write into $AGENTR_HOME/dagster."""
    from agentr_dagster.settings import dagster_home

    assert not (REPO / "dagster.yaml").exists() and not (REPO / "dagster.yml").exists()
    monkeypatch.setenv("AGENTR_HOME", str(tmp_path))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    written = dagster_home() / "dagster.yaml"
    assert written.read_text() == (REPO / "agentr_dagster" / "data" / "dagster.yaml").read_text()


def _outside_code_spans(text: str) -> str:
    return re.sub(r"`[^`]*`", "", text)


def test_descriptions_shown_as_markdown_keep_their_placeholders():
    """The UI renders asset, check and job descriptions as Markdown: a bare `<project>` is taken for an HTML tag
    and disappears ("inbox/rejected//"), so every placeholder in angle brackets must be in a code span."""
    graph = defs.resolve_asset_graph()
    texts = {key.to_user_string(): graph.get(key).description or "" for key in graph.get_all_asset_keys()}
    texts.update({f"check {key.name}": graph.get_check_spec(key).description or ""
                  for key in graph.asset_check_keys})
    texts.update({f"job {job.name}": job.description or "" for job in defs.resolve_all_job_defs()})
    bare = {name: re.findall(r"<[A-Za-z_][^>]*>", _outside_code_spans(text)) for name, text in texts.items()}
    assert {name: tags for name, tags in bare.items() if tags} == {}
    assert "`inbox/rejected/<project>/`" in texts["inbox"]
