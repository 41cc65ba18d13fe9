"""Installs ``bench.gc_watch`` in every Python process started with ``GC_WATCH_DIR`` set and this folder on
``PYTHONPATH`` (see ``bench/gc_watch.py``). ``GC_WATCH_LOADGEN_THRESHOLDS`` (three numbers) sets the collector's
thresholds of the load generator's own process (``python -m loadtest``), to measure what its pauses add."""

import os
import sys

if os.environ.get("GC_WATCH_DIR"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from bench import gc_watch

    gc_watch.install(os.environ["GC_WATCH_DIR"], census=os.environ.get("GC_WATCH_CENSUS") == "1")
    gc_watch.load_generator_thresholds(os.environ.get("GC_WATCH_LOADGEN_THRESHOLDS", ""))
