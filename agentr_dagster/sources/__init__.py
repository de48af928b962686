"""Search sources: small clients for the public literature databases, behind one contract (``contract.py``).

- ``openalex.OpenAlexSource``, ``pubmed.PubMedSource``, ``europepmc.EuropePMCSource``, ``arxiv.ArxivSource``:
  ``translate(query)`` and ``search(query, max_results=, since=)`` (pages, date filter, failures as outcomes);
  OpenAlex also walks the citation graph (``references``, ``citing``, ``work_by_doi``) for snowballing;
- ``crossref.CrossrefClient.enrich(records)``: missing abstracts, years and venues by DOI;
- ``translate.py``: the Boolean query in each dialect; ``http.py``: the one cached, polite, retried GET;
- ``cache.ResponseCache``: answers kept in the domain store (``store.sources``) or in memory; ``refresh=True``
  sends every request again.
"""
