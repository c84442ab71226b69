"""A long session with the real main window, as a user has it: open a collection big enough that
training would take many minutes, train with the live loss plot, and while it trains query,
read explanations, rank every topic, evaluate, map words, pause and resume; then stop (a partial
model), query it, and quit while another training runs ("Stop training and quit? Yes").

Issue 9: PySide6 6.12.0 dropped a reference to None on every void Qt call, and the app died 60-150
s into every DPDK training from the GUI; 306 short tests passed. This test is what would have
caught it: run against 6.12.0 it aborts. It is sized by work, not time.
"""

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox

from expert_gui.core.evaluation.tables import TABLE2_METHODS
from expert_gui.core.store.model_folders import is_partial
from expert_gui.gui.main_window import WRITING_TASKS

# About two minutes on two idle cores; a loaded machine needs longer.
pytestmark = [pytest.mark.gui, pytest.mark.slow, pytest.mark.timeout(1800)]

# The generated collection: AREAS groups of people who write about their area's words.
AREAS, PEOPLE_PER_AREA, WORDS_PER_AREA = 20, 15, 40
DOCUMENTS, WORDS_PER_DOCUMENT = 12_000, 40
# The session's work: training steps seen on the live plot, and rounds of use while it trains.
SOAK_STEPS = 110_000
ROUNDS = 60
SOAK_TRAINING = {"dim": 64, "window": 8, "batch_size": 32, "epochs": 200,
                 "checkpoint_every": 500}
FIRST_MODEL = {"dim": 32, "window": 8, "batch_size": 256, "epochs": 1, "checkpoint_every": 0}


def word(i: int, prefix: str) -> str:
    """A made-up word of letters only (a digit would make the tokenizer fold it into <num>)."""
    letters = ""
    while True:
        i, r = divmod(i, 26)
        letters += chr(97 + r)
        if i == 0:
            return prefix + letters


def make_collection(folder, seed: int = 0):
    """documents.tsv, associations.tsv, people.tsv, topics.tsv and qrels.txt of a made-up
    organisation: each document by one or two people of an area, in its words and common ones."""
    rng = np.random.default_rng(seed)
    folder.mkdir()
    area_words = [[word(a * WORDS_PER_AREA + w, "top") for w in range(WORDS_PER_AREA)]
                  for a in range(AREAS)]
    common = [word(w, "com") for w in range(200)]
    people = [f"p{a:02d}-{i:02d}" for a in range(AREAS) for i in range(PEOPLE_PER_AREA)]
    docs, assocs = [], []
    for d in range(DOCUMENTS):
        area = int(rng.integers(AREAS))
        own = rng.choice(area_words[area], WORDS_PER_DOCUMENT // 2)
        shared = rng.choice(common, WORDS_PER_DOCUMENT // 2)
        docs.append(f"d{d}\t{' '.join(rng.permutation(np.concatenate([own, shared])))}")
        authors = rng.choice(PEOPLE_PER_AREA, int(rng.integers(1, 3)), replace=False)
        assocs += [f"d{d}\t{people[area * PEOPLE_PER_AREA + int(a)]}" for a in authors]
    (folder / "documents.tsv").write_text("doc_id\ttext\n" + "\n".join(docs) + "\n")
    (folder / "associations.tsv").write_text("doc_id\tperson_id\n" + "\n".join(assocs) + "\n")
    (folder / "people.tsv").write_text("person_id\tname\n" + "\n".join(
        f"{p}\tPerson {p.upper()} of area {p[1:3]}" for p in people) + "\n")
    topics = [(f"t{a}", f"{area_words[a][0]} {area_words[a][1]}") for a in range(AREAS)]
    (folder / "topics.tsv").write_text("topic_id\tquery\n" + "\n".join(
        f"{t}\t{q}" for t, q in topics) + "\n")
    (folder / "qrels.txt").write_text("\n".join(
        f"t{a} 0 {p} {int(p.startswith(f'p{a:02d}-'))}" for a in range(AREAS)
        for p in people[:: PEOPLE_PER_AREA // 3]) + "\n")
    return folder, topics


def test_a_long_session_of_training_querying_and_evaluating(qtbot, window, tmp_path):
    folder, topics = make_collection(tmp_path / "soak")
    s = window.state
    errors = []
    window.state.message.connect(lambda text: errors.append(text) if "failed" in text else None)

    window.collection_panel.open_collection(folder)
    qtbot.waitUntil(lambda: s.collection is not None and len(s.topics) == AREAS, timeout=300_000)
    assert s.collection.n_people == AREAS * PEOPLE_PER_AREA

    # A first, quick model to query while the long training runs.
    panel = window.training_panel
    for name, value in FIRST_MODEL.items():
        panel.form.set_value(name, value)
    panel.start_training()
    qtbot.waitUntil(lambda: s.model is not None and panel.run_settled(), timeout=600_000)
    first = s.model  # not the measured model it answered with while it trained it again

    for name, value in SOAK_TRAINING.items():
        panel.form.set_value(name, value)
    window.show_panel("Training")
    panel.start_training()
    long_run = panel._model_folder
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 0, timeout=300_000)

    queries = 0
    for round_ in range(ROUNDS):
        topic_id, query = topics[round_ % len(topics)]
        window.show_panel(("Query", "Entropy", "Nearest terms", "Model 2 comparison",
                           "Collection", "Training")[round_ % 6])
        window.query_panel.set_query(query)
        queries += 1
        ranking = s.ranking
        assert len(ranking) == s.collection.n_people and ranking.known_words
        window.query_panel.results.selectRow(round_ % 10)  # explain someone
        if round_ % 10 == 3:
            window.entropy_panel.compute()
        if round_ % 20 == 6 and window.comparison_panel.model2 is not None:
            window.comparison_panel.evaluate()
        if round_ % 10 == 8:
            window.neighbours_panel.words_edit.setText(query.split()[0])
            window.neighbours_panel.find()
        if round_ == ROUNDS // 2:
            panel.toggle_pause()
            qtbot.wait(300)
            assert window.training_label.text() == "Training paused"
            panel.toggle_pause()
        target = min(SOAK_STEPS, (round_ + 1) * SOAK_STEPS // ROUNDS)
        qtbot.waitUntil(lambda t=target: len(panel.plot.steps) >= t, timeout=600_000)
    qtbot.waitUntil(lambda: window.entropy_panel.result is not None, timeout=300_000)
    qtbot.waitUntil(lambda: window.comparison_panel.evaluation is not None, timeout=600_000)
    assert s.model is first and panel.is_training()
    assert window.comparison_panel.table2.rowCount() == len(TABLE2_METHODS)

    panel.stop_training()
    qtbot.waitUntil(lambda: s.model is not first, timeout=300_000)
    assert is_partial(s.model) and s.model_path == long_run
    assert "partial" in window.model_label.text()
    window.query_panel.set_query(topics[0][1])
    assert len(s.ranking) == s.collection.n_people

    # Quit while a training runs, answering "Stop training and quit?" with Yes.
    panel.form.set_value("epochs", 200)
    panel.start_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 10, timeout=300_000)
    window.confirm_stop_training = lambda: True
    window.close()
    # closed once the work that writes files has ended (what only reads, such as the methods
    # still being prepared, ends with the process: tests/gui/test_quit.py)
    assert not window.isVisible()
    assert not any(s.runner.running(slot) for slot in WRITING_TASKS)
    assert (panel._model_folder / "checkpoint").is_dir()
    assert not window.findChildren(QMessageBox, "error-dialog") and not errors
    assert queries == ROUNDS
