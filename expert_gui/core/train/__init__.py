"""Stage 4, training: the settings (importable without torch), the n-gram instances, the torch
network and its step on the device, the trainer with its checkpoints, data-parallel runs and
pretrained word vectors."""
