"""Benchmarks: corpus, precision, throughput and analysis time (see README.md)."""
