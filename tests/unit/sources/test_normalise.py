"""Each API's documented record shape → the project's paper model (small documents written for these tests)."""

from __future__ import annotations

import json

import pytest

from agentr_dagster.sources.arxiv import ATOM, _feed, arxiv_id, entry_to_found
from agentr_dagster.sources.base import is_untitled, load_xml
from agentr_dagster.sources.crossref import _work, crossref_venue, crossref_year
from agentr_dagster.sources.europepmc import _search_page, result_to_found
from agentr_dagster.sources.http import MalformedResponse, RejectedRequest
from agentr_dagster.sources.openalex import _list_page, abstract_from_inverted_index, work_to_found
from agentr_dagster.sources.pubmed import _efetch, _esearch, article_to_found

OPENALEX_WORK = {
    "id": "https://openalex.org/W2741809807",
    "doi": "https://doi.org/10.7717/PEERJ.4375",
    "title": "The state of OA: a large-scale analysis",
    "display_name": "The state of OA: a large-scale analysis",
    "publication_year": 2018,
    "publication_date": "2018-02-13",
    "primary_location": {"landing_page_url": "https://doi.org/10.7717/peerj.4375",
                         "source": {"id": "https://openalex.org/S1983995261", "display_name": "PeerJ"}},
    "authorships": [{"author_position": "first", "author": {"display_name": "Heather Piwowar"}},
                    {"author_position": "last", "author": {"display_name": "Stefanie Haustein"}}],
    "abstract_inverted_index": {"Despite": [0], "growing": [1], "interest": [2], "in": [3, 6], "OA": [4],
                                "and": [5], "policy,": [7]},
    "referenced_works": ["https://openalex.org/W1", "https://openalex.org/W2"],
}


def test_openalex_work_with_inverted_index_abstract_and_references():
    found = work_to_found(OPENALEX_WORK)
    record = found.record
    assert found.source_id == "W2741809807" and found.references == ["W1", "W2"]
    assert record.abstract == "Despite growing interest in OA and in policy,"
    assert record.doi == "10.7717/peerj.4375"  # lower-cased, prefix removed by the paper model
    assert (record.year, record.venue, record.authors) == (2018, "PeerJ", ["Heather Piwowar", "Stefanie Haustein"])
    assert record.source_format == "openalex"


def test_openalex_work_without_abstract_or_title():
    assert abstract_from_inverted_index(None) == ""
    assert work_to_found({**OPENALEX_WORK, "abstract_inverted_index": None}).record.abstract == ""
    # a DOI and no title: kept for Crossref to name (the search stage asks it before merging)
    untitled = work_to_found({**OPENALEX_WORK, "title": None, "display_name": ""}).record
    assert is_untitled(untitled) and untitled.doi == "10.7717/peerj.4375"
    assert work_to_found({**OPENALEX_WORK, "title": None, "display_name": "", "doi": None, "ids": {}}) is None
    with pytest.raises(MalformedResponse):
        _list_page(json.dumps({"meta": {}, "error": "oops"}))
    assert _list_page(json.dumps({"meta": {"count": 0}}))["results"] == []


ESEARCH = """<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>2</Count><RetMax>0</RetMax><RetStart>0</RetStart><QueryKey>1</QueryKey>
<WebEnv>MCID_abc</WebEnv><IdList/></eSearchResult>"""

