"""Problem definitions and the evaluation harness. Never imports ``engine``."""
