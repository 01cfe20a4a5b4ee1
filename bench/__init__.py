"""Benchmarks: long measurements run on demand (`make bench`), never timed assertions in tests."""