EFETCH = """<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">
<PubmedArticleSet>
 <PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">31452104</PMID>
  <Article PubModel="Print"><Journal><JournalIssue CitedMedium="Internet"><PubDate>
  <MedlineDate>2019 Nov-Dec</MedlineDate>
  </PubDate></JournalIssue><Title>Journal of the American Medical Informatics Association : JAMIA</Title></Journal>
  <ArticleTitle>Screening <i>prioritisation</i> with active learning.</ArticleTitle>
  <Abstract><AbstractText Label="OBJECTIVE" NlmCategory="OBJECTIVE">To rank citations.</AbstractText>
  <AbstractText Label="RESULTS" NlmCategory="RESULTS">Work saved: 60%.</AbstractText></Abstract>
  <AuthorList CompleteYN="Y"><Author ValidYN="Y"><LastName>Smith</LastName><ForeName>Jane</ForeName></Author>
  <Author ValidYN="Y"><CollectiveName>The Screening Group</CollectiveName></Author></AuthorList></Article>
 </MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">31452104</ArticleId>
  <ArticleId IdType="doi">10.1093/jamia/ocz001</ArticleId></ArticleIdList></PubmedData></PubmedArticle>
 <PubmedArticle><MedlineCitation><PMID>2</PMID><Article><Journal><JournalIssue><PubDate><Year>2021</Year></PubDate>
  </JournalIssue><Title>J</Title></Journal><ArticleTitle>No abstract here.</ArticleTitle>
  <ELocationID EIdType="doi" ValidYN="Y">10.1/X</ELocationID></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>"""


def test_pubmed_esearch_history_and_efetch_articles():
    result = _esearch(ESEARCH)
    assert (result.findtext("Count"), result.findtext("QueryKey"), result.findtext("WebEnv")) == ("2", "1", "MCID_abc")
    first, second = (article_to_found(a) for a in _efetch(EFETCH).findall("PubmedArticle"))
    record = first.record
    assert first.source_id == "31452104"
    assert record.title == "Screening prioritisation with active learning"  # markup kept as text, final period off
    assert record.abstract == "Objective: To rank citations. Results: Work saved: 60%."
    assert (record.year, record.doi) == (2019, "10.1093/jamia/ocz001")  # year from MedlineDate
    assert record.authors == ["Jane Smith", "The Screening Group"]
    assert record.venue.startswith("Journal of the American Medical Informatics")
    assert (second.record.year, second.record.doi, second.record.abstract) == (2021, "10.1/x", "")


def test_pubmed_error_answers_are_rejected_not_parsed():
    with pytest.raises(RejectedRequest):
        _esearch("<eSearchResult><ERROR>Invalid query</ERROR></eSearchResult>")
    with pytest.raises(RejectedRequest):
        _efetch("<eFetchResult><ERROR>Unable to obtain query #1</ERROR></eFetchResult>")
    with pytest.raises(MalformedResponse):
        _efetch("<PubmedArticleSet><PubmedArticle>")  # truncated XML


EUROPEPMC = {
    "version": "6.9", "hitCount": 1, "nextCursorMark": "AoIIP4AAACgzMTQ1MjEwNA==",
    "resultList": {"result": [{
        "id": "31452104", "source": "MED", "pmid": "31452104", "pmcid": "PMC6798568", "doi": "10.1093/jamia/ocz001",
        "title": "Screening prioritisation with <i>active</i> learning.", "authorString": "Smith J, Doe A.",
        "authorList": {"author": [{"fullName": "Smith J", "firstName": "Jane", "lastName": "Smith"}]},
        "journalInfo": {"yearOfPublication": 2019, "journal": {"title": "JAMIA"}},
        "pubYear": "2019", "abstractText": "<h4>Objective</h4>To rank citations &amp; save work.",
        "firstPublicationDate": "2019-08-27",
    }, {"id": "PPR1", "source": "PPR", "title": "A preprint", "authorString": "Roe R, Poe P.", "pubYear": "2024"}]},
}


def test_europepmc_core_result_and_a_lite_preprint():
    data = _search_page(json.dumps(EUROPEPMC))
    core, preprint = (result_to_found(r) for r in data["resultList"]["result"])
    assert core.source_id == "31452104"
    assert core.record.title == "Screening prioritisation with active learning"
    assert core.record.abstract == "Objective To rank citations & save work."
    assert (core.record.year, core.record.venue, core.record.authors) == (2019, "JAMIA", ["Smith J"])
    assert core.record.url == "https://europepmc.org/article/MED/31452104"
    assert preprint.source_id == "PPR:PPR1" and preprint.record.authors == ["Roe R", "Poe P"]
    assert _search_page('{"hitCount": 0}')["resultList"]["result"] == []
    with pytest.raises(MalformedResponse):
        _search_page('{"hitCount": 3}')


