"""kernel-genome engine: fills the holes of GPU kernel templates by search."""
