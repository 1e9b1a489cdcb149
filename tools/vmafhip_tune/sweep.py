"""Running cells: concurrently up to --jobs cells (a pipeline of several
cells counts each of them; one with more than --jobs runs alone), each
finished one appended to the corpus at once, a cell already there taken
from it instead of run again (in a group, only the missing cells run),
failures recorded beside the corpus (the sweep goes on), a progress bar
with cells done and the time left.
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
        self.busy = 0           # cells in the pipelines running now
        self.slots = threading.Condition()
        self.bar = None
        # tests: a hard kill after this many new rows (an interrupted sweep)
        self.kill_after = int(os.environ.get("VMAFHIP_TUNE_TEST_KILL_AFTER", "0"))

    def progress(self, total, what):
        if self.quiet:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self.note("vmafhip-tune: no progress bar (python3-tqdm is not "
                      "installed; --quiet leaves it out)")
            return
        self.bar = tqdm(total=total, unit="cell", desc=what, file=sys.stderr,
                        dynamic_ncols=True)

    def note(self, text):
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def take_slots(self, count):
        """Wait until COUNT more cells fit in --jobs (or nothing runs)."""
        with self.slots:
            while self.busy and self.busy + count > self.jobs:
                self.slots.wait()
            self.busy += count

    def give_slots(self, count):
        with self.slots:
            self.busy -= count
            self.slots.notify_all()

    def measure(self, cell):
        """CELL's row: from the corpus, or run now and appended.  None if
        the cell failed (recorded)."""
        return self.measure_group([cell])[0]

    def measure_group(self, cells):
        """The rows of CELLS (one source, encoder, knob and decoder): those
        in the corpus taken from it, the others run in one pipeline and
        appended.  None for a cell that failed (recorded)."""
        rows = [self.corpus.get(cell.key) for cell in cells]
        todo = [cell for cell, row in zip(cells, rows) if row is None]
        with self.lock:
            self.reused += len(cells) - len(todo)
        for _ in range(len(cells) - len(todo)):
            self.tick()
        if not todo:
            return rows
        if self.stop.is_set():
            raise Interrupted()
        self.take_slots(len(todo))
        try:
            if self.stop.is_set():      # stopped while it waited
                raise Interrupted()
            results = pipeline.run_group(todo, self.scoring, self.stop)
        except pipeline.Stopped:
            raise Interrupted()
        finally:
            self.give_slots(len(todo))
        done = {}
        for cell, result in zip(todo, results):
            if isinstance(result, pipeline.CellError):
                self.errors.add(cell.key, getattr(result, "pipeline", ""),
                                str(result))
                self.note(f"vmafhip-tune: cell {cell.key} failed: {result}")
                self.tick()
                continue
            self.corpus.append(result)
            done[cell.key] = result
            with self.lock:
                self.ran += 1
                if self.kill_after and self.ran >= self.kill_after:
                    os.kill(os.getpid(), signal.SIGKILL)
            self.tick()
        return [row if row is not None else done.get(cell.key)
                for cell, row in zip(cells, rows)]

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
