"""Screening/ranking: metrics, the screen() contract, active learning, CLI and bench (synthetic data only)."""

from __future__ import annotations

import hashlib
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from agentr_dagster.domain import embeddings as emb_mod
from agentr_dagster.domain import ranking as rk


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder: a stand-in for the static model (no files needed)."""

    name = "test:hash-bow"
    dim = 64

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", str(t).lower()):
                h = int(hashlib.md5(w.encode()).hexdigest()[:8], 16)
                out[i, h % self.dim] += 1.0 if (h >> 8) & 1 else -1.0
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, n, out=np.zeros_like(out), where=n > 0)


@pytest.fixture()
def fake_embedder(monkeypatch):
    e = HashEmbedder()
    monkeypatch.setattr(emb_mod, "_EMBEDDER", e)
    return e


# ---------------------------------------------------------------------------------------------------------- metrics


def test_wss_and_recall_known_values():
    perfect = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert rk.wss_at(perfect) == pytest.approx(0.8 - 0.05)
    assert rk.recall_at(perfect, 0.10) == pytest.approx(0.5)
    assert rk.recall_at(perfect, 0.20) == pytest.approx(1.0)
    worst = [0] * 8 + [1, 1]
    assert rk.wss_at(worst) == pytest.approx(-0.05)
    assert rk.recall_at(worst, 0.2) == 0.0
    # 20 includes in 100: the 19th (= ceil(0.95 * 20)) found at position 50 -> WSS = 50/100 - 0.05
    y = np.zeros(100, dtype=int)
    y[:18] = 1
    y[49] = 1
    y[99] = 1
    assert rk.wss_at(y) == pytest.approx(0.45)
    assert rk.recall_at(y, 0.10) == pytest.approx(10 / 20)
    assert rk.recall_at(y, 0.20) == pytest.approx(18 / 20)
    m = rk.evaluate_order(y)
    assert set(m) == {"wss95", "recall10", "recall20"}
    # WSS@100 needs every include
    assert rk.wss_at(y, recall=1.0) == pytest.approx(0.0)
    assert math.isnan(rk.wss_at([0, 0, 0]))
    assert math.isnan(rk.recall_at([], 0.1))


def test_random_order_wss_is_near_zero():
    rng = np.random.default_rng(1)
    y = np.zeros(2000, dtype=int)
    y[:100] = 1
    vals = [rk.wss_at(rng.permutation(y)) for _ in range(20)]
    assert abs(float(np.mean(vals))) < 0.05


def test_choose_priors_and_order():
    y = np.array([0, 1, 0, 0, 1, 0])
    a = rk.choose_priors(y, seed=3)
    assert a == rk.choose_priors(y, seed=3)
    assert y[a[0]] == 1 and y[a[1]] == 0
    with pytest.raises(ValueError):
        rk.choose_priors(np.zeros(5), 0)
    assert list(rk.order_from_scores(np.array([0.1, 0.5, 0.5, -1]))) == [1, 2, 0, 3]


def test_simulate_active_oracle_and_permutation():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.1).astype(int)
    priors = rk.choose_priors(y, 0)
    calls = []

    def oracle(idx, yl):
        calls.append(len(idx))
        return y.astype(float)

    order = rk.simulate_active(oracle, y, priors)
    assert list(order[:2]) == list(priors)
    assert sorted(order.tolist()) == list(range(300))
    assert y[order][: y.sum() + 1].sum() == y.sum()  # all includes right after the exclude prior
    assert rk.wss_at(y[order]) > 0.8
    # growing batches: far fewer re-trainings than labels when run to the end
    calls.clear()
    rk.simulate_active(lambda i, yl: rng.random(300), y, priors, stop_when_all_found=False)
    assert len(calls) < 300


# ---------------------------------------------------------------------------------------------------------- text


def test_clean_text_and_question():
    assert rk.clean_text(None) == ""
    assert rk.clean_text(float("nan")) == ""
    assert rk.clean_text(b"caf\xc3\xa9 <i>x</i>\x00\x07  y") == "café x y"
    q = "Does drug A help? Relevant studies are RCTs. Observational studies are not relevant."
    assert "Observational" not in rk.clean_question(q)
    assert "RCTs" in rk.clean_question(q)
    assert rk.tokenize("Beta-blockers, the Studies of 2 trials") == ["beta-blocker", "study", "2", "trial"]


# ---------------------------------------------------------------------------------------------------------- screen()


def _messy_papers() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "record_id": ["a", "b", "b", "", None, "c", "d", "e", "f", "g"],
            "title": [
                "Beta blockers in heart failure: a randomized trial",
                "Carvedilol versus metoprolol",
                "Carvedilol versus metoprolol (duplicate row, longer title)",
                "",
                "Untitled",
                "<b>HTML</b> &amp; emoji 🫀🫀 \x00 control\x07chars",
                float("nan"),
                "x" * 5000,
                "日本語のタイトル",
                "Software engineering survey",
            ],
            "abstract": [
                "We randomised 200 patients with heart failure to bisoprolol or placebo.",
                "",
                None,
                "Only an abstract, no title.",
                float("nan"),
                "Ωmega ≥ 3 ; 'quotes' \"double\" , commas,\nnewlines",
                "",
                "y " * 3000,
                "",
                "A mapping study of agile practices.",
            ],
            "year": ["2001", "", "x", None, "1999", "", "", "", "", ""],
        }
    )


def test_screen_contract_on_messy_input(fake_embedder):
    papers = _messy_papers()
    out = rk.screen("Beta blockers for heart failure: randomized trials", papers)
    assert list(out.columns[:3]) == ["record_id", "rank", "score"]
    expected_ids = {"a", "b", "row-4", "row-5", "c", "d", "e", "f", "g"}
    assert set(out["record_id"]) == expected_ids
    assert out["record_id"].is_unique
    assert list(out["rank"]) == list(range(1, len(expected_ids) + 1))
    assert out["score"].is_monotonic_decreasing
    assert np.isfinite(out["score"]).all()
    assert out["record_id"].iloc[0] == "a"  # the obvious match is first
    assert out["record_id"].iloc[-1] != "a"


def test_screen_edge_cases(fake_embedder):
    empty = rk.screen("anything", pd.DataFrame(columns=["record_id", "title", "abstract"]))
    assert len(empty) == 0 and list(empty.columns[:3]) == ["record_id", "rank", "score"]
    one = rk.screen("", pd.DataFrame({"record_id": [1], "title": [""], "abstract": [""]}))
    assert one["record_id"].tolist() == ["1"] and one["rank"].tolist() == [1]
    no_abstract_col = rk.screen("heart", pd.DataFrame({"record_id": ["p", "q"], "title": ["heart", "lung"]}))
    assert no_abstract_col["record_id"].tolist() == ["p", "q"]
    ids_only = rk.screen("q", pd.DataFrame({"record_id": ["z", "y", "x"]}))
    assert sorted(ids_only["record_id"]) == ["x", "y", "z"]


def test_screen_with_labels(fake_embedder):
    papers = _messy_papers()
    out = rk.screen("heart failure", papers, labels={"g": "include", "a": 0, "zzz": 1, "c": "maybe"})
    assert out["record_id"].iloc[0] == "g"
    assert out["record_id"].iloc[-1] == "a"
    assert out.set_index("record_id").loc["c", "label"] == ""
    assert len(out) == 9 and out["method"].iloc[0] == "active"


# ---------------------------------------------------------------------------------------------------------- learning


def _synthetic_review(n=400, n_inc=30, seed=0):
    """Includes share hidden design words the question never mentions; every record matches the topic."""
    rng = np.random.default_rng(seed)
    topic = ["hypertension", "blood", "pressure", "ace", "inhibitor", "enalapril", "patients", "treatment"]
    hidden = ["randomized", "double-blind", "placebo", "crossover", "allocation", "masked", "titration"]
    other = ["cohort", "registry", "review", "editorial", "cost", "survey", "pharmacy", "guideline", "letter"]
    filler = [f"w{i}" for i in range(300)]
    titles, abstracts, y = [], [], []
    for i in range(n):
        inc = i < n_inc
        words = list(rng.choice(topic, 6)) + list(rng.choice(filler, 25))
        words += list(rng.choice(hidden if inc else other, 5 if inc else 6))
        if not inc and rng.random() < 0.5:
            words += list(rng.choice(topic, 6))  # many excludes are even more on-topic
        rng.shuffle(words)
        titles.append(" ".join(words[:8]))
        abstracts.append(" ".join(words[8:]))
        y.append(int(inc))
    perm = rng.permutation(n)
    return [titles[i] for i in perm], [abstracts[i] for i in perm], np.asarray(y)[perm]


def test_active_learning_beats_zero_shot_on_synthetic_review():
    titles, abstracts, y = _synthetic_review()
    feats = rk.build_features(titles, abstracts, HashEmbedder())
    question = "ACE inhibitors such as enalapril for patients with hypertension (blood pressure treatment)"
    zs = rk.zero_shot_scores(question, feats)
    zs_wss = rk.wss_at(y[rk.order_from_scores(zs)])
    ranker = rk.ActiveRanker(feats, zs)
    order = rk.simulate_active(ranker.scores, y, rk.choose_priors(y, 0))
    al_wss = rk.wss_at(y[order])
    assert sorted(order.tolist()) == list(range(len(y)))
    assert al_wss > zs_wss + 0.2
    assert al_wss > 0.6


def test_zero_shot_prefers_on_topic_records():
    titles = ["beta blockers heart failure trial"] * 5 + ["software testing survey"] * 45
    abstracts = ["carvedilol bisoprolol mortality"] * 5 + ["unit tests code coverage"] * 45
    feats = rk.build_features(titles, abstracts, HashEmbedder())
    s = rk.zero_shot_scores("beta blockers (carvedilol) in heart failure", feats)
    assert set(rk.order_from_scores(s)[:5].tolist()) == set(range(5))


# ---------------------------------------------------------------------------------------------------------- CLI/bench


def test_cli_screen(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("Beta blockers for heart failure", encoding="utf-8")
    _messy_papers().to_csv(tmp_path / "papers.csv", index=False)
    (tmp_path / "labels.csv").write_text("record_id,label\ng,include\na,exclude\nnope,1\n", encoding="utf-8")
    runner = CliRunner()
    args = ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "papers.csv")]
    res = runner.invoke(screen_command, [*args, "--out", str(tmp_path / "out.csv"), "--llm-top", "5"])
    assert res.exit_code == 0, res.output
    assert "no LLM configured" in res.output
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns[:3]) == ["record_id", "rank", "score"] and out["record_id"].is_unique
    assert len(out) == 9
    res = runner.invoke(
        screen_command, [*args, "--out", str(tmp_path / "o2.csv"), "--labels", str(tmp_path / "labels.csv")]
    )
    assert res.exit_code == 0, res.output
    out2 = pd.read_csv(tmp_path / "o2.csv", dtype=str, keep_default_na=False)
    assert out2["record_id"].iloc[0] == "g" and out2["record_id"].iloc[-1] == "a"


def test_cli_screen_hostile_csv(tmp_path, fake_embedder):
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_bytes(b"\xff\xfe odd question \x00")
    raw = (
        "\ufeffrecord_id,title,abstract\n"
        '1,"multi\nline title","abs, with comma"\n'
        "2,short\n"
        "3,a,b,EXTRA,FIELDS\n"
        "1,dup,dup\n"
    )
    (tmp_path / "p.csv").write_text(raw, encoding="utf-8")
    res = CliRunner().invoke(
        screen_command,
        ["--question", str(tmp_path / "q.txt"), "--papers", str(tmp_path / "p.csv"), "--out", str(tmp_path / "o.csv")],
    )
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert out["record_id"].is_unique and set(out["record_id"]) == {"1", "2", "3"}


def test_cli_screen_keeps_ids_of_a_bom_file_with_stray_cp1252_bytes(tmp_path, fake_embedder):
    """A UTF-8 file with a byte-order mark and one Latin-1 byte used to be read as Latin-1 whole: the BOM became
    part of the first header, the record_id column was lost and the output carried made-up row ids."""
    from agentr_dagster.cli.screen import screen_command

    (tmp_path / "q.txt").write_text("statins and cardiovascular outcomes", encoding="utf-8")
    raw = b'\xef\xbb\xbfrecord_id,title,abstract\n007,"Statins, and ""you""","a\nb"\n008,,\n009,Caf\xe9 statins,\n'
    (tmp_path / "p.csv").write_bytes(raw)
    (tmp_path / "x.csv").write_bytes(b"PK\x03\x04 not a csv")
    args = ["--question", str(tmp_path / "q.txt"), "--out", str(tmp_path / "o.csv")]
    res = CliRunner().invoke(screen_command, [*args, "--papers", str(tmp_path / "p.csv")])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert sorted(out["record_id"]) == ["007", "008", "009"]
    res = CliRunner().invoke(screen_command, [*args, "--papers", str(tmp_path / "x.csv")])
    assert res.exit_code != 0 and "ZIP archive" in res.output


