"""Sample reference exports shared by the import tests and the inbox sensor's tests (a helper, not a test module)."""

MEDLINE = """PMID- 15001234
OWN - NLM
DP  - 2004 Mar
TI  - Metformin versus glibenclamide in type 2 diabetes: a randomized
      controlled trial.
LID - S0149-2918(04)00001-2 [pii]
LID - 10.2337/diacare.27.3.1 [doi]
AB  - BACKGROUND: We compared two drugs.
      RESULTS: Both lowered HbA1c.
FAU - Smith, John
AU  - Smith J
FAU - Doe, Anna
AU  - Doe A
JT  - Diabetes care
TA  - Diabetes Care

PMID- 15005678
DP  - 2005
AB  - A record without a title.
PMID- 15009999
DP  - 2006 Jan 5
TI  - A record that lost its blank line.
TA  - Lancet
"""

WOS = """FN Clarivate Analytics Web of Science
VR 1.0
PT J
AU Smith, J
   Doe, A
AF Smith, John
   Doe, Anna
TI Active learning for citation screening in
   systematic reviews
SO JOURNAL OF CLINICAL EPIDEMIOLOGY
AB We propose a method.
   It works well.
PY 2018
DI 10.1016/j.jclinepi.2018.01.001
UT WOS:000123456700001
ER

PT J
AU Lee, K
TI A second record
PY 2019
ER

EF
"""
