"""Stage 3, storing models: output folders the program may write, the schema of manifests and
checkpoints, model files (safetensors + manifest.json) and checkpoints, and what a model folder
holds."""