ARXIV = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
      xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title type="html">ArXiv Query: search_query=all:electron&amp;id_list=&amp;start=0&amp;max_results=1</title>
  <opensearch:totalResults>1</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>http://arxiv.org/abs/2101.00001v2</id>
    <published>2021-01-01T18:00:00Z</published>
    <title>Learning to screen:
      a study</title>
    <summary>  We screen
  papers.
</summary>
    <author><name>Ada Lovelace</name></author><author><name>Alan Turing</name></author>
    <arxiv:doi>10.1000/XYZ</arxiv:doi><arxiv:journal_ref>J. Screening 1 (2021)</arxiv:journal_ref>
    <link href="http://arxiv.org/abs/2101.00001v2" rel="alternate" type="text/html"/>
  </entry>
</feed>"""


def test_arxiv_atom_entry():
    (entry,) = _feed(ARXIV).findall(f"{ATOM}entry")
    found = entry_to_found(entry)
    assert found.source_id == "2101.00001"
    assert found.record.title == "Learning to screen: a study" and found.record.abstract == "We screen papers."
    assert (found.record.year, found.record.doi, found.record.venue) == (2021, "10.1000/xyz", "J. Screening 1 (2021)")
    assert found.record.authors == ["Ada Lovelace", "Alan Turing"]
    assert arxiv_id("http://arxiv.org/abs/hep-th/9901001v1") == "hep-th/9901001"


def test_arxiv_error_feed_is_a_rejected_request():
    error = ARXIV.replace("http://arxiv.org/abs/2101.00001v2</id>", "http://arxiv.org/api/errors#bad</id>")
    with pytest.raises(RejectedRequest):
        _feed(error)
    with pytest.raises(MalformedResponse):
        load_xml("<feed><entry>")


def test_xml_with_entity_tricks_is_refused_not_expanded():
    bomb = ('<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            "<PubmedArticleSet><PubmedArticle>&b;</PubmedArticle></PubmedArticleSet>")
    with pytest.raises(MalformedResponse):
        _efetch(bomb)


CROSSREF = {
    "status": "ok", "message-type": "work",
    "message": {"DOI": "10.1093/jamia/ocz001", "container-title": ["JAMIA"],
                "abstract": "<jats:title>Abstract</jats:title><jats:p>We rank &amp; screen.</jats:p>",
                "published-print": {"date-parts": [[2019, 11]]}, "issued": {"date-parts": [[2019, 8, 27]]}},
}


def test_crossref_work_year_venue_abstract():
    message = _work(json.dumps(CROSSREF))
    assert crossref_year(message) == 2019 and crossref_venue(message) == "JAMIA"
    assert crossref_year({"issued": {"date-parts": [[None]]}}) is None
    with pytest.raises(MalformedResponse):
        _work('{"status": "ok"}')


def test_sparse_records_with_nulls_normalise_without_error():
    """Fields an unknown server may leave null or out: each record still normalises (or is skipped), no raise."""
    work = {"id": "W9", "title": "Only a title", "authorships": None, "primary_location": None,
            "publication_year": None, "referenced_works": None, "abstract_inverted_index": {"x": "bad"}}
    found = work_to_found(work)
    assert (found.record.title, found.record.year, found.record.authors, found.references) == \
        ("Only a title", None, [], [])
    result = {"id": "1", "source": "MED", "pmid": "1", "title": "T", "authorList": None, "journalInfo": None,
              "pubYear": "n.d.", "abstractText": None}
    assert result_to_found(result).record.year is None
    sparse = load_xml("<PubmedArticle><MedlineCitation><PMID>5</PMID><Article><ArticleTitle>T.</ArticleTitle>"
                      "</Article></MedlineCitation></PubmedArticle>")
    assert article_to_found(sparse).record.title == "T"
    entry = load_xml(f'<entry xmlns="{ATOM[1:-1]}"><id>http://arxiv.org/abs/1</id><title>T</title></entry>')
    assert entry_to_found(entry).record.year is None
    assert work_to_found({"id": "W1", "title": "Y", "publication_year": 3000}).record.year is None  # out of range
