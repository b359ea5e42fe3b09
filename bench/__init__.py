"""The published figures of the clock (`make bench`, docs/benchmarks.md).

bench/run.py measures everything it can under CPython and starts
bench/mp_bench.py inside the real MicroPython interpreter for the heap figures.
"""
