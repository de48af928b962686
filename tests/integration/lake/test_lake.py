"""The paper lake: profiles, the bm25s index, weighted RRF, Boolean filters, imports, generations and search.

Real files, the real static embedding model and real processes/threads; no mocks."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agentr_dagster.domain.boolean_query import matches, parse_boolean_query
from agentr_dagster.domain.embeddings import get_embedder
from agentr_dagster.lake import Lake, add_files, add_records, get_profiler, rebuild
from agentr_dagster.lake import files as lf
from agentr_dagster.lake.analysis import analyze, clean_text, paper_text, pretokens, tokenize_texts
from agentr_dagster.lake.boolean import boolean_mask
from tests.support import DEMO


@pytest.fixture(scope="module")
def demo() -> pd.DataFrame:
    return pd.read_csv(DEMO / "papers.csv", keep_default_na=False)


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "lake"


# ---------------------------------------------------------------------------------------------- profiles


ODD_TEXTS = [
    "",
    "   ",
    "Héllo, Wörld! state-of-the-art COVID-19 (n=3) — “quoted” naïve café",
    "\x00\x07control\x1bchars\u200b and zero\ufeffwidth",
    "中文 混合 text with CJK 漢字 and emoji 🙂 ©®° ±5 °C",
    "<b>HTML</b> &amp; tags <i>inside</i>",
    "word " * 900,  # over the model's 512 WordPiece limit
    "x",
]


def test_pretokens_follow_the_model_tokenizers_segmentation(demo):
    tokenizer = get_embedder()._model.tokenizer
    texts = [paper_text(t, a) for t, a in zip(demo.title[:10], demo.abstract[:10], strict=True)] + ODD_TEXTS[2:6]
    for raw in texts:
        text = clean_text(raw)  # what the lake profiles: control characters already gone
        normal = tokenizer.normalizer.normalize_str(text)
        expected = [w for w, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normal)]
        assert pretokens(text) == expected, text[:60]


def test_profile_embeddings_equal_the_embedder(demo):
    embedder = get_embedder()
    texts = [paper_text(t, a) for t, a in zip(demo.title, demo.abstract, strict=True)]
    texts += [clean_text(t) for t in ODD_TEXTS]
    prof = get_profiler().profile(texts, {})
    reference = embedder.encode(texts)
    assert prof.emb.shape == reference.shape and prof.emb.dtype == np.float32
    cos = (prof.emb * reference).sum(axis=1)
    nonzero = np.linalg.norm(reference, axis=1) > 0
    assert np.all(cos[nonzero] > 0.9999), cos[nonzero].min()
    assert np.all(np.linalg.norm(prof.emb[~nonzero], axis=1) == 0)  # empty text: zero vector, as the embedder
    assert np.isfinite(prof.emb).all()


def test_profile_words_equals_profile_and_terms_match_analyze(demo):
    profiler = get_profiler()
    texts = [paper_text(t, a) for t, a in zip(demo.title, demo.abstract, strict=True)] + ODD_TEXTS
    vocab_a: dict[str, int] = {}
    a = profiler.profile(texts, vocab_a)
    local, flat, offsets = tokenize_texts(texts)
    vocab_b: dict[str, int] = {}
    b = profiler.profile_words(profiler.word_ids(local)[flat], offsets, vocab_b)
    assert np.allclose(a.emb, b.emb, atol=1e-6)
    inverse_a = {v: k for k, v in vocab_a.items()}
    for i, text in enumerate(texts):
        terms = [inverse_a[t] for t in a.term_ids[a.offsets[i] : a.offsets[i + 1]]]
        assert terms == analyze(text)
    assert "the" not in vocab_a and "review" in vocab_a and "reviews" not in vocab_a  # stop words, plurals


# ---------------------------------------------------------------------------------------------- fusion


# ---------------------------------------------------------------------------------------------- boolean


@pytest.mark.parametrize("query", [
    '"systematic review" AND software',
    "(reuse OR estimation) AND NOT cost",
    "softw* AND evidence",
    "review",
    'NOT "software engineering"',
    '"c++" OR "(n=3)" OR automat*',
])
def test_boolean_mask_agrees_with_matches(demo, query):
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = [paper_text(t, a) for t, a in zip(demo.title, demo.abstract, strict=True)]
    texts += ["Uses C++ heavily (n=3)", "AUTOMATED screening"]
    lowered = pc.utf8_lower(pa.array(texts))
    node = parse_boolean_query(query)
    assert boolean_mask(node, lowered).tolist() == [matches(node, t) for t in texts]


# ---------------------------------------------------------------------------------------------- imports


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    d = tmp_path / "in"
    d.mkdir()
    out = {
        "csv": _write(d / "a.csv", (
            "Title,Abstract,Year,DOI\n"
            "Graph neural networks for protein folding,We fold proteins with graph neural networks.,2021,"
            "10.1000/gnn\n"
            "Static embeddings for citation screening,Model2vec embeddings rank candidate papers.,2023,\n"
            ",an abstract without a title,2020,\n"
            "Quantum annealing for logistics,Annealers route trucks.,2019,10.1000/QA\n"
        )),
        "bib": _write(d / "b.bib", (
            "@article{x1, title={Graph Neural Networks for Protein Folding}, year={2021}, doi={10.1000/GNN},"
            " abstract={We fold proteins with graph neural networks.}}\n"
            "@inproceedings{x2, title={Coral reef bleaching under heat stress}, year={2018},"
            " abstract={Reefs bleach when oceans warm.}}\n"
        )),
        "ris": _write(d / "c.ris", (
            "TY  - JOUR\nTI  - Static embeddings for citation screening\nPY  - 2023\n"
            "AB  - Model2vec embeddings rank candidate papers.\nER  - \n"
            "TY  - JOUR\nTI  - Soil microbes and drought\nPY  - 2020\nAB  - Microbes survive dry soils.\nER  - \n"
        )),
        "openalex": _write(d / "d.jsonl", json.dumps({
            "id": "https://openalex.org/W1", "title": "Transformers for machine translation",
            "publication_year": 2017, "doi": "https://doi.org/10.1000/TRANS",
            "abstract_inverted_index": {"Attention": [0], "is": [1], "all": [2], "you": [3], "need": [4]},
        }) + "\n" + "{not json\n"),
        "arxiv": _write(d / "e.jsonl", json.dumps({
            "id": "2101.00001", "title": "Coral reef bleaching under heat stress (replication)",
            "abstract": "Reefs bleach when oceans warm.", "authors": "A. Smith and B. Jones",
            "update_date": "2021-01-05",
        }) + "\n"),
        "binary": d / "f.csv",
    }
    out["binary"].write_bytes(b"%PDF-1.7\n\x00\x01binary")
    return out


def test_add_files_matches_a_title_without_a_year_across_files(root, tmp_path):
    with_year = _write(tmp_path / "y.csv", "title,year\nCoral reef bleaching under heat stress,2020\nEditorial,2020\n")
    without = _write(tmp_path / "n.ris", "TY  - JOUR\nTI  - Coral reef bleaching under heat stress.\nER  - \n"
                     "TY  - JOUR\nTI  - Editorial\nER  - \n")
    add_files([with_year], root=root)
    report = add_files([without], root=root)
    assert report.files[0].duplicates == 1 and report.files[0].added == 1  # the short title needs a year
    assert Lake.open(root).n == 3
    ris = "TY  - JOUR\nTI  - Introduction to the special issue\nAU  - {}\nER  - \n"
    add_files([_write(tmp_path / "e.csv", "title,authors,year\nIntroduction to the special issue,Smith J,2019\n")],
              root=root)
    same_author = add_files([_write(tmp_path / "s.ris", ris.format("Smith, John"))], root=root)
    other_author = add_files([_write(tmp_path / "o.ris", ris.format("Jones, Mary"))], root=root)
    assert (same_author.files[0].added, same_author.files[0].duplicates) == (0, 1)
    assert (other_author.files[0].added, other_author.files[0].duplicates) == (1, 0)  # another paper
    assert Lake.open(root).n == 5


def test_a_file_import_and_the_lake_agree_on_which_papers_are_the_same(root, tmp_path):
    # near-identical titles, disagreeing abstracts, a DOI conflict: the lake (across two writes, so the first
    # file's papers are read back from the stored columns) groups them as an import of both files does
    from agentr_dagster.imports import dedupe, parse_file

    topic = "We screen citations for systematic reviews with active learning and report recall and work saved. "
    other = "Glaciers in the southern Andes lost mass faster than modelled, mostly through calving at lake fronts. "
    first = _write(tmp_path / "first.csv", "title,year,doi,abstract\n"
                   f"Active learning for systematic review screening,2020,,{topic * 3}\n"
                   f"Critic systems for the operational models of power grids,2021,,{topic * 3}\n"
                   "Outcomes of the screening trial part 1,2019,10.1000/a,\n")
    second = _write(tmp_path / "second.ris", "".join(
        f"TY  - JOUR\nTI  - {t}\nPY  - {y}\n{f'DO  - {d}' + chr(10) if d else ''}AB  - {a}\nER  - \n"
        for t, y, d, a in [
            ("Active learning for systematic reviews screening", 2020, "", topic * 3 + "(c) 2020 Elsevier."),
            ("Critic Systems for the Operational Models of Power Grids", 2021, "", other * 3),  # another paper
            ("Outcomes of the screening trial part 1", 2019, "10.1000/b", ""),  # another DOI
            ("Outcomes of the screening trial part 2", 2019, "", ""),  # other numbers
        ]))
    add_files([first], root=root)
    report = add_files([second], root=root)
    assert (report.files[0].added, report.files[0].duplicates) == (3, 1)
    records = parse_file(first).records + parse_file(second).records
    unique, _ = dedupe(records)
    lake = Lake.open(root)
    assert lake.n == len(unique) == 6
    assert [r.title for r in lake.records(range(lake.n))] == [r.title for r in unique]


def test_add_files_dedupes_across_formats_and_reports_bad_files(root, files):
    report = add_files([files[k] for k in ("csv", "bib", "ris", "openalex", "arxiv", "binary")], root=root)
    by_name = {f.name: f for f in report.files}
    assert by_name["a.csv"].added == 3 and by_name["a.csv"].dropped == 1
    assert any("row" in note for note in by_name["a.csv"].notes)
    assert by_name["b.bib"].duplicates == 1 and by_name["b.bib"].added == 1  # same DOI, other case
    assert by_name["c.ris"].duplicates == 1 and by_name["c.ris"].added == 1  # same title + year, no DOI
    assert by_name["d.jsonl"].added == 1 and by_name["d.jsonl"].dropped == 1  # the bad JSON line
    assert by_name["e.jsonl"].added == 1
    assert by_name["f.csv"].error and "PDF" in by_name["f.csv"].error
    assert [f.name for f in report.rejected] == ["f.csv"]
    assert report.papers == 7 and report.generation == 1

    lake = Lake.open(root)
    assert lake.n == 7 and lake.stats()["records_seen"] == 9
    import pyarrow.parquet as pq

    sources = pq.read_table(lake.path / "sources.parquet").to_pylist()
    gnn = [s for s in sources if s["lake_id"] == 0]
    assert {s["file"] for s in gnn} == {"a.csv", "b.bib"} and {s["format"] for s in gnn} == {"csv", "bibtex"}
    openalex = lake.records([5])[0]
    assert openalex.abstract == "Attention is all you need" and openalex.doi == "10.1000/trans"
    assert openalex.source_format.startswith("jsonl")

    again = add_files([files["csv"], files["bib"]], root=root)
    assert all(f.already_ingested for f in again.files) and again.generation == 1 and again.added == 0


def test_lake_keys_are_the_import_keys(files):
    from agentr_dagster.imports import content_hash, paper_key, parse_file
    from agentr_dagster.lake.core import records_table

    records = [r for k in ("csv", "bib", "ris", "openalex", "arxiv") for r in parse_file(files[k]).records]
    table, words = records_table(records)
    assert table["paper_key"].to_pylist() == [paper_key(r) for r in records]
    assert table["content_hash"].to_pylist() == [content_hash(r) for r in records]
    first = [words[i] for i in table["words"][0].as_py()]
    assert first == pretokens(paper_text(records[0].title, records[0].abstract))


def test_same_text_under_a_new_key_reuses_its_profile(root, files):
    add_files([files["csv"]], root=root)
    first = Lake.open(root)
    report = add_records(
        [{"title": "Graph neural networks for protein folding", "abstract": "We fold proteins with graph neural "
          "networks.", "year": 2021, "doi": "10.1000/gnn-preprint"}],
        root=root,
    )
    assert report.added == 1 and report.profiled == 0 and report.reused_profiles == 1
    lake = Lake.open(root)
    assert lake.generation == first.generation + 1 and lake.n == 4
    assert np.array_equal(np.asarray(lake.emb[3]), np.asarray(lake.emb[0]))
    # the reader opened before the write still works on its generation
    assert first.search("protein folding", 1)[0].title == "Graph neural networks for protein folding"


def test_search_boolean_and_floor(root, files, demo):
    add_files([files["csv"], files["bib"], files["ris"], files["openalex"], files["arxiv"]], root=root)
    add_files([DEMO / "papers.csv"], root=root)
    lake = Lake.open(root)
    assert lake.n == 47
    hits = lake.search("folding proteins with graph networks", k=3)
    assert hits[0].title == "Graph neural networks for protein folding" and hits[0].lexical_rank == 1
    assert [h.rank for h in hits] == [1, 2, 3] and hits[0].score >= hits[1].score >= hits[2].score
    mask = lake.boolean_mask('reef* AND NOT replication')
    assert mask.sum() == 1
    only = lake.search("coral", k=5, mask=mask)
    assert [h.title for h in only] == ["Coral reef bleaching under heat stress"]
    assert lake.search("zzqx unknownword", k=5, min_cosine=0.99) == []
    assert lake.search("", k=5) == [] and lake.search("\x00 \u200b", k=5) == []
    assert len(lake.search("software cost estimation", k=1000)) == 47  # every paper is in the dense list
    software = lake.search("software cost estimation uncertainty", k=5)
    assert any("Cost" in h.title for h in software[:2])


def test_empty_lake_and_failed_write_leave_the_live_generation(root, files, monkeypatch):
    assert Lake.open(root) is None
    add_files([files["csv"]], root=root)
    live = lf.current_generation(root)

    import agentr_dagster.lake.core as core

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(core, "save_bm25", broken)
    with pytest.raises(OSError):
        add_files([files["bib"]], root=root)
    assert lf.current_generation(root) == live and Lake.open(root).n == 3
    monkeypatch.undo()
    report = add_files([files["bib"]], root=root)  # the leftover temporary directory is cleaned up
    assert report.generation == 2 and not [p for p in root.iterdir() if ".tmp-" in p.name]


def test_concurrent_writers_serialise(root, files):
    errors: list[BaseException] = []

    def work(path: Path) -> None:
        try:
            add_files([path], root=root)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(files[k],)) for k in ("csv", "ris", "arxiv", "openalex")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    lake = Lake.open(root)
    assert lake.generation == 4 and lake.n == 3 + 1 + 1 + 1  # the RIS file: one new paper, one duplicate
    assert len(lake.manifest["files"]) == 4


def test_old_generations_are_pruned(root, tmp_path):
    for i in range(5):
        path = _write(tmp_path / f"p{i}.csv", f"title,abstract\nPaper number {i} on topic {i},Text {i}.\n")
        add_files([path], root=root)
    generations = sorted(p.name for p in root.iterdir() if p.name.startswith("gen-"))
    assert generations == ["gen-000003", "gen-000004", "gen-000005"]
    assert Lake.open(root).n == 5


def test_rebuild_and_parallel_parse_give_the_same_lake(tmp_path, files):
    paths = [files[k] for k in ("csv", "bib", "ris", "openalex", "arxiv")]
    serial = add_files(paths, root=tmp_path / "one")
    parallel = add_files(paths, root=tmp_path / "two", workers=2)
    assert (serial.papers, serial.added) == (parallel.papers, parallel.added)
    a, b = Lake.open(tmp_path / "one"), Lake.open(tmp_path / "two")
    assert np.allclose(np.asarray(a.emb), np.asarray(b.emb))
    rebuilt = rebuild(tmp_path / "one")
    assert rebuilt.generation == 2 and rebuilt.papers == serial.papers
    c = Lake.open(tmp_path / "one")
    assert np.allclose(np.asarray(a.emb), np.asarray(c.emb))
    for q in ("protein folding", "coral reef"):
        assert [h.lake_id for h in a.search(q, 3)] == [h.lake_id for h in c.search(q, 3)]
