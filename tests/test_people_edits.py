"""People merged and spellings split off by hand (core/data/formats/people_edits.py): applied on
every load, undoable, reported, and part of the cache key."""

import shutil
from pathlib import Path

import pytest

from expert_gui.core.data.formats.people_edits import (
    MERGE,
    SPLIT,
    Edit,
    add_edit,
    edits_path,
    read_edits,
    undo_last,
)
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError
from expert_gui.core.store.model_folders import model_fits

FIXTURES = Path(__file__).parent / "fixtures"

TOBLER = FIXTURES / "people-edits" / "tobler.bib"


@pytest.fixture
def bib(tmp_path) -> Path:
    """A copy of the Tobler fixture: the edits file is written beside it."""
    return Path(shutil.copy(TOBLER, tmp_path / "tobler.bib"))


def people(collection) -> dict[str, str]:
    return dict(zip(collection.person_ids, collection.person_names, strict=True))


def docs_of(collection, person_id: str) -> set[str]:
    return {collection.doc_ids[d]
            for d in collection.documents_of(collection.person_index[person_id])}


def test_without_edits_tobler_is_three_people(bib):
    c = load_collection(bib)
    assert {"waldo-r-tobler", "tobler", "w-e-tobler"} <= set(c.person_ids)
    # "W. Tobler" was joined to the one fuller name it abbreviates: a spelling to split off
    assert c.person_spellings["waldo-r-tobler"] == ["Waldo R. Tobler", "W. Tobler"]


def test_merges_are_applied_on_load_and_reported(bib):
    add_edit(edits_path(bib), Edit(MERGE, "tobler", "waldo-r-tobler"))
    add_edit(edits_path(bib), Edit(MERGE, "w-e-tobler", "waldo-r-tobler"))
    c = load_collection(bib)
    assert "tobler" not in c.person_ids and "w-e-tobler" not in c.person_ids
    assert people(c)["waldo-r-tobler"] == "Waldo R. Tobler"
    assert docs_of(c, "waldo-r-tobler") == {"movie1970", "pycno1979", "flows1987",
                                           "bidim1994", "projection2002"}
    edited = [p for p in c.report.problems if p.kind == "people-edited"]
    assert [str(p) for p in edited] == [f"{edits_path(bib)}: 2 people merged by hand"]
    assert str(edits_path(bib)) in c.report.files


def test_a_spelling_split_off_becomes_a_person_of_its_own(bib):
    add_edit(edits_path(bib), Edit(SPLIT, "W. Tobler", "waldo-r-tobler"))
    c = load_collection(bib)
    assert people(c)["w-tobler"] == "W. Tobler"
    assert docs_of(c, "w-tobler") == {"projection2002"}
    assert docs_of(c, "waldo-r-tobler") == {"movie1970", "pycno1979"}
    assert "1 spelling split off" in str(
        next(p for p in c.report.problems if p.kind == "people-edited"))


def test_a_merge_on_a_shared_paper_is_one_link_not_a_repeat(tmp_path):
    folder = Path(shutil.copytree(FIXTURES / "gui_collection", tmp_path / "c"))
    shared = next(line.split("\t")[0] for line in
                  (folder / "associations.tsv").read_text().splitlines()[1:]
                  if line.endswith("\tbob"))
    with (folder / "associations.tsv").open("a") as out:
        out.write(f"{shared}\talice\n")
    add_edit(edits_path(folder), Edit(MERGE, "bob", "alice"))
    c = load_collection(folder)
    assert "bob" not in c.person_ids
    assert shared in docs_of(c, "alice")
    assert not [p for p in c.report.problems if p.kind == "duplicate-association"]
    # a collection of people by id has no spellings: a split is reported, not applied
    add_edit(edits_path(folder), Edit(SPLIT, "Alice A.", "alice"))
    skipped = [p for p in load_collection(folder).report.problems
               if p.kind == "people-edit-skipped"]
    assert len(skipped) == 1 and skipped[0].line == 5 and "by id" in skipped[0].message


