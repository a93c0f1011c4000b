"""The results store: one schema, one writer, one reader."""
