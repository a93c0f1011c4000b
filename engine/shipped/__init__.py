"""Files `export` ships beside the kernels, verbatim: they run in the user's process, not here."""
