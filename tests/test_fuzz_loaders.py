"""Malformed and random files into every reader: only CollectionError may escape, naming the
file (and the line, unless the complaint is about the collection as a whole)."""

import gzip
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert_gui.core.collection import PROBLEM_KINDS
from expert_gui.core.errors import CollectionError
from expert_gui.core.loading import load_collection

FUZZ = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# Bytes that matter to the parsers, mixed with anything at all.
_SPECIAL = [b"\t", b"\n", b"\r", b",", b'"', b"{", b"}", b"@", b"=", b"<DOC>", b"</DOC>",
            b"<DOCNO>", b"</DOCNO>", b"<", b">", b"&amp;", b"&#", b"\x00", b"\xff", b"\xc3",
            b"\xe2\x80", b"doc_id", b"person_id", b"text", b"id", b"d1", b"p1", b" and ",
            b"@article{k,", b"author = {", b"title = ", b'{"id": "d1"', b'"people": [',
            b"0.5", b" ", b"a", b"\xef\xbb\xbf", b"<!--", b"<script>", b"<![CDATA["]
_CHUNKS = st.lists(st.sampled_from(_SPECIAL) | st.binary(max_size=12), max_size=40)
CONTENT = _CHUNKS.map(b"".join)


def check(path: Path, **kwargs) -> None:
    """Load; any exception other than a well-formed CollectionError fails the test."""
    try:
        c = load_collection(path, **kwargs)
    except CollectionError as exc:
        assert exc.path
        assert exc.line is not None or "at least one document" in exc.message \
            or exc.path == str(path.resolve()), exc
        return
    assert c.n_documents == len(c.doc_ids) >= 1
    assert np.all(np.diff(c.doc_offsets) >= 0) and c.doc_offsets[-1] == len(c.tokens)
    assert len(c.assoc_indptr) == c.n_documents + 1
    for i in range(c.n_documents):
        c.text(i)
    for p in c.report.problems:
        assert p.kind in PROBLEM_KINDS and p.file


def write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).write_bytes(data)


@pytest.mark.parametrize("ext", ["tsv", "csv", "jsonl"])
@FUZZ
@given(docs=CONTENT, assoc=CONTENT, people=st.none() | CONTENT)
def test_folder_format(ext, docs, assoc, people):
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        write(folder, {f"documents.{ext}": docs, "associations.tsv": assoc})
        if people is not None:
            write(folder, {"people.tsv": people})
        check(folder, use_cache=False)


@FUZZ
@given(docs=CONTENT, assoc=CONTENT, packed=st.booleans(), valid_gzip=st.booleans())
def test_trec_format(docs, assoc, packed, valid_gzip):
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        name = "docs.trec.gz" if packed else "docs.trec"
        data = gzip.compress(docs) if packed and valid_gzip else docs
        write(folder, {name: data, "associations.txt": assoc})
        check(folder / name, format="trec", use_cache=False)


@FUZZ
@given(files=st.lists(CONTENT, min_size=1, max_size=3), assoc=CONTENT)
def test_plain_text_format(files, assoc):
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        write(folder, {f"f{k}.txt": data for k, data in enumerate(files)})
        write(folder, {"associations.tsv": assoc})
        check(folder, format="text", use_cache=False)


@FUZZ
@given(bib=CONTENT)
def test_bibtex_format(bib):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "refs.bib"
        path.write_bytes(bib)
        check(path, use_cache=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@settings(FUZZ, max_examples=10)
@given(messages=st.lists(st.binary(max_size=40).filter(lambda b: b"\0" not in b), min_size=1,
                         max_size=3))
def test_git_format_with_raw_commit_messages(messages):
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")

    def git(*args, data=None):
        return subprocess.run(["git", "-C", d, *args], env=env, check=True, input=data,
                              capture_output=True).stdout.strip()

    with tempfile.TemporaryDirectory() as d:
        git("init", "-q")
        tree = git("mktree", data=b"")
        parent = b""
        for message in messages:
            obj = (b"tree " + tree + b"\n" + parent + b"author A B <a@b.c> 0 +0000\n"
                   b"committer A B <a@b.c> 0 +0000\n\n" + message)
            head = git("hash-object", "-t", "commit", "-w", "--stdin", "--literally", data=obj)
            parent = b"parent " + head + b"\n"
        git("update-ref", "HEAD", head.decode())
        check(Path(d), use_cache=False)
