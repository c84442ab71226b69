"""A folder of plain-text files: one document per file, id = relative path."""

from expert_gui.core.loading import load_collection


def test_one_document_per_file(fixtures):
    c = load_collection(fixtures / "collections/plaintext", use_cache=False)
    assert c.report.format == "text"
    # hidden files and the associations file are not documents; ids use forward slashes
    assert c.doc_ids == ["crypto.txt", "notes/ring.txt"]
    assert c.text(1) == "Ring buffer internals\nand lockless queues\n"
    assert c.person_ids == ["alice", "bob"] and c.people_of(1).tolist() == [0]
    [skipped] = c.report.problems
    assert skipped.kind == "malformed-record" and skipped.file.endswith("image.bin")


def test_invalid_utf8_is_reported_per_line(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"fine line\nbad \xff\xfe line\nok\n")
    (tmp_path / "links.tsv").write_text("a.txt\tp\n", encoding="utf-8")
    c = load_collection(tmp_path, format="text", associations=tmp_path / "links.tsv",
                        use_cache=False)
    assert c.doc_ids == ["a.txt"]  # the explicit associations file is not a document
    [p] = c.report.problems
    assert (p.kind, p.line) == ("invalid-utf8", 2)
    assert c.text(0) == "fine line\nbad \ufffd\ufffd line\nok\n"
