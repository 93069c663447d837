"""The `workerseed` command line: click commands and rich rendering only."""
