"""Unit tests for codemods.analysis.text_index: which files spell an identifier."""

from __future__ import annotations

import re

import pytest

from codemods.analysis.text_index import TextIndex

FILES = [
    b"from torch.utils.data import DataLoader\n",
    b"class MyDataLoader:\n    pass\n",
    b"loader = DataLoader_v2()\n",
    b"x = 1  # DataLoader",
    b"",
    b"DataLoader",
]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        pytest.param(["DataLoader"], {0, 3, 5}, id="whole words only, at the edges of a file"),
        pytest.param(["MyDataLoader"], {1}, id="a longer identifier is its own word"),
        pytest.param(["DataLoader", "MyDataLoader"], {0, 1, 3, 5}, id="any of several names"),
        pytest.param(["Missing"], set(), id="no file"),
        pytest.param([], set(), id="no names"),
    ],
)
def test_spelling(names: list[str], expected: set[int]) -> None:
    assert TextIndex(FILES).spelling(names) == expected


def test_a_word_cut_by_the_end_of_a_file_is_not_joined_with_the_next() -> None:
    assert TextIndex([b"Data", b"Loader"]).spelling(["DataLoader"]) == set()


def test_matching_finds_each_file_once() -> None:
    pattern = re.compile(rb"(?i)worker")
    index = TextIndex([b"def seed_worker(w): pass", b"WORKER = 1\nworker = 2", b"x = 1"])
    assert index.matching(pattern, b"worker") == {0, 1}


def test_a_longer_name_is_found_among_the_files_of_a_shorter_one() -> None:
    index = TextIndex([b"class MyDataset(Dataset): ...", b"x = MyDataset()", b"y = 1", b"Dataset"])
    assert index.spelling(["Dataset"]) == {0, 3}
    assert index.spelling(["MyDataset"]) == {0, 1}
    assert index.spelling(["yDataset"]) == set()


def test_indexed_identifiers_answer_as_searches_do() -> None:
    # After enough searches every identifier is indexed at once; the answers must not change.
    texts = [
        *FILES,
        "état = DataLoader  # non-ASCII letters end a word\n".encode(),
        b"self.seed_worker(seed)\nmanual_seed = 0\n",
        b"a.b.c = seed\r\nDataLoader\r\n",
        b"seed2 = 2\n",
    ]
    names = ["seed", "manual_seed", "DataLoader", "tat", "self", "a.b", "c", "état", "seed2"]
    names.append("Missing")
    searched = TextIndex(texts)  # few searches: each one scans the text
    expected = {name: searched.spelling([name]) for name in names}
    indexed = TextIndex(texts)
    for number in range(40):
        indexed.spelling([f"warm_up_{number}"])
    assert {name: indexed.spelling([name]) for name in names} == expected
    assert indexed._identifiers is not None  # the answers above came from the index
    assert expected["seed"] == {7, 8}
    assert expected["tat"] == {6}  # a non-ASCII letter ends a word
    assert expected["a.b"] == {8}
