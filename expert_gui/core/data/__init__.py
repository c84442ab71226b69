"""Stage 1, reading data: input files, the text rules of section 4.4, the collection (documents,
people, their links) and its on-disk cache, the format readers, and topic files."""
