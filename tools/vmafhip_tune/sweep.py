"""Running cells: concurrently up to --jobs, each finished one appended to
the corpus at once, a cell already there taken from it instead of run
again, failures recorded beside the corpus (the sweep goes on), a progress
bar with cells done and the time left.
"""

import concurrent.futures
import math
import os
import signal
import sys
import threading

from . import pipeline
from .corpus import Corpus, ErrorLog


class Interrupted(Exception):
    pass


def default_jobs():
    return max(1, (os.cpu_count() or 2) // 2)


class Sweep:
    def __init__(self, corpus_path, scoring, jobs, quiet):
        self.corpus = Corpus(corpus_path)
        self.errors = ErrorLog(corpus_path)
        self.scoring = scoring
        self.jobs = max(1, jobs)
        self.quiet = quiet
        self.stop = threading.Event()
        self.ran = 0            # cells run (not taken from the corpus)
        self.reused = 0
        self.lock = threading.Lock()
        self.bar = None
        # tests: a hard kill after this many new rows (an interrupted sweep)
        self.kill_after = int(os.environ.get("VMAFHIP_TUNE_TEST_KILL_AFTER", "0"))

    def progress(self, total, what):
        from tqdm import tqdm
        self.bar = tqdm(total=total, unit="cell", desc=what, file=sys.stderr,
                        disable=self.quiet, dynamic_ncols=True)

    def note(self, text):
        if self.bar is not None and not self.quiet:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def measure(self, cell):
        """CELL's row: from the corpus, or run now and appended.  None if
        the cell failed (recorded)."""
        row = self.corpus.get(cell.key)
        if row is not None:
            with self.lock:
                self.reused += 1
            self.tick()
            return row
        if self.stop.is_set():
            raise Interrupted()
        try:
            row = pipeline.run_cell(cell, self.scoring, self.stop)
        except pipeline.Stopped:
            raise Interrupted()
        except pipeline.CellError as e:
            self.errors.add(cell.key, getattr(e, "pipeline", ""), str(e))
            self.note(f"vmafhip-tune: cell {cell.key} failed: {e}")
            self.tick()
            return None
        self.corpus.append(row)
        with self.lock:
            self.ran += 1
            if self.kill_after and self.ran >= self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
        self.tick()
        return row

    def tick(self):
        if self.bar is not None:
            with self.lock:
                self.bar.update(1)

    def run_all(self, tasks):
        """Call every task (a function of no arguments) on the pool; their
        results in order.  Ctrl-C stops the pipelines and raises
        Interrupted once the running cells are stopped."""
        results = [None] * len(tasks)
        pool = concurrent.futures.ThreadPoolExecutor(self.jobs)
        futures = {pool.submit(task): i for i, task in enumerate(tasks)}
        try:
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
        except (KeyboardInterrupt, Interrupted):
            self.stop.set()
            for future in futures:
                future.cancel()
            pool.shutdown(wait=True)
            raise Interrupted()
        finally:
            pool.shutdown(wait=True)
            if self.bar is not None:
                self.bar.close()
        return results


def bisection_probes(count):
    """How many probes a bisection over COUNT values takes at most."""
    return max(1, math.ceil(math.log2(count + 1)))


def last_true(count, predicate):
    """The largest index i < COUNT with PREDICATE(i) true, for a predicate
    true on a prefix of 0..COUNT-1 (-1: none)."""
    lo, hi = -1, count
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate(mid):
            lo = mid
        else:
            hi = mid
    return lo
