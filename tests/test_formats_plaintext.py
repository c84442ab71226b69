"""A folder of plain-text files: one document per file, id = relative path."""

import os

import pytest

from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError


def test_one_document_per_file(fixtures):
    c = load_collection(fixtures / "collections/plaintext", use_cache=False)
    assert c.report.format == "text"
    # hidden files and the associations file are not documents; ids use forward slashes
    assert c.doc_ids == ["crypto.txt", "notes/ring.txt"]
    assert c.text(1) == "Ring buffer internals\nand lockless queues\n"
    assert c.person_ids == ["alice", "bob"] and c.people_of(1).tolist() == [0]
    # issue 11: the hidden file is skipped, but not without a word
    hidden, binary = sorted(c.report.problems, key=lambda p: p.file)
    assert hidden.kind == "skipped-file" and hidden.file.endswith(".hidden.txt")
    assert "hidden" in hidden.message
    assert binary.kind == "malformed-record" and binary.file.endswith("image.bin")


def test_hidden_folders_and_fifos_are_reported_not_read(tmp_path):
    (tmp_path / "a.txt").write_text("ring buffers", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "b.txt").write_text("not a document", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "associations.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    c = load_collection(tmp_path, format="text", use_cache=False)
    assert c.doc_ids == ["a.txt"]
    reported = {(p.kind, os.path.basename(p.file), p.message) for p in c.report.problems}
    assert reported == {("skipped-file", ".git", "hidden folder; not read"),
                        ("skipped-file", "pipe.txt", "a FIFO (named pipe); not read")}


def test_a_fifo_people_file_is_refused(tmp_path):
    # issue 11: people.txt as a FIFO was passed over without a word
    (tmp_path / "a.txt").write_text("ring buffers", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    os.mkfifo(tmp_path / "people.txt")
    with pytest.raises(CollectionError, match="FIFO") as err:
        load_collection(tmp_path, format="text", use_cache=False)
    assert err.value.path.endswith("people.txt")


def test_invalid_utf8_is_reported_per_line(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"fine line\nbad \xff\xfe line\nok\n")
    (tmp_path / "links.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    c = load_collection(tmp_path, format="text", associations=tmp_path / "links.tsv",
                        use_cache=False)
    assert c.doc_ids == ["a.txt"]  # the explicit associations file is not a document
    [p] = c.report.problems
    assert (p.kind, p.line) == ("invalid-utf8", 2)
    assert c.text(0) == "fine line\nbad \ufffd\ufffd line\nok\n"


def test_links_out_of_the_folder_are_skipped_and_reported(tmp_path):
    # issue 24 item 3: a link to /etc/passwd was read as a document, and its words ended up in
    # the model's manifest
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("nologin root", encoding="utf-8")
    (outside / "more").mkdir()
    folder = tmp_path / "collection"
    (folder / "notes").mkdir(parents=True)
    (folder / "a.txt").write_text("ring buffers", encoding="utf-8")
    (folder / "passwd.txt").symlink_to(outside / "secret.txt")
    (folder / "notes" / "alias.txt").symlink_to(folder / "a.txt")  # stays inside: read
    (folder / "linked").symlink_to(outside / "more", target_is_directory=True)
    (folder / "associations.tsv").write_text("a.txt\tp\npasswd.txt\tq\nnotes/alias.txt\tp\n",
                                             encoding="utf-8")
    c = load_collection(folder, format="text", use_cache=False)
    assert c.doc_ids == ["a.txt", "notes/alias.txt"]
    assert "nologin" not in c.vocab.words and "root" not in c.vocab.words
    reported = {(p.kind, os.path.basename(p.file), p.message) for p in c.report.problems
                if p.kind == "skipped-file"}
    assert reported == {
        ("skipped-file", "passwd.txt",
         f"a link to {outside / 'secret.txt'}, outside the collection's folder; not read"),
        ("skipped-file", "linked", f"a link to a folder ({outside / 'more'}); not read")}


def test_a_companion_file_linking_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "a.txt").write_text("ring buffers", encoding="utf-8")
    (folder / "associations.tsv").symlink_to(tmp_path / "elsewhere.tsv")
    with pytest.raises(CollectionError, match="a link to .*elsewhere.tsv, outside the collec"):
        load_collection(folder, format="text", use_cache=False)
    c = load_collection(folder, format="text", associations=tmp_path / "elsewhere.tsv",
                        use_cache=False)  # named by the user: read
    assert c.doc_ids == ["a.txt"]


def test_a_link_that_cannot_be_followed_is_skipped_not_fatal(tmp_path, monkeypatch):
    # CI: `stats /` met /proc/1/cwd, a link even root may not follow, and ended in a
    # PermissionError traceback instead of a skipped file
    from pathlib import Path
    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "a.txt").write_text("ring buffers", encoding="utf-8")
    (folder / "cwd.txt").symlink_to(folder / "a.txt")
    (folder / "associations.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    resolve = Path.resolve

    def guarded(self, strict=False):
        if self.name == "cwd.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return resolve(self, strict)

    monkeypatch.setattr(Path, "resolve", guarded)
    c = load_collection(folder, format="text", use_cache=False)
    assert c.doc_ids == ["a.txt"]
    assert {(os.path.basename(p.file), p.message) for p in c.report.problems
            if p.kind == "skipped-file"} == {
        ("cwd.txt", "a link that cannot be followed (Permission denied); not read")}
