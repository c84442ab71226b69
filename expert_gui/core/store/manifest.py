"""The schema of the JSON files of a model folder: `manifest.json` and a checkpoint's
`state.json`. Every key, its type and its limits are checked before anything in a file is used,
and the file is hashed together with its tensors (`digest`), so a manifest whose content was
changed, even into valid JSON, is refused rather than giving wrong answers.

To add a key to the manifest (say, a ranker's weights), write a check for it here, put it in
`OPTIONAL_MODEL_KEYS` (read when present; older files without it stay readable) and write the key
in `storage.save_model`. Unknown keys are refused, so a file is never half understood.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from expert_gui.core.data.text import PAD_TOKEN, check_text_settings
from expert_gui.core.schema import (
    Check,
    SchemaError,
    canonical,
    constant,
    integer,
    json_value,
    list_of,
    nonempty_string,
    number,
    obj,
    one_of,
    optional,
    sha256_hex,
    string,
)


def digest(blob: bytes, document: Mapping) -> str:
    """SHA-256 of the tensor file and the document (all but its own `sha256` key), together."""
    h = hashlib.sha256(blob)
    h.update(b"\n")
    h.update(canonical({k: v for k, v in document.items() if k != "sha256"}))
    return h.hexdigest()



def _vocabulary(value, where: str) -> None:
    obj({"words": list_of(nonempty_string, unique=True, min_length=1),
         "counts": list_of(integer(0))})(value, where)
    if value["words"][0] != PAD_TOKEN:
        raise SchemaError(f"{where}.words[0]", f"expected the padding token {PAD_TOKEN!r}")
    if len(value["counts"]) != len(value["words"]):
        raise SchemaError(f"{where}.counts", f"{len(value['counts'])} counts for "
                                             f"{len(value['words'])} words")


def _people(value, where: str) -> None:
    obj({"ids": list_of(nonempty_string, unique=True, min_length=1),
         "names": list_of(string)})(value, where)
    if len(value["names"]) != len(value["ids"]):
        raise SchemaError(f"{where}.names", f"{len(value['names'])} names for "
                                            f"{len(value['ids'])} people")


# What the history's losses are, in the manifest's settings["loss"]: train.net's
# `weighted_mean_loss` (log |C| for a uniform guess). A model without it kept Eq. 3's values
# (the weighted sum per instance, the training loss with the L2 term), which no yardstick reads.
LOSS = "weighted cross-entropy, nats per instance"

_HISTORY_ENTRY = obj({"epoch": integer(1)}, {"step": integer(0), "train_loss": number,
                                             "val_loss": optional(number)}, other=json_value)

# What a model's manifest and a checkpoint's state both carry. `text_settings` is how text
# became tokens (data/text.py's TextSettings, its rules included); one without `segmentation`
# was written before that rule was recorded, and its model reads text by the earlier rule.
_COMMON_KEYS: dict[str, Check] = {
    "format_version": integer(1),
    "sha256": sha256_hex,
    "settings": obj({}, other=json_value),
    "text_settings": check_text_settings,
    "collection_fingerprint": string,
}
MODEL_KEYS: dict[str, Check] = {
    **_COMMON_KEYS,
    "vocabulary": _vocabulary,
    "people": _people,
    "collection_source": string,
    "history": list_of(_HISTORY_ENTRY),
}


# The methods `auto` fuses (rankers/fusion.py): the only ones a manifest's calibration may name.
MEMBERS = ("loglinear", "model2-jm", "model1-d")
# The fixed fusions `auto` starts from (core/evaluation/fusion_choice.py), by the members' names:
# the paper's model alone, and the paper's ensemble pair as z-scores with equal weights.
ANCHORS = {"loglinear": {"loglinear": 1.0},
           "loglinear+model2-jm": {"loglinear": 0.5, "model2-jm": 0.5}}

_WEIGHTS = list_of(number, min_length=1)
# How the weights were chosen (issue 21); a model calibrated before has none of these keys.
_FUSION_CHOICE: dict[str, Check] = {
    "rule": nonempty_string, "decision": one_of(("anchor", "calibrated")), "label": string,
    "anchor": one_of(tuple(ANCHORS)), "anchor_weights": _WEIGHTS, "prior_documents": integer(0),
    "shrinkage": number,
    "cv": obj({"folds": integer(1), "repeats": integer(1), "permutations": integer(1),
               "anchor_map": number, "oof_map": optional(number), "p": optional(number)}),
}
# auto's weights for short topics (rule /2), and the share of held-out documents that are short.
_SHORT_TOPICS = obj({"weights": _WEIGHTS, "short_share": number,
                     **{k: _FUSION_CHOICE[k] for k in ("decision", "label", "anchor",
                                                       "anchor_weights", "shrinkage", "cv")}})
_FUSION_OPTIONAL: dict[str, Check] = {**_FUSION_CHOICE, "bagged_weights": _WEIGHTS,
                                      "bootstrap_sd": _WEIGHTS, "short_topics": _SHORT_TOPICS}


# A fit of P(expert) (rankers/probability.py): of its features, with what it was checked on; or,
# calibrated before issue 42, sigmoid(slope z + intercept), read but not used.
_FEATURE_FIT = obj({"features": list_of(nonempty_string, min_length=1),
                    "weights": list_of(number, min_length=2), "queries": integer(1)},
                   {"ece": obj({}, other=number), "kinds": list_of(nonempty_string)})
_SLOPE_FIT = obj({"slope": number, "intercept": number, "queries": integer(1)})


def _p_expert_fit(value, where: str) -> None:
    if not isinstance(value, dict) or "features" not in value:
        _SLOPE_FIT(value, where)
        return
    _FEATURE_FIT(value, where)
    if len(value["weights"]) != len(value["features"]) + 1:
        raise SchemaError(f"{where}.weights", f"expected {len(value['features']) + 1} numbers "
                                              f"(one per feature and the intercept)")


def _calibration(value, where: str) -> None:
    """The held-out documents, the weights of `auto` and how they were chosen, every method's
    measures there, each method's fit of P(expert) (core/evaluation/calibration.py), and the
    run that trained the model kept again on every document (every_document.py)."""
    fraction = obj({"fraction": number, "minimum": integer(0), "maximum": integer(0),
                    "seed": integer(), "documents": list_of(nonempty_string, unique=True)})
    fusion = obj({"members": list_of(one_of(MEMBERS), unique=True, min_length=1),
                  "weights": _WEIGHTS, "normalisation": constant("z-score")}, _FUSION_OPTIONAL)
    measures = obj({}, other=obj({"AP": number, "RR": number}))
    probability = obj({}, other=_p_expert_fit)
    retrained = obj({"documents": integer(1), "people": integer(1), "words": integer(0),
                     "epochs": integer(1), "steps": integer(0), "seconds": number})
    obj({"held_out": fraction, "fusion": fusion, "measures": measures},
        {"probability": probability, "retrained": retrained})(value, where)
    fusion = value["fusion"]
    members = fusion["members"]
    short = fusion.get("short_topics", {})
    for name, values in [*((k, fusion.get(k)) for k in (
            "weights", "anchor_weights", "bagged_weights", "bootstrap_sd")),
            *((f"short_topics.{k}", short.get(k)) for k in ("weights", "anchor_weights"))]:
        if values is not None and (len(values) != len(members) or min(values) < 0):
            raise SchemaError(f"{where}.fusion.{name}", f"expected {len(members)} numbers of "
                                                        f"at least 0, found {values}")
    chosen = set(_FUSION_CHOICE) & set(fusion)
    if chosen and chosen != set(_FUSION_CHOICE):
        missing = ", ".join(sorted(set(_FUSION_CHOICE) - chosen))
        raise SchemaError(f"{where}.fusion", f"missing {missing}")


# `collection_format`: how the collection was read (a reader's name), so that it is read the
# same way again and a file gone since is named instead of the folder read as something else.
OPTIONAL_MODEL_KEYS: dict[str, Check] = {"calibration": _calibration,
                                         "collection_format": nonempty_string}

# `epoch_weight`: the weights summed with `epoch_loss` (a checkpoint without it counted
# instances, `epoch_instances`, and summed Eq. 3's values).
_RUN = obj({"epoch": integer(0), "batch": integer(0), "step": integer(0),
            "epoch_loss": number, "best_val": optional(number),
            "best_epoch": integer(0), "bad_epochs": integer(0),
            "history": list_of(_HISTORY_ENTRY)},
           {"epoch_weight": number, "epoch_instances": integer(0)})
CHECKPOINT_KEYS: dict[str, Check] = {
    **_COMMON_KEYS,
    "param_groups": list_of(obj({}, other=json_value), min_length=1),
    "run": _RUN,
}
# Where the run came from and how long it was to be, so an interrupted run (a folder with only
# its checkpoint) can be listed as "step N of M" and matched to its collection.
OPTIONAL_CHECKPOINT_KEYS: dict[str, Check] = {"collection_source": string,
                                              "total_steps": integer(0)}
