"""The corpus: one JSON object per line (JSON lines, UTF-8), appended cell
by cell, shared by every vmafhip-tune subcommand.

Row format (docs/tune.md, *Corpus format*):

Required keys (types):
- "cell": str       stable key of the grid cell:
                    "<source basename>|<encoder>|<knob>=<value>|<W>x<H>"
                    (+ "|shot=<i>" for per-shot rows)
- "source": str     path of the reference as given
- "encoder": str    GStreamer factory name: "x264enc", "x265enc", "av1enc",
                    "nvh264enc", ...
- "knob": str       the quality knob's name in the encoder table: "crf",
                    "qp", "bitrate" ...
- "value": number   the knob's value for this cell
- "width": int, "height": int   the encode's resolution (the reference's
                    size is "ref_width"/"ref_height")
- "ref_width": int, "ref_height": int
- "frames": int     frames scored
- "fps": number     source frame rate (frames a second, float)
- "bytes": int      encoded bytes (the elementary stream)
- "bitrate_kbps": number   bytes * 8 / (frames / fps) / 1000
- "scores": object  pooled means of every metric of the log, e.g.
                    {"vmaf": 93.123456, "psnr_y": 40.1}; the model's score
                    key is "vmaf"
- "model": str      e.g. "vmaf_v0.6.1"
- "pipeline": str   the exact gst-launch description that produced the row
- "versions": object  {"gstreamer": "1.22.0", "vmafhip": "...",
                    "<encoder>": "<plugin version>"}
- "elapsed_s": number  wall time of the cell's pipeline
Optional: "renditions": int (cells scored in that pipeline, 1 where the
cell ran alone), "log": str|null (per-frame libvmaf log kept), "shot": int,
"shot_start": int, "shot_frames": int, "settings": object (other encoder
properties set).

Each row is written whole, flushed and fsync'ed before the next cell is
counted done, so a sweep stopped at any moment leaves every finished cell
on disk; at worst the last line is cut short, and `Corpus.open` cuts it off
again (that cell runs again).  Resuming is skipping the cells whose key is
already there.
"""

import json
import os
import threading

from .encoders import format_value

REQUIRED = {
    "cell": str, "source": str, "encoder": str, "knob": str,
    "value": (int, float), "width": int, "height": int,
    "ref_width": int, "ref_height": int, "frames": int, "fps": (int, float),
    "bytes": int, "bitrate_kbps": (int, float), "scores": dict, "model": str,
    "pipeline": str, "versions": dict, "elapsed_s": (int, float),
}


class CorpusError(Exception):
    """A corpus file that cannot be read (exit status 2)."""


def cell_key(source, encoder, knob, value, width, height, shot=None):
    key = (f"{os.path.basename(source)}|{encoder}|{knob}={format_value(value)}"
           f"|{width}x{height}")
    if shot is not None:
        key += f"|shot={shot}"
    return key


def bitrate_kbps(nbytes, frames, fps):
    if frames <= 0 or fps <= 0:
        return 0.0
    return nbytes * 8 / (frames / fps) / 1000


def check_row(row, where):
    for key, types in REQUIRED.items():
        if key not in row:
            raise CorpusError(f"{where}: row lacks {key!r}")
        value = row[key]
        if isinstance(value, bool) or not isinstance(value, types):
            raise CorpusError(f"{where}: {key!r} has the wrong type "
                              f"({type(value).__name__})")


def read_rows(path, repair=False):
    """Every row of PATH, in order.

    A last line without its newline, or one that does not parse, is what an
    interrupted write leaves: it is dropped (and, with REPAIR, cut from the
    file).  A bad line before the last is an error naming it.
    """
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        data = f.read()
    rows = []
    good_end = 0            # byte offset after the last good line
    missing_newline = False
    offset = 0
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        end = offset + len(line) + (0 if last else 1)
        offset = end
        if not line.strip():
            continue
        try:
            row = json.loads(line.decode("utf-8"))
            if not isinstance(row, dict):
                raise ValueError("not an object")
            check_row(row, f"{path}:{number}")
        except (ValueError, UnicodeDecodeError, CorpusError) as e:
            if any(x.strip() for x in lines[number:]):
                raise CorpusError(f"{path}:{number}: not a corpus row ({e})")
            break           # the cut-short last line
        rows.append(row)
        good_end = end
        missing_newline = last
    if repair:
        if good_end < len(data):
            with open(path, "r+b") as f:
                f.truncate(good_end)
        if missing_newline:
            with open(path, "ab") as f:
                f.write(b"\n")
    return rows


class Corpus:
    """An open corpus: the rows so far, and an appender for new ones."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CorpusError(f"{path}: folder {folder} does not exist")
        self.rows = read_rows(path, repair=True)
        self.by_cell = {row["cell"]: row for row in self.rows}

    def has(self, cell):
        return cell in self.by_cell

    def get(self, cell):
        return self.by_cell.get(cell)

    def append(self, row):
        check_row(row, "new row")
        line = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
        with self.lock:
            # one write of the whole line, then to the disk before the cell
            # counts as done
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            self.rows.append(row)
            self.by_cell[row["cell"]] = row


class ErrorLog:
    """Failed cells, one JSON line each, beside the corpus (PATH.errors):
    not corpus rows, so a rerun tries them again."""

    def __init__(self, corpus_path):
        self.path = corpus_path + ".errors"
        self.lock = threading.Lock()
        self.entries = []

    def add(self, cell, pipeline, message):
        entry = {"cell": cell, "pipeline": pipeline, "error": message}
        with self.lock:
            self.entries.append(entry)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