def test_read_table_guesses_the_delimiter_and_drops_stray_nul_bytes():
    from agentr_dagster.domain.tables import read_table

    df = read_table(b" record_id ;title;abstract\n1;stat\x00ins;x\n2;other;y\n")
    assert list(df.columns) == ["record_id", "title", "abstract"]
    assert df["title"].tolist() == ["statins", "other"]
    assert read_table(b"  \n").columns.tolist() == ["record_id", "title", "abstract"]
    utf16 = "record_id,title\n1,Caf\u00e9\n".encode("utf-16")
    assert read_table(utf16)["title"].tolist() == ["Caf\u00e9"]


def _write_review(folder, seed):
    titles, abstracts, y = _synthetic_review(n=150, n_inc=12, seed=seed)
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"record_id": [f"r{i}" for i in range(len(y))], "title": titles, "abstract": abstracts, "label_included": y}
    ).to_csv(folder / "papers.csv", index=False)
    (folder / "review.json").write_text(json.dumps({"name": folder.name, "question": "ACE inhibitors hypertension"}))


def test_bench_screening(tmp_path, fake_embedder, monkeypatch):
    from agentr_dagster.bench.screening import format_table, run_screening_bench
    from agentr_dagster.cli.screen import bench_screening_command

    monkeypatch.delenv("AGENTR_ASREVIEW_PYTHON", raising=False)
    monkeypatch.setattr("agentr_dagster.bench.screening._asreview_inprocess_ok", lambda: False)
    _write_review(tmp_path / "rev1", 1)
    _write_review(tmp_path / "rev2", 2)
    res = run_screening_bench(tmp_path, seed=0, st_dense=False)
    assert [r["name"] for r in res["reviews"]] == ["rev1", "rev2"]
    for r in res["reviews"]:
        assert set(r["modes"]) == {"zero_shot", "feedback", "bm25", "dense", "random", "asreview"}
        for m in r["modes"].values():
            assert sorted(m["order"]) == sorted(f"r{i}" for i in range(150))
        assert r["modes"]["feedback"]["order"][:2] == r["priors"]
        assert r["modes"]["asreview"]["order"][:2] == r["priors"]
        assert "re-implementation" in r["modes"]["asreview"]["implementation"]
    assert res["mean"]["feedback"]["wss95"] > res["mean"]["random"]["wss95"]
    assert "mean" in format_table(res)

    # a review.json written with a byte-order mark (as some Windows editors do) still loads
    meta = (tmp_path / "rev2" / "review.json").read_text(encoding="utf-8")
    (tmp_path / "rev2" / "review.json").write_text(meta, encoding="utf-8-sig")
    cli = CliRunner().invoke(bench_screening_command, [str(tmp_path), "--json", "--no-feedback", "--no-st-dense"])
    assert cli.exit_code == 0, cli.output
    payload = json.loads(cli.stdout)
    assert set(payload["mean"]) == {"zero_shot", "bm25", "dense", "random"}


