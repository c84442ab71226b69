"""Stage 6, exploring people: profiles (what a person knows, who else works on it), the map of
people, timelines of a person's documents, and embeddings for the TensorBoard Projector."""
