"""Benchmarks of Grey Circle Games (see bench/README.md)."""