def test_the_edits_file_in_a_folder_is_not_read_as_a_document(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(TOBLER, folder / "tobler.bib")
    add_edit(edits_path(folder), Edit(MERGE, "tobler", "waldo-r-tobler"))
    c = load_collection(folder)
    assert c.report.format == "exports" and c.n_documents == 6
    assert "tobler" not in c.person_ids
    assert not [p for p in c.report.problems if p.kind == "skipped-file"]
    # a one-file collection's edits beside it, in a folder opened whole: named, not read
    add_edit(edits_path(folder / "tobler.bib"), Edit(MERGE, "w-e-tobler", "waldo-r-tobler"))
    c = load_collection(folder, use_cache=False)  # a file not read is no part of the key
    assert c.n_documents == 6 and "w-e-tobler" in c.person_ids
    skipped = [p for p in c.report.problems if p.kind == "skipped-file"]
    assert len(skipped) == 1 and skipped[0].file.endswith("tobler.bib.people-edits.tsv")


def test_undo_removes_the_last_edit_and_keeps_every_other_line(bib):
    path = edits_path(bib)
    add_edit(path, Edit(MERGE, "tobler", "waldo-r-tobler"))
    with path.open("a", encoding="utf-8") as out:
        out.write("# my note\n")
    add_edit(path, Edit(SPLIT, "W. Tobler", "waldo-r-tobler"))
    undone = undo_last(path)
    assert (undone.kind, undone.subject) == (SPLIT, "W. Tobler")
    assert path.read_text().endswith("merge\ttobler\twaldo-r-tobler\n# my note\n")
    c = load_collection(bib)
    assert "tobler" not in c.person_ids and "w-tobler" not in c.person_ids
    assert undo_last(path).subject == "tobler"
    assert undo_last(path) is None
    assert "tobler" in load_collection(bib).person_ids


def test_a_malformed_line_is_reported_with_its_line_and_the_rest_applied(bib):
    edits_path(bib).write_text("# by hand\nmerge tobler waldo-r-tobler\n"
                               "merge\ttobler\twaldo-r-tobler\nsplit\tW. Tobler\n",
                               encoding="utf-8")
    c = load_collection(bib)
    skipped = [p for p in c.report.problems if p.kind == "people-edit-skipped"]
    assert [(p.file, p.line) for p in skipped] == [(str(edits_path(bib)), 2),
                                                   (str(edits_path(bib)), 4)]
    assert "expected 'merge<TAB>person id<TAB>into person id'" in skipped[0].message
    assert "tobler" not in c.person_ids  # line 3 applied


def test_an_edit_naming_nobody_is_reported_not_fatal(bib):
    path = edits_path(bib)
    add_edit(path, Edit(MERGE, "nobody", "waldo-r-tobler"))
    add_edit(path, Edit(SPLIT, "Walter Tobler", "waldo-r-tobler"))
    add_edit(path, Edit(MERGE, "tobler", "waldo-r-tobler"))
    c = load_collection(bib)
    skipped = {p.line: p.message for p in c.report.problems if p.kind == "people-edit-skipped"}
    assert set(skipped) == {4, 5}
    assert "«nobody»" in skipped[4]
    assert "no document writes «waldo-r-tobler» as «Walter Tobler»" in skipped[5]
    assert "tobler" not in c.person_ids


def test_an_edit_reloads_the_collection_and_a_model_before_it_no_longer_fits(bib):
    before = load_collection(bib)
    assert load_collection(bib).fingerprint == before.fingerprint  # from the cache
    add_edit(edits_path(bib), Edit(MERGE, "tobler", "waldo-r-tobler"))
    after = load_collection(bib)
    assert after.fingerprint != before.fingerprint
    assert "tobler" not in after.person_ids

    class TrainedBefore:  # what model_fits reads of a model trained on `before`
        collection_fingerprint = before.fingerprint
        person_ids = before.person_ids
        vocab = before.vocab

    assert not model_fits(TrainedBefore, after)
    undo_last(edits_path(bib))
    assert load_collection(bib).fingerprint == before.fingerprint
    assert model_fits(TrainedBefore, load_collection(bib))


def test_edits_path_is_inside_a_folder_and_beside_a_file(tmp_path, bib):
    assert edits_path(tmp_path) == tmp_path / "people-edits.tsv"
    assert edits_path(bib) == tmp_path / "tobler.bib.people-edits.tsv"


def test_a_field_with_a_tab_is_refused_before_anything_is_written(bib):
    with pytest.raises(ValueError, match="no tab"):
        add_edit(edits_path(bib), Edit(SPLIT, "W.\tTobler", "waldo-r-tobler"))
    assert not edits_path(bib).exists()
    assert read_edits(edits_path(bib)) == []


def test_the_cli_says_a_model_trained_before_a_merge_ranks_the_people_it_knew(bib, tmp_path,
                                                                               capsys):
    from rankers_helpers import random_model

    from expert_gui.cli import main
    from expert_gui.core.store.storage import save_model

    before = load_collection(bib)
    model = random_model(before)
    model.collection_source, model.collection_fingerprint = before.source, before.fingerprint
    save_model(model, tmp_path / "model")
    add_edit(edits_path(bib), Edit(MERGE, "tobler", "waldo-r-tobler"))
    assert main(["query", str(tmp_path / "model"), "map projections", "--method",
                 "model1-d"]) == 0
    err = capsys.readouterr().err
    assert "and so have its people (its files or its people edits)" in err
    assert "train it again" in err
    assert main(["query", str(tmp_path / "model"), "map projections", "--method", "auto"]) == 2
    assert "the collection's people changed since the model was trained" in \
        capsys.readouterr().err


def test_an_edits_file_that_is_not_text_is_reported_and_the_collection_opens(bib):
    edits_path(bib).write_bytes(b"merge\ttobler\twaldo-r-tobler\nmerge\tw-e-tobler\tT\xf6bler\n")
    c = load_collection(bib)
    assert "tobler" in c.person_ids  # nothing of it applied, nothing lost
    skipped = [p for p in c.report.problems if p.kind == "people-edit-skipped"]
    assert [(p.file, p.line) for p in skipped] == [(str(edits_path(bib)), 2)]
    assert "not UTF-8 (byte 0xf6); save it as UTF-8" in skipped[0].message
    with pytest.raises(CollectionError, match="not UTF-8"):  # an edit is not written over it
        add_edit(edits_path(bib), Edit(MERGE, "tobler", "waldo-r-tobler"))
    assert edits_path(bib).read_bytes().endswith(b"T\xf6bler\n")
