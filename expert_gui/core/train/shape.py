"""Training settings suggested from a collection's shape: how many training windows its text
gives, so that a small collection takes enough optimiser steps to learn, and not many more.

The paper's settings (section 4.4) were made for collections of 10^5 documents: DPDK's 200,337
windows give 196 steps an epoch in batches of 1,024, 980 in the default five epochs. A
librarian's export is a few hundred titles or abstracts: Web of Science's BibTeX of 652 titles
gives 1,220 windows, two steps an epoch and ten in all, and the model hardly leaves its
initialisation (held-out MAP 0.036 against Model 1 (d)'s 0.393).

How many steps are enough is not what the held-out documents say: more steps always raise the
held-out MAP, but past a point that is the model memorising who wrote what, and queries from
outside the collection get worse answers (benchmarks/epochs_outside.py). On AMiner (1,641
abstracts; the 114 query papers out of the collection), in batches of 1,024 (12 steps an epoch) the held-out MAP rose until epoch 30 (0.40)
while the 7 areas peaked at 0.236 after epoch 10 (120 steps) and the 114 papers at 0.170 after
epoch 14 (168 steps; 0.130 after the paper's five epochs, 60 steps); in batches of 128 the
areas peaked at 0.218 after 267 steps, the papers at 0.181 after 356, and both fell by a third
to a half by epoch 30 (2,670 steps) while the held-out MAP stayed at 0.41. Both query sets were
near their best between 120 and 180 steps of 1,024 and between 180 and 360 steps of 128.

The log-linear model alone answered AMiner's papers best after more steps than the paper's, but
`auto` did not: over seeds 0-2 (benchmarks/auto_generalises.py, --paper-settings), at the paper's
60 to 65 steps auto scored 0.232-0.238 on the areas and 0.152-0.155 on the papers, within 0.01 of
the best method on both; after 156 steps of 1,024 (12 epochs) 0.204-0.206 and 0.151-0.152, and
after 200 steps of 318 0.184-0.209 and 0.150-0.156 (the held-out documents then moved its weights
toward Model 2 (jm)). So the floor is the run AMiner's abstracts take at the paper's settings,
the smallest for which queries from outside a collection show the model learned: a run that
would take fewer than MIN_STEPS steps gets batches that make that many in its epochs (not below
MIN_BATCH windows), and, only where even those make fewer, more epochs; a larger collection
keeps the paper's settings. Every change says why, in the words the app's form
and `expert-gui train` show (benchmarks/realfiles_training.py measures every real export with
and without them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from expert_gui.core.data.collection import Collection

MIN_STEPS = 60
MIN_BATCH = 32


@dataclass(frozen=True)
class Shape:
    """What the suggestion is made from: the collection's documents with people and words, its
    people, how many of them have a single document, the median document length in words, and
    the training windows the settings' window and overlapping cut from it."""

    documents: int
    people: int
    single_document_people: int
    median_length: float
    windows: int

    @classmethod
    def of(cls, collection: Collection, window: int = 8, overlapping: bool = False) -> Shape:
        import numpy as np

        from expert_gui.core.train.instances import count_instances

        lengths = collection.doc_lengths
        used = (np.diff(collection.assoc_indptr) > 0) & (lengths > 0)
        per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
        return cls(documents=int(used.sum()), people=collection.n_people,
                   single_document_people=int(np.sum(per_person == 1)),
                   median_length=float(np.median(lengths[used])) if used.any() else 0.0,
                   windows=count_instances(collection, window, overlapping))

    def text(self) -> str:
        """'652 documents (median 11 words), 9,673 people (62% with one document), 1,220
        training windows'."""
        single = (f", {self.single_document_people / self.people:.0%} with one document"
                  if self.people else "")
        return (f"{self.documents:,} documents (median {self.median_length:,.0f} words), "
                f"{self.people:,} people{single}, {self.windows:,} training windows")


def steps_per_epoch(windows: int, batch_size: int) -> int:
    return -(-windows // batch_size)


def run_steps(windows: int, settings) -> int:
    """The steps a run of `settings` takes on `windows` training windows, as the trainer counts
    them: its epochs of the windows left after the validation share is kept aside."""
    from expert_gui.core.train.instances import validation_count

    kept = windows - validation_count(windows, settings.validation_fraction)
    return settings.epochs * steps_per_epoch(kept, settings.batch_size)


def suggest(shape: Shape, batch_size: int, epochs: int, fixed: Iterable[str] = ()
            ) -> tuple[int, int, dict[str, str]]:
    """The batch size and epochs this shape needs, from the ones given (the paper's, or a
    collection's file's), and why each was changed (setting -> reason; empty when none was).
    Settings named in `fixed` (given by a collection's train_settings.json or on the command
    line) are kept, and the others are sized around them."""
    fixed = set(fixed)
    before = epochs * steps_per_epoch(shape.windows, batch_size)
    if before >= MIN_STEPS:
        return batch_size, epochs, {}  # the paper's settings are made for a collection this large
    batch = batch_size if "batch_size" in fixed else \
        max(MIN_BATCH, shape.windows * epochs // MIN_STEPS)
    per_epoch = steps_per_epoch(shape.windows, batch)
    sized = epochs if "epochs" in fixed else max(epochs, math.ceil(MIN_STEPS / per_epoch))
    reasons = {}
    wanted = f"a run of at least {MIN_STEPS} steps wanted"
    if batch != batch_size:
        reasons["batch_size"] = (
            f"{shape.windows:,} training windows make {_steps(before)} in {epochs} epochs of "
            f"batches of {batch_size:,}; batches of {batch:,} make {_steps(per_epoch)} an epoch "
            f"({wanted}, batches of at least {MIN_BATCH})")
    if sized != epochs:
        reasons["epochs"] = (
            f"{sized} epochs of {_steps(per_epoch)} make {sized * per_epoch:,} steps ({wanted})")
    return batch, sized, reasons


def _steps(n: int) -> str:
    return f"{n:,} step{'s' * (n != 1)}"
