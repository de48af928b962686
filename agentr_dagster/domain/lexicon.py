"""Cue-word lists and a concept vocabulary for the offline backend.

* Cue lists drive the rule-based facet tagging (method / domain / constraint / contribution type).
* :data:`CONCEPTS` is a fixed, hand-written vocabulary of research concepts across fields. The offline backend
  embeds it once and uses nearest neighbours (cosine) to propose related search terms that do not occur in
  the abstract - a static-embedding stand-in for an LLM's "synonyms and related concepts".
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _cues(text: str) -> tuple[str, ...]:
    return tuple(text.split("|"))


# --- facet cues --------------------------------------------------------------------------------------------

#: Words right before a phrase that mark it as a method ("using X", "via X"); determiners are skipped first.
METHOD_BEFORE = _words(
    "using use uses via through leveraging leverage leverages employing employ employs applying apply "
    "applies adopting adopt adopts combining combine combines propose proposes present presents "
    "introduce introduces develop develops train trains trained fine-tune fine-tuned implement implements"
)
#: Two-word method cues ("based on X") and weak one-word cues ("with X": half weight).
METHOD_BEFORE_PAIRS = frozenset({("based", "on"), ("relying", "on"), ("built", "on"), ("grounded", "in")})
METHOD_BEFORE_WEAK = _words("with by")
#: Skipped when reading the words before a phrase ("using a novel X" -> "using").
DETERMINERS = _words("a an the our their its this these those his her my your novel new proposed simple")
#: Head nouns (inside or right after a phrase) that mark it as a method.
METHOD_HEADS = _words(
    "method methods methodology approach approaches framework frameworks algorithm algorithms model models "
    "network networks architecture architectures technique techniques pipeline pipelines learning regression "
    "classifier classifiers classification transformer transformers embedding embeddings optimization "
    "optimisation estimation estimator simulation simulations retrieval clustering inference training "
    "fine-tuning prompting sampling solver solvers heuristic heuristics decomposition encoder decoder attention "
    "kernel mechanism procedure protocol strategy scheme modeling modelling meta-analysis questionnaire "
    "interviews interview survey workflow orchestration agent agents trial trials module modules layer layers"
)
#: Heads that name a method only next to a method word ("neural network" yes, "road network" no).
AMBIGUOUS_METHOD_HEADS = _words("network networks agent agents")
#: Words inside a phrase that suggest a method even without a head noun.
METHOD_WORDS = _words(
    "neural bayesian deep stochastic convolutional recurrent generative probabilistic statistical "
    "evolutionary genetic contrastive supervised unsupervised self-supervised semi-supervised federated "
    "reinforcement variational spectral linear nonlinear randomized randomised controlled machine hybrid "
    "ensemble symbolic rule-based retrieval-augmented asynchronous distributed multi-agent agentic llm llms "
    "gpt bert lstm cnn rnn gnn svm bm25 transformer diffusion graph-based attention-based monte carlo markov "
    "gradient boosting random forest logistic qualitative quantitative mixed-methods double-blind "
    "placebo-controlled cohort case-control cross-sectional longitudinal systematic tf-idf lexical semantic "
    "static dense sparse embedding"
)
#: Words right before a phrase that mark it as an application domain ("in X", "for X", "across X").
DOMAIN_BEFORE = _words("in for within across among throughout")
DOMAIN_BEFORE_PAIRS = frozenset({("applied", "to"), ("applications", "in"), ("application", "to")})
#: Head nouns right after / inside a phrase that mark a domain ("X domain", "X applications").
DOMAIN_HEADS = _words(
    "domain domains application applications sector sectors industry industries setting settings field "
    "fields practice context contexts environment environments population populations patients users"
)
#: Domain vocabulary (fields, sectors, populations).
DOMAIN_WORDS = _words(
    "healthcare health clinical medical medicine patients patient hospital hospitals biology biological "
    "biomedical genomics genomic protein proteins drug drugs disease diseases cancer oncology cardiology "
    "cardiovascular diabetes pediatric children adolescents adults elderly finance financial banking "
    "economics economic education educational students teachers learners agriculture agricultural crop crops "
    "climate weather energy power grid transportation traffic vehicles vehicle driving manufacturing robotics "
    "robot robots cybersecurity security legal law social media e-commerce retail chemistry chemical "
    "materials physics astronomy ecology environmental urban city cities industrial software engineering "
    "literature scientific science scholarly library libraries government policy marketing business supply "
    "chain logistics telecommunications wireless iot internet web mobile games gaming music art language "
    "languages speech image images video remote sensing satellite ocean marine water food nutrition mental "
    "psychology psychiatric sports tourism smart home homes building buildings construction mining aviation "
    "aerospace maritime insurance accounting journalism news humanitarian disaster emergency public nursing "
    "dental pharmacy pharmaceutical veterinary forestry fisheries hydrology geology seismology neuroscience "
    "brain genetics microbiology immunology epidemiology covid-19 pandemic hypertension asthma depression "
    "adhd schizophrenia stroke heart kidney liver lung surgery radiology imaging"
)
#: Words right before a phrase that mark a constraint ("under X", "without X", "despite X").
CONSTRAINT_BEFORE = _words("under without despite given subject limited while minimal minimizing minimising")
#: Constraint / quality-attribute vocabulary: qualifiers (strong evidence) and nouns (weaker: "cost
#: estimation" is a topic, "low-cost" a constraint). Words ending in -ability / -ibility also count.
CONSTRAINT_WORDS = _words(
    "limited constrained real-time low-cost low-latency privacy-preserving resource-constrained "
    "energy-efficient efficient scalable noisy sparse scarce few-shot zero-shot lightweight offline "
    "on-device edge interpretable explainable robust secure cost-aware imbalanced small-sample unlabeled "
    "unlabelled label-efficient data-efficient power-efficient fault-tolerant recoverable auditable "
    "reproducible reliable safe durable persistent budget-constrained"
)
CONSTRAINT_NOUNS = _words(
    "limit limits limitation limitations constraint constraints latency budget budgets privacy resource "
    "resources memory efficiency noise sparsity scarcity fairness robustness cost costs uncertainty compute "
    "bandwidth safety regulatory compliance ethical consent throughput deadline deadlines overhead "
    "tolerance fault-tolerance persistence failure failures retries retry"
)

# --- contribution-type cues (user abstract) ----------------------------------------------------------------

CONTRIBUTION_CUES: dict[str, tuple[str, ...]] = {
    "methodology": _cues(
        "we propose|we present|we introduce|we develop|novel method|new method|algorithm|"
        "framework|architecture|approach|technique|pipeline|model"
    ),
    "problem_context": _cues(
        "problem|challenge|we study|we investigate|we examine|we analyze|we analyse|"
        "research question|gap|limitation|lack of|remains|understanding"
    ),
    "domain_knowledge": _cues(
        "dataset|data set|corpus|case study|empirical|domain|clinical|field study|observational|"
        "cohort|survey|review|practitioners|patients"
    ),
    "constraint_analysis": _cues(
        "constraint|limited|real-time|low-cost|budget|latency|privacy|efficient|efficiency|scalab|"
        "robust|cost|resource|reliab|overhead|without"
    ),
    "related_application": _cues(
        "application|applied to|deploy|deployment|system|tool|prototype|implementation|real-world|"
        "practical|platform|service"
    ),
    "theoretical_foundation": _cues(
        "theorem|proof|prove|lemma|bound|theoretical|theory|formal|formalize|formalise|convergence|guarantee|axiom"
    ),
}

#: Paper-side cues used to refine the C2 contribution type.
THEORY_CUES = ("theorem", "proof", "we prove", "lemma", "theoretical", "formal model", "convergence", "axiom")
#: One of these alone is enough.
STRONG_THEORY_CUES = ("theorem", "lemma", "we prove", "proof of", "axiomati")
APPLICATION_CUES = _cues(
    "deploy|deployed|deployment|case study|applied to|application|prototype|real-world|in practice|implementation|tool"
)

# --- problem-statement cues --------------------------------------------------------------------------------

AIM_PATTERNS = (
    r"\b(?:we|this (?:paper|work|study|article|thesis|project|review))\s+(?:\w+\s+){0,2}?"
    r"(?:propose|present|introduce|develop|address|investigate|study|examine|explore|describe|aim|seek|focus|"
    r"tackle|design|evaluate|assess|compare|analy[sz]e|report)",
    r"\b(?:aim|aims|goal|objective|purpose|intent)\s+(?:is|was|of|to)\b",
    r"\bin this (?:paper|work|study|article)\b",
    r"\bhere,? we\b",
    r"\bour (?:approach|method|framework|system|work)\b",
)
PROBLEM_PATTERNS = (
    r"\b(?:problem|problems|challenge|challenges|challenging|difficult|difficulty|limitation|limitations|"
    r"lack|lacks|lacking|gap|gaps|bottleneck|remains?|unclear|unknown|open question|fails?|suffers?|costly|"
    r"expensive|time-consuming|issue|issues|hinder|hinders|barrier|barriers|need|needs|unmet|insufficient|"
    r"hard|cannot|unable|lose|loses|loss|error-prone|slow|inefficient|fragile|brittle|scarce|rarely|"
    r"little is known|poorly understood|struggles?|threatens?|persists?|erodes?|wastes?)\b",
)

# --- intent terms: what may stand as a method, domain, constraint or seed keyword ------------------------------
#: Verbs an abstract uses inside runs of content words ("pollinator declines threaten crop yields", "we train
#: gradient boosted classifiers"): a term never spans one; the phrase is cut there.
TERM_VERBS = _words(
    """
    threaten threatens persist persists erode erodes train trains waste wastes struggle struggles predict
    predicts reach reaches rank ranks reduce reduces show shows suggest estimate estimates combine combines
    measure measures increase increases raise raises discuss discusses affect affects deliver delivers
    receive receives report reports present presents propose proposes evaluate evaluates identify
    identifies detect detects support supports keep keeps record records save saves turn turns decompose
    decomposes outperform outperforms enable enables improve improves learn learns capture captures
    exploit exploits leverage leverages apply applies use uses account accounts despite become becomes
    """
)
#: Nouns with an adjective's ending: a term may end in these ("clinical trial", "survival", "narrative").
NOUNS_LIKE_ADJECTIVES = _words(
    """
    proposal approval signal signals journal journals animal animals hospital hospitals trial trials material
    materials potential interval intervals capital survival rental arrival removal retrieval renewal referral
    tutorial tutorials manual manuals individual individuals terminal portal portals festival rival total
    chemical chemicals mammal mammals metal metals crystal crystals logic traffic music topic topics clinic
    clinics public graphic graphics mechanic epidemic arithmetic rhetoric fabric critic critics objective
    objectives directive incentive incentives narrative narratives initiative initiatives perspective
    perspectives alternative alternatives representative derivative derivatives executive archive archives
    motive motives adhesive explosive table tables variable variables cable vegetable vegetables deliverable
    deliverables library libraries dictionary dictionaries summary summaries boundary boundaries vocabulary
    glossary commentary secretary inventory anniversary itinerary salary diary primary literary sanctuary
    questionnaire questionnaires
    """
)
TERM_ADJECTIVE_ENDINGS = ("al", "ic", "ive", "ous", "able", "ible", "ful", "less", "ary", "ed", "ent", "ant")
RESULT_PATTERNS = (
    r"\b(?:results?|experiments?|we show|outperform\w*|achiev\w*|accuracy|demonstrat\w*|evaluat\w*|"
    r"improv\w*|f1|auc|speedup|significantly)\b",
)
CONTRAST_WORDS = ("however", "but", "yet", "although", "despite", "whereas", "while")

# --- concept vocabulary for embedding-nearest expansion ----------------------------------------------------

CONCEPTS: tuple[str, ...] = tuple(
    line.strip()
    for line in """
