"""The reader registry: the table of formats is well-formed, and a shared suffix is read by content."""

from __future__ import annotations

import pytest

from agentr_dagster.imports import SUPPORTED_SUFFIXES, ImportFileError
from agentr_dagster.imports.registry import READERS, binary_reader, normalise_suffix, text_reader
from tests.support.import_samples import MEDLINE, WOS


def test_supported_suffixes_follow_the_table():
    assert tuple(READERS) == SUPPORTED_SUFFIXES
    assert all(suffix.startswith(".") and suffix == suffix.lower() for suffix in READERS)


def test_every_suffix_has_a_reader_and_a_binary_reader_has_its_suffix_alone():
    for suffix, readers in READERS.items():
        assert readers, suffix
        if any(reader.binary for reader in readers):
            assert len(readers) == 1, suffix
            assert binary_reader(suffix) is readers[0]
        else:
            assert binary_reader(suffix) is None


def test_readers_of_a_shared_suffix_say_what_they_recognise():
    for readers in READERS.values():
        if len(readers) > 1:
            assert all(reader.describes for reader in readers)
            assert len({reader.name for reader in readers}) == len(readers)


def test_a_txt_file_is_read_by_the_first_reader_that_recognises_it():
    assert text_reader(".txt", MEDLINE).name == "medline"
    assert text_reader(".txt", WOS).name == "wos"
    assert text_reader(".txt", "Title\tYear\nA paper\t2020\n").name == "tsv"
    with pytest.raises(ImportFileError, match=r"^The \.txt file is not a PubMed \(MEDLINE\) export"):
        text_reader(".txt", "Papers to read later.\n")


def test_a_suffix_with_one_reader_is_read_by_it_whatever_the_content():
    assert text_reader(".nbib", "not medline at all").name == "medline"
    assert normalise_suffix("CSV") == ".csv"
    with pytest.raises(ImportFileError, match="Unsupported file type"):
        normalise_suffix(".docx")
