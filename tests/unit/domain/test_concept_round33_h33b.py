"""Round 33 (h33b): a class named in the aim and its members only in a results list; published-style abstracts."""

from tests.unit.domain.concept_queries import hits, query


def test_a_results_list_of_names_with_bracketed_counts_names_the_class_members():
    # "fluconazole (6 trials), posaconazole (4) and voriconazole (3)": the counts in brackets broke the run of
    # names, so the trials of one drug, which never name its class, were missed
    text = ("Azole antifungals for prophylaxis of invasive fungal infection in acute leukaemia: a systematic review. "
            "We assessed whether azole antifungals prevent invasive fungal infection in adults receiving "
            "chemotherapy for acute leukaemia. Results: Fourteen trials were included: fluconazole (6 trials), "
            "posaconazole (4) and voriconazole (3). Prophylaxis reduced proven infections.")
    q = query(text)
    assert hits(text, "Posaconazole prophylaxis during induction chemotherapy for acute myeloid leukaemia: a "
                      "randomised trial"), q


def test_a_trial_label_glossed_by_its_drug_names_that_drug():
    # "ARISTOTLE (apixaban), ROCKET AF (rivaroxaban)": each trial's label is glossed by the one drug it tested;
    # the drugs are the class's members, and a trial's report names its drug, not the class
    text = ("Proton pump inhibitors for the prevention of upper gastrointestinal bleeding in patients taking "
            "antiplatelet drugs: a meta-analysis. Results: Four trials were eligible: COGENT (omeprazole), OPERA "
            "(pantoprazole), ASPIRE (esomeprazole) and LANSO-2 (lansoprazole). Bleeding was reduced by half.")
    q = query(text)
    assert hits(text, "Esomeprazole for the prevention of recurrent peptic ulcer bleeding in patients taking "
                      "low-dose aspirin"), q


def test_what_animals_received_in_a_relative_clause_is_the_list_not_a_phrase_with_them():
    # "experiments in which rats received resveratrol, quercetin or other polyphenols": "received" read as an
    # adjective made the first item "rats received resveratrol", so the trials of resveratrol were missed
    text = ("Polyphenols and spatial memory in aged rodents: a systematic review and meta-analysis. Objectives: To "
            "quantify the effect of polyphenols on spatial memory in aged rodents. Methods: We included controlled "
            "experiments in which rats received resveratrol, quercetin or other polyphenols and spatial memory was "
            "tested in the Morris water maze.")
    q = query(text)
    assert hits(text, "Resveratrol improves spatial memory in aged rats"), q
