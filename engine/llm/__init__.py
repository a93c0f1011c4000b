"""LLM operators: an OpenAI-compatible endpoint proposes genomes from the template, its space, the
hardware and model sheets, and the results so far; every call is kept word for word in the run."""
