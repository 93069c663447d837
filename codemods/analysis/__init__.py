"""The analysis shared by all rules: per-file facts, the project index, and their queries."""