def test_active_prior_trust_follows_how_the_prior_ranks_the_labels():
    titles, abstracts, _ = _synthetic_review(n=60, n_inc=10)
    feats = rk.build_features(titles, abstracts, HashEmbedder())
    prior = np.arange(60, dtype=float)[::-1]  # record 0 best, record 59 worst
    ranker = rk.ActiveRanker(feats, prior)
    good = np.array([0, 1, 2, 3, 50, 51, 52, 53])  # includes on top of the prior, excludes at the bottom
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    assert ranker.prior_trust(good, y) == 1.0
    assert ranker.prior_trust(good, 1 - y) == 0.0  # the prior ranks these labels upside down: ignore it
    assert 0.0 < ranker.prior_trust(good[[0, 4]], np.array([0, 1])) < 1.0  # one pair: shrunk, not switched off
    # the prior's weight decays with the includes found (half-life in includes)
    cfg = rk.ActiveConfig()
    assert ranker.prior_weight(1) == cfg.prior_weight
    assert abs(ranker.prior_weight(1 + int(cfg.prior_half_life)) - cfg.prior_weight / 2) < 1e-9
    # with a trusted prior its order survives a weak classifier; with an inverted one the classifier takes over
    s_good = ranker.scores(good, y)
    s_bad = ranker.scores(good, 1 - y)
    assert np.corrcoef(s_good, prior)[0, 1] > np.corrcoef(s_bad, prior)[0, 1]