machine learning
deep learning
neural networks
supervised learning
unsupervised learning
semi-supervised learning
self-supervised learning
reinforcement learning
transfer learning
federated learning
active learning
meta-learning
few-shot learning
zero-shot learning
contrastive learning
representation learning
graph neural networks
convolutional neural networks
recurrent neural networks
transformer models
attention mechanisms
large language models
language model fine-tuning
prompt engineering
in-context learning
instruction tuning
retrieval-augmented generation
question answering
text classification
sentiment analysis
named entity recognition
relation extraction
information extraction
text summarization
machine translation
topic modeling
word embeddings
sentence embeddings
semantic similarity
semantic search
information retrieval
dense retrieval
sparse retrieval
BM25 ranking
query expansion
learning to rank
recommender systems
collaborative filtering
knowledge graphs
ontology engineering
entity linking
citation analysis
bibliometrics
scientometrics
systematic literature review
systematic review automation
citation screening
meta-analysis
evidence synthesis
research gap identification
scholarly document processing
scientific knowledge extraction
academic search engines
multi-agent systems
autonomous agents
LLM agents
tool use
workflow orchestration
workflow management systems
data pipelines
fault tolerance
checkpointing and recovery
distributed systems
microservices architecture
message queues
asynchronous processing
cloud computing
serverless computing
edge computing
internet of things
cyber-physical systems
software architecture
software engineering
requirements engineering
software testing
software maintenance
technical debt
code generation
program synthesis
static analysis
software quality
observability and monitoring
logging and auditing
provenance tracking
reproducibility
data lineage
cost accounting
token usage
inference cost
model compression
knowledge distillation
quantization
pruning
efficient inference
hardware acceleration
parallel computing
high-performance computing
scalability
latency optimization
energy efficiency
green computing
privacy-preserving machine learning
differential privacy
secure multi-party computation
cybersecurity
intrusion detection
malware detection
anomaly detection
fraud detection
adversarial robustness
adversarial attacks
prompt injection
AI safety
explainable AI
interpretability
fairness in machine learning
algorithmic bias
trustworthy AI
AI ethics
human-computer interaction
user studies
usability evaluation
crowdsourcing
human-in-the-loop
decision support systems
expert systems
computer vision
image classification
object detection
image segmentation
medical image analysis
video understanding
speech recognition
speech synthesis
natural language processing
computational linguistics
multilingual models
low-resource languages
optical character recognition
document understanding
time series forecasting
sequence modeling
traffic forecasting
demand forecasting
spatio-temporal modeling
trajectory prediction
autonomous driving
robotics
motion planning
robot manipulation
control systems
model predictive control
optimization algorithms
convex optimization
combinatorial optimization
evolutionary algorithms
genetic algorithms
swarm intelligence
Bayesian inference
probabilistic graphical models
Gaussian processes
Markov chain Monte Carlo
variational inference
causal inference
statistical hypothesis testing
regression analysis
survival analysis
uncertainty quantification
simulation modeling
agent-based modeling
digital twins
operations research
scheduling
supply chain management
logistics optimization
smart grids
renewable energy
energy forecasting
battery management
climate modeling
weather prediction
remote sensing
satellite imagery
environmental monitoring
precision agriculture
crop yield prediction
water resources management
urban computing
smart cities
transportation systems
healthcare informatics
electronic health records
clinical decision support
clinical trials
randomized controlled trials
observational studies
cohort studies
comparative effectiveness research
adverse drug events
pharmacovigilance
drug discovery
drug-drug interactions
pharmacology
cardiovascular disease
hypertension treatment
diabetes management
mental health
depression treatment
attention deficit hyperactivity disorder
neurodegenerative diseases
oncology
cancer diagnosis
radiology
medical imaging
genomics
bioinformatics
protein structure prediction
single-cell analysis
epidemiology
public health
infectious disease modeling
health economics
patient outcomes
quality of life
nursing care
telemedicine
wearable sensors
digital health
biomedical text mining
chemistry informatics
materials discovery
computational physics
quantum computing
astronomy data analysis
computational neuroscience
brain-computer interfaces
cognitive science
psychology experiments
education technology
learning analytics
intelligent tutoring systems
educational assessment
e-learning
computational social science
social network analysis
misinformation detection
social media analysis
opinion mining
political science
economics modeling
financial forecasting
algorithmic trading
risk assessment
credit scoring
insurance analytics
legal informatics
legal text analysis
policy analysis
e-government
digital libraries
open science
research data management
metadata standards
data integration
data cleaning
data quality
data warehousing
database systems
query optimization
stream processing
big data analytics
data mining
feature engineering
dimensionality reduction
clustering algorithms
classification algorithms
ensemble methods
gradient boosting
random forests
support vector machines
logistic regression
generative models
diffusion models
generative adversarial networks
variational autoencoders
image generation
text generation
dialogue systems
conversational agents
chatbots
evaluation metrics
benchmark datasets
annotation guidelines
inter-annotator agreement
reliability analysis
qualitative research
mixed methods research
survey methodology
case study research
grounded theory
design science research
technology adoption
digital transformation
business process management
enterprise systems
e-commerce
marketing analytics
customer behavior
game theory
mechanism design
multi-objective optimization
decision making under uncertainty
risk management
safety-critical systems
formal verification
model checking
theorem proving
programming languages
compilers
operating systems
computer networks
wireless communications
5G networks
network security
blockchain
cryptography
computer graphics
virtual reality
augmented reality
""".strip().splitlines()
    if line.strip()
)
