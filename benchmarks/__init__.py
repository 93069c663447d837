"""Benchmarks of workerseed (speed and real-code truth); run as scripts, not shipped."""
