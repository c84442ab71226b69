"""Every method's ranker for the open model and collection, built in the background as soon as
they open, once: choosing a method then ranks at once (the first choice of LSI on DPDK waited
about 30 s behind "LSI is being prepared", a first method change 0.25 s).

One worker builds them one after another over one index (the collection less the model's
held-out documents, as calibration.index_for makes it), the methods that answer by default
first and LSI, the slowest, last, each handed to the window as it is built. A method chosen
before its turn is built at once by a second worker, as before; the one being built is waited
for, not built twice. While a run trains (the open measured model again on every document, or
any other), only the methods chosen are built, the rest once the run has ended: preparing every
one beside the second run on DPDK (1 epoch, the shared two-core machine) took it from 19-20 s
with no model open to 36-49 s, building only the chosen auto to 23-29 s; and a run started
while they were prepared showed a first time left 2.5-4 times too long. The method being built
when a run starts is finished first (the Training panel holds the run's steps until then).
While the measured model answers, the first baseline over every document is built too
(`over_every_document`): it answers the words only the held-out documents hold, which the
measured model's rankers do not know."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from expert_gui.core.data.recency import Recency
from expert_gui.core.evaluation.calibration import index_for
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.methods import make_ranker, recency_weights

# The order the methods are prepared in: auto and its members (what answers by default), the
# other language models, the vector-space models, the ensemble, LSI (its SVD takes longest).
PREPARED = ("auto", "model2-jm", "model1-d", "model1-jm", "model2-d", "model1-d-doc", "tfidf",
            "ensemble", "lsi")
# The methods that need a model (without one, only the baselines are prepared).
NEEDS_MODEL = ("auto", "loglinear", "ensemble")
# The baseline that answers without a model, and over every document while the measured model
# answers: the strongest baseline on DPDK's topics (docs/results).
FIRST_BASELINE = "model1-d"


@dataclass(frozen=True)
class Variant:
    """What a query is besides its words: a paper from outside the collection (who could review
    it?) and the recency its documents are weighed by. `Variant()` is a topic, every document
    counting fully: the rankers prepared in the background."""

    outside: bool = False
    recency: Recency = field(default_factory=Recency)

    def __bool__(self) -> bool:
        return self.outside or bool(self.recency)


@dataclass(frozen=True)
class Built:
    """A variant's ranker and, under recency, what its weights did (recency_weights' words)."""

    ranker: object
    recency_text: str = ""


def build_ranker(method: str, model, collection, variant: Variant = Variant()):
    """A ranker that needs the model's collection, over the index the model was calibrated with
    (without a model: the whole collection). A worker builds it: it reads every document. A
    variant's comes as `Built`, with its recency's words."""
    index = collection if model is None or collection is None else index_for(model, collection)
    if not variant:
        if model is None:
            return make_ranker(method, collection=collection)
        return make_ranker(method, model=model, collection=index)
    ranker = make_ranker(method, model=model, collection=index, outside=variant.outside,
                         recency=variant.recency or None)
    weights = recency_weights(index, variant.recency or None)
    return Built(ranker, "" if weights is None else weights.describe())


def prepare_rankers(methods, model, collection, progress=None, should_stop=None,
                    have=frozenset()) -> dict:
    """Each method's ranker over one index, in order; `progress` is told each as it begins,
    (done, total, method, None), and as it is built, (done, total, method, ranker). A method
    in `have` (built meanwhile, when it was chosen) is passed over."""
    index = collection if model is None else index_for(model, collection)
    built = {}
    for i, method in enumerate(methods):
        if should_stop is not None and should_stop():
            break
        if method in have:
            continue
        if progress is not None:
            progress((i, len(methods), method, None))
        built[method] = ranker = make_ranker(method, model=model, collection=index)
        if progress is not None:
            progress((i + 1, len(methods), method, ranker))
    return built


class PreparedRankers(QObject):
    """The rankers of the open model and collection, by method; `ready` says when one is."""

    ready = Signal(str, object)  # method, its ranker (for the model and collection open now)
    variant_ready = Signal(str, object, object)  # method, Variant, Built
    every_document_ready = Signal()  # over_every_document has its ranker

    def __init__(self, state, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self._built: dict[str, object] = {}
        self._variants: dict[tuple[str, Variant], Built] = {}
        self._for: tuple = (None, None)  # the model and collection they are for
        self._building = ""  # the method the preparing worker builds now
        self._deferred = False  # the open model's methods wait for its run to end
        self._every_document = None  # FIRST_BASELINE over every document, while it is measured
        state.retraining_changed.connect(lambda: QTimer.singleShot(0, self._run_ended))
        state.runner.started.connect(self._started)
        state.runner.finished.connect(
            lambda slot: slot == "training" and QTimer.singleShot(0, self._run_ended))

    def get(self, method: str):
        return self._built.get(method) if self._is_open(*self._for) else None

    def over_every_document(self):
        """While the measured model answers: FIRST_BASELINE's ranker over every document (the
        held-out ones too), once built; None otherwise."""
        if self._is_open(*self._for) and self.state.measured_answers():
            return self._every_document
        return None

    def get_variant(self, method: str, variant: Variant) -> Built | None:
        return self._variants.get((method, variant)) if self._is_open(*self._for) else None

    def want_variant(self, method: str, variant: Variant) -> None:
        """Build `method` for `variant` now (it is chosen); `variant_ready` says when, and a
        failure (a recency the collection cannot use) is told on the status bar."""
        if self.get_variant(method, variant) is not None:
            return
        model, collection = self._for
        self.state.runner.start(
            "query-ranker", build_ranker, method, model, collection, variant,
            on_success=lambda built: self._add_variant(method, variant, built, model,
                                                       collection),
            on_failure=lambda exc, tb: self.state.message.emit(
                f"{label(method)} is not available: {exc}"))

    def _add_variant(self, method: str, variant: Variant, built: Built, model,
                     collection) -> None:
        if not (self._is_open(model, collection) and self._is_open(*self._for)):
            return
        self._variants.setdefault((method, variant), built)
        self.variant_ready.emit(method, variant, self._variants[(method, variant)])

    def _is_open(self, model, collection) -> bool:
        return model is self.state.model and collection is self.state.collection

    def prepare(self, chosen: str) -> None:
        """For the model and collection now open (once): build every method's ranker in the
        background, except `chosen`, which `want` builds first."""
        if self._is_open(*self._for):
            return
        model, collection = self._for = self.state.model, self.state.collection
        self._built, self._variants, self._building = {}, {}, ""
        self._every_document = None
        self.state.runner.stop("query-ranker")  # a ranker of the model or collection before
        if collection is None:
            self.state.runner.stop("rankers")
            return
        self._deferred = self._run_trains()
        if self._deferred:  # a run trains on the same CPU: only what is chosen
            self.state.runner.stop("rankers")
            if self.state.measured_answers():
                self.state.runner.start(
                    "every-document", build_ranker, FIRST_BASELINE, None, collection,
                    on_success=lambda ranker: self._add_every_document(ranker, model, collection))
            return
        self._prepare_all(chosen)

    def _run_trains(self) -> bool:
        return self.state.measured_answers() or self.state.runner.running("training") is not None

    def _started(self, slot: str) -> None:
        """A run starts: the methods not built yet wait for its end (the one being built is
        finished first)."""
        if slot == "training" and self.state.runner.running("rankers") is not None:
            self._deferred = True
            self.state.runner.stop("rankers")

    def _add_every_document(self, ranker, model, collection) -> None:
        if self._is_open(model, collection) and self._is_open(*self._for):
            self._every_document = ranker
            self.every_document_ready.emit()

    def _run_ended(self) -> None:
        """The run ended (or the one that trained the open measured model again kept it):
        the open model's other methods are prepared now. (A model that replaced it has its
        own.)"""
        if self._deferred and self._is_open(*self._for) and not self._run_trains():
            self._deferred = False
            self._prepare_all("")

    def _prepare_all(self, chosen: str) -> None:
        """Every method's ranker but `chosen` (built by `want`) and those built already."""
        model, collection = self._for
        methods = [m for m in PREPARED if m != chosen and (model is not None or
                                                            m not in NEEDS_MODEL)]
        self.state.runner.start(
            "rankers", prepare_rankers, methods, model, collection, have=self._built.keys(),
            on_progress=lambda events: self._prepared(events, model, collection),
            on_success=lambda _built: self._done(),
            on_failure=lambda exc, tb: self._done(f"The methods could not all be prepared: "
                                                  f"{exc}"))

    def want(self, method: str) -> None:
        """Build `method` now (it is chosen), unless the preparing worker is building it."""
        if self.get(method) is not None or method == self._building:
            return
        model, collection = self._for
        self.state.runner.start(
            "query-ranker", build_ranker, method, model, collection,
            on_success=lambda ranker: self._add(method, ranker, model, collection),
            on_failure=lambda exc, tb: self.state.message.emit(
                f"{label(method)} is not available: {exc}"))

    def _prepared(self, events: list, model, collection) -> None:
        for done, total, method, ranker in events:
            if ranker is None:
                self._building = method
                self.state.busy_detail.emit("rankers", f"preparing the methods: "
                                                       f"{label(method)} ({done + 1} of {total})")
            else:
                self._building = ""
                self._add(method, ranker, model, collection)

    def _add(self, method: str, ranker, model, collection) -> None:
        if not (self._is_open(model, collection) and self._is_open(*self._for)):
            return  # built for a model or collection since replaced
        self._built.setdefault(method, ranker)
        self.ready.emit(method, self._built[method])

    def _done(self, problem: str = "") -> None:
        self._building = ""
        self.state.busy_detail.emit("rankers", "")
        if problem:
            self.state.message.emit(problem)
