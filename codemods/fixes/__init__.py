"""Reusable edits: applying them with libcst, imports, and the helper code fixes insert."""
