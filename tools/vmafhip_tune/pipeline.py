"""The GStreamer pipelines that encode, decode and score grid cells
(PyGObject, no main loop: each pipeline pops its own bus in the thread
that runs it).  The cells of one source, encoder, knob and decoder share
one pipeline, one branch each (a lone cell is a pipeline of one branch):

    SOURCE ! tee name=t
      t. ! queue ! v.ref_sink                       (the reference, decoded once)
      t. ! queue ! videoscale ! video/x-raw,width=W0,height=H0
           ! ENCODER ! PARSER ! STREAM-CAPS [! tee ! queue ! filesink]
           ! DECODER ! v.dist_sink
      t. ! queue ! ... W1xH1 ... ! DECODER ! v.dist_sink_0     (renditions)
      vmafhip name=v scaler=bicubic results-filename=LOG ! fakesink

The element scales each smaller decoded picture back up to the
reference's size (on the GPU with backend=hip, else on the CPU) and
scores each pad as a separate element would, its results in a file of
its own.  A pad probe on each parser's output counts that elementary
stream's bytes; the pooled scores are read from the pad's results log
(libvmaf's JSON, the numbers as vmafhip-score prints them), so a row
equals a vmafhip-score run of the same encode, whether its cell ran alone
or beside others.  Every element of a branch is named with its cell's
index (enc0, dec1 ...), so an error names the cell that failed.
"""

import json
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

from . import encoders, queues  # noqa: E402
from .corpus import bitrate_kbps  # noqa: E402

Gst.init(None)


class SourceError(Exception):
    """A source that cannot be read (exit status 2)."""


class CellError(Exception):
    """A cell whose pipeline failed (recorded; the sweep goes on).
    ELEMENT: the element that posted the error, where one did."""

    def __init__(self, message, element=None):
        super().__init__(message)
        self.element = element


class Stopped(Exception):
    """The sweep was interrupted while this cell ran."""


@dataclass
class Source:
    spec: str          # as given: a path or testsrc:...
    launch: str        # its gst-launch description, up to raw video
    width: int
    height: int
    fps: float


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_testsrc(spec):
    """testsrc:pattern=ball,320x180,20frames[,25fps][,format=I420]: any
    other NAME=VALUE goes to videotestsrc as a property."""
    width, height, frames, fps, fmt = 320, 180, 30, "30/1", "I420"
    props = []
    for part in filter(None, spec[len("testsrc:"):].split(",")):
        if re.fullmatch(r"\d+x\d+", part):
            width, height = map(int, part.split("x"))
        elif re.fullmatch(r"\d+frames", part):
            frames = int(part[:-6])
        elif re.fullmatch(r"\d+(/\d+)?fps", part):
            fps = part[:-3] if "/" in part else part[:-3] + "/1"
        elif part.startswith("format="):
            fmt = part[len("format="):]
        elif re.fullmatch(r"[a-z][a-z0-9-]*=[^ !]+", part):
            props.append(part)
        else:
            raise SourceError(f"{spec}: cannot read {part!r} (testsrc:"
                              "PROP=VALUE,WxH,Nframes,Rfps,format=F)")
    launch = " ".join(["videotestsrc", f"num-buffers={frames}", *props]) + \
        f" ! video/x-raw,format={fmt},width={width},height={height}," \
        f"framerate={fps}"
    return launch


def source_launch(spec):
    if spec.startswith("testsrc:"):
        return parse_testsrc(spec)
    if not os.path.isfile(spec) or not os.access(spec, os.R_OK):
        raise SourceError(f"{spec}: no such readable file")
    location = quote(os.path.abspath(spec))
    with open(spec, "rb") as f:
        y4m = f.read(10) == b"YUV4MPEG2 "
    if y4m:
        # y4mdec itself: a GStreamer without the playback plugin (the GPU
        # machine's packed runtime) has no decodebin
        return f"filesrc location={location} ! y4mdec"
    # decodebin reads anything a plugin decodes; the capsfilter takes the
    # video stream (an audio one stays unlinked)
    return f"filesrc location={location} ! decodebin ! video/x-raw(ANY)"


def run_to_end(pipeline, stop=None, on_message=None, on_tick=None):
    """Play PIPELINE to EOS; CellError on an error, Stopped on STOP;
    ON_TICK() between messages, at least every tenth of a second."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    try:
        while True:
            if stop is not None and stop.is_set():
                raise Stopped()
            if on_tick is not None:
                on_tick()
            msg = bus.timed_pop_filtered(
                100 * Gst.MSECOND,
                Gst.MessageType.ERROR | Gst.MessageType.EOS
                | Gst.MessageType.ELEMENT | Gst.MessageType.WARNING)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.ERROR:
                err, debug = msg.parse_error()
                where = msg.src.get_name() if msg.src else "?"
                raise CellError(f"{where}: {err.message}"
                                + (f" ({debug})" if debug else ""), msg.src)
            if msg.type == Gst.MessageType.EOS:
                return
            if on_message is not None:
                on_message(msg)
    finally:
        pipeline.set_state(Gst.State.NULL)


def probe_source(spec):
    """The source's size and frame rate, from its first negotiated caps."""
    launch = source_launch(spec)
    try:
        pipeline = Gst.parse_launch(f"{launch} ! fakesink name=probe_sink")
    except GLib.Error as e:
        raise SourceError(f"{spec}: {e.message}")
    pipeline.set_state(Gst.State.PAUSED)
    bus = pipeline.get_bus()
    try:
        msg = bus.timed_pop_filtered(
            30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.ASYNC_DONE)
        if msg is None:
            raise SourceError(f"{spec}: no video within 30 s")
        if msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            raise SourceError(f"{spec}: {err.message}")
        pad = pipeline.get_by_name("probe_sink").get_static_pad("sink")
        caps = pad.get_current_caps()
        s = caps.get_structure(0) if caps else None
        if s is None or not s.get_name().startswith("video/x-raw"):
            raise SourceError(f"{spec}: not a decodable video "
                              f"({s.get_name() if s else 'no caps'})")
        ok_w, width = s.get_int("width")
        ok_h, height = s.get_int("height")
        ok_r, num, den = s.get_fraction("framerate")
        if not (ok_w and ok_h):
            raise SourceError(f"{spec}: no picture size in its caps")
        fps = num / den if ok_r and den and num else 0.0
        if fps <= 0:
            raise SourceError(f"{spec}: no frame rate in its caps "
                              "(a still image or a variable rate)")
    finally:
        pipeline.set_state(Gst.State.NULL)
    return Source(spec, launch, width, height, fps)


@dataclass
class Cell:
    key: str
    source: Source
    encoder: encoders.Encoder
    knob: encoders.Knob
    value: float
    width: int
    height: int
    decoder: str
    preset: str = None
    extra: tuple = ()          # (("property", "value"), ...) from --set
    shot: int = None
    shot_start: int = 0
    shot_frames: int = 0       # 0: to the end


@dataclass
class Scoring:
    backend: str = "auto"
    model: str = "vmaf_v0.6.1"
    keep_encodes: str = None   # folder for the elementary streams
    keep_logs: str = None      # folder for the per-frame logs
    queue_frames: int = queues.START_FRAMES  # the queues' first bound


def safe_name(key):
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", key)


def model_name(model):
    if os.path.sep in model or model.endswith((".json", ".pkl")):
        return os.path.splitext(os.path.basename(model))[0]
    return model


def encoder_settings(cell):
    """The encoder's properties for CELL: fixed ones, the preset, --set
    ones, then the knob's (which win)."""
    settings = list(cell.encoder.fixed)
    preset = cell.preset or cell.encoder.default_preset
    if cell.encoder.preset_property and preset:
        settings.append((cell.encoder.preset_property, preset))
    settings.extend(cell.extra)
    knob = cell.knob.settings(cell.value)
    knob_props = {p for p, _ in knob}
    settings = [(p, v) for p, v in settings if p not in knob_props] + knob
    return settings


def pad_name(index):
    """The element's pad for the INDEX-th cell of a pipeline: dist_sink,
    then the renditions' dist_sink_0, dist_sink_1 ..."""
    return "dist_sink" if index == 0 else f"dist_sink_{index - 1}"


def rendition_log(log_path, index):
    """Where the element writes the INDEX-th pad's results: LOG for
    dist_sink, LOG with the pad's name before the extension for a rendition
    (scores.json -> scores.dist_sink_0.json)."""
    if index == 0:
        return log_path
    stem, ext = os.path.splitext(log_path)
    return f"{stem}.{pad_name(index)}{ext}"


# Every element of a cell's branch is named <one of these><its index>, so a
# message from one of them names the cell it belongs to
BRANCH_ELEMENT = re.compile(r"(q|scale|size|enc|parser|parse|es|fileq|file|"
                            r"decq|dec)(\d+)")


def describe_branch(cell, index, keep_path, frames):
    """The INDEX-th cell's branch of a pipeline, from the tee to its pad,
    its queues bounded to FRAMES buffers."""
    i = index       # short: it is in every element's name
    queue = queues.queue_description(frames)
    settings = " ".join(f"{p}={quote(v) if ' ' in v or '=' in v else v}"
                        for p, v in encoder_settings(cell))
    encode = (f"t. ! {queue} name=q{i} ! videoscale name=scale{i} ! "
              f"capsfilter name=size{i} caps=video/x-raw,width={cell.width},"
              f"height={cell.height} ! "
              f"{cell.encoder.factory} name=enc{i} {settings} ! "
              f"{cell.encoder.parser} name=parser{i} ! "
              f"capsfilter name=parse{i} caps={cell.encoder.stream_caps} ! ")
    if keep_path:
        encode += (f"tee name=es{i} ! {queue} name=fileq{i} ! filesink "
                   f"name=file{i} location={quote(keep_path)} "
                   f"es{i}. ! {queue} name=decq{i} ! ")
    return encode + f"{cell.decoder} name=dec{i} ! v.{pad_name(index)}"


def describe(cells, scoring, log_path, keep_paths):
    """The gst-launch description of one pipeline scoring CELLS (one
    source, encoder and decoder): the first on dist_sink, the others on
    the renditions' pads dist_sink_%u, every one against the reference
    decoded once.  Every queue starts bounded to scoring.queue_frames
    buffers, grown while an encoder needs more input (queues.TeeQueues)."""
    frames = scoring.queue_frames
    branches = " ".join(describe_branch(cell, i, keep, frames)
                        for i, (cell, keep) in enumerate(zip(cells, keep_paths)))
    element = (f"vmafhip name=v backend={scoring.backend} scaler=bicubic "
               f"model-filename={quote(scoring.model)} "
               f"results-filename={quote(log_path)} results-format=json "
               "! fakesink sync=false")
    return (f"{cells[0].source.launch} ! tee name=t "
            f"t. ! {queues.queue_description(frames)} name=refq ! v.ref_sink "
            f"{branches} {element}")


def cut_to_shot(pipeline, start, frames):
    """Pass only frames [START, START+FRAMES) of the source into the tee;
    EOS after them (upstream then sees EOS and stops)."""
    pad = pipeline.get_by_name("t").get_static_pad("sink")
    count = [0]

    def probe(pad, info):
        index = count[0]
        count[0] += 1
        if index < start:
            return Gst.PadProbeReturn.DROP
        if frames and index >= start + frames:
            if index == start + frames:
                pad.send_event(Gst.Event.new_eos())
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK

    pad.add_probe(Gst.PadProbeType.BUFFER, probe)


def count_bytes(pipeline, name):
    """A counter of the bytes leaving the capsfilter NAME after a parser
    (the elementary stream, as a kept file holds it)."""
    total = [0]
    lock = threading.Lock()

    def probe(pad, info):
        n = 0
        if info.type & Gst.PadProbeType.BUFFER:
            n = info.get_buffer().get_size()
        elif info.type & Gst.PadProbeType.BUFFER_LIST:
            blist = info.get_buffer_list()
            n = sum(blist.get(i).get_size() for i in range(blist.length()))
        with lock:
            total[0] += n
        return Gst.PadProbeReturn.OK

    pad = pipeline.get_by_name(name).get_static_pad("src")
    pad.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST, probe)
    return total


def read_log(path):
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    pooled = log.get("pooled_metrics") or {}
    scores = {name: values["mean"] for name, values in pooled.items()
              if isinstance(values, dict) and "mean" in values}
    return log, scores


def versions(cell):
    major, minor, micro, _ = Gst.version()
    out = {"gstreamer": f"{major}.{minor}.{micro}",
           "vmafhip": encoders.plugin_version("vmafhip") or "?",
           cell.encoder.factory: encoders.plugin_version(cell.encoder.factory) or "?"}
    out[cell.decoder] = encoders.plugin_version(cell.decoder) or "?"
    return out


def renditions_supported():
    """Whether the installed vmafhip has the renditions' request pads
    (dist_sink_%u), so that several cells can share one pipeline."""
    factory = Gst.ElementFactory.find("vmafhip")
    return factory is not None and any(
        t.name_template == "dist_sink_%u" for t in factory.get_static_pad_templates())


class BranchFailed(Exception):
    """One cell's branch of a shared pipeline failed (the others run again
    without it)."""

    def __init__(self, index, error):
        super().__init__(str(error))
        self.index = index
        self.error = error


def branch_of(element, count):
    """The index of the cell whose branch ELEMENT (or a bin holding it)
    belongs to; None for the shared part (source, tee, vmafhip)."""
    while element is not None:
        match = BRANCH_ELEMENT.fullmatch(element.get_name() or "")
        if match and int(match.group(2)) < count:
            return int(match.group(2))
        element = element.get_parent()
    return None


def pad_in(text, count):
    """The one cell pad (dist_sink, dist_sink_N) TEXT names, as an index;
    None where it names none or several."""
    named = set(re.findall(r"\bdist_sink(?:_(\d+))?\b", text))
    if len(named) != 1:
        return None
    suffix = named.pop()
    index = int(suffix) + 1 if suffix else 0
    return index if index < count else None


def run_group(cells, scoring, stop=None):
    """Encode, decode and score CELLS (one source, encoder, knob and
    decoder; any sizes and values) in one pipeline: one row or CellError
    per cell, in order.  A branch that fails is that cell's failure, and
    the others run again without it; a failure of the shared part (the
    source, the element) is every cell's."""
    outcome = {}
    todo = list(cells)
    while todo:
        try:
            outcome.update(run_pipeline(todo, scoring, stop))
            break
        except BranchFailed as e:
            outcome[todo[e.index].key] = e.error
            del todo[e.index]
    return [outcome[cell.key] for cell in cells]


def run_cell(cell, scoring, stop=None):
    """CELL alone in its pipeline: its row; CellError where it failed."""
    result, = run_group([cell], scoring, stop)
    if isinstance(result, CellError):
        raise result
    return result


# The element's warnings that a pad's frames are not all scored (it left
# the rendition out, cannot score or write it); others (a timestamp jump
# it handles, a copy out of CUDA memory) leave the scores whole
NOT_SCORED = re.compile(r"\bnot scored\b|\bcannot\b")


class Watch:
    """What the element says about each pad while it runs: a rendition it
    does not score whole (a warning naming the pad) and how each pad's
    measurement ended (its pooled message's `end`)."""

    def __init__(self, count):
        self.count = count
        self.warnings = {}      # index -> [text]
        self.ends = {}          # index -> end

    def __call__(self, msg):
        if msg.src is None or msg.src.get_name() != "v":
            return
        if msg.type == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            index = pad_in(err.message, self.count)
            if index is not None and NOT_SCORED.search(err.message):
                self.warnings.setdefault(index, []).append(err.message)
            return
        s = msg.get_structure()
        if s is None or s.get_string("type") != "pooled":
            return
        pad = s.get_string("pad") or ""
        for index in range(self.count):
            if pad == pad_name(index):
                self.ends[index] = s.get_string("end")


def run_pipeline(cells, scoring, stop):
    """CELLS in one pipeline: {key: row or CellError}; BranchFailed where
    an element of one cell's branch posted an error."""
    begin = time.monotonic()
    log_dir = tempfile.mkdtemp(prefix="vmafhip-tune-", dir=scoring.keep_logs)
    log_path = os.path.join(log_dir, "scores.json")
    keep_paths = [os.path.join(scoring.keep_encodes, safe_name(cell.key) + "."
                               + cell.encoder.extension)
                  if scoring.keep_encodes else None for cell in cells]
    description = describe(cells, scoring, log_path, keep_paths)
    watch = Watch(len(cells))

    def failed(error, index=None):
        error.pipeline = description
        return error if index is None else BranchFailed(index, error)

    try:
        try:
            pipeline = Gst.parse_launch(description)
        except GLib.Error as e:
            error = failed(CellError(f"pipeline: {e.message}"))
            return {cell.key: error for cell in cells}
        if cells[0].shot is not None:
            cut_to_shot(pipeline, cells[0].shot_start, cells[0].shot_frames)
        counters = [count_bytes(pipeline, f"parse{i}") for i in range(len(cells))]
        tee_queues = queues.TeeQueues(
            pipeline, [pad_name(i) for i in range(len(cells))],
            scoring.queue_frames)
        try:
            run_to_end(pipeline, stop, watch, tee_queues.check)
        except queues.QueueTooSmall as e:
            raise failed(CellError(str(e)), e.index)
        except CellError as e:
            # an element of one branch, or the element naming one pad
            index = branch_of(e.element, len(cells))
            if index is None and e.element is not None and \
                    e.element.get_name() == "v":
                index = pad_in(str(e), len(cells))
            if index is None:
                error = failed(e)
                return {cell.key: error for cell in cells}
            raise failed(e, index)
        elapsed = round(time.monotonic() - begin, 3)
        outcome = {}
        for i, cell in enumerate(cells):
            try:
                outcome[cell.key] = make_row(
                    cell, scoring, rendition_log(log_path, i), counters[i][0],
                    watch, i, description, elapsed, len(cells),
                    tee_queues.frames)
            except CellError as e:
                outcome[cell.key] = failed(e)
        return outcome
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


def make_row(cell, scoring, log_path, nbytes, watch, index, description,
             elapsed, renditions, queue_frames):
    """CELL's corpus row from its pad's results log (moved to --keep-logs
    where given)."""
    said = "; ".join(watch.warnings.get(index, []))
    if watch.ends.get(index) == "error" or said:
        raise CellError(f"{pad_name(index)}: " + (said or "the element "
                        "stopped scoring it (end=error)"))
    try:
        log, scores = read_log(log_path)
    except (OSError, ValueError) as e:
        raise CellError(f"results log {log_path}: {e}")
    frames = len(log.get("frames", []))
    if frames == 0 or "vmaf" not in scores:
        raise CellError("no frame was scored")
    kept = None
    if scoring.keep_logs:
        kept = os.path.join(scoring.keep_logs, safe_name(cell.key) + ".json")
        os.replace(log_path, kept)
    fps = cell.source.fps
    row = {
        "cell": cell.key, "source": cell.source.spec,
        "encoder": cell.encoder.factory, "knob": cell.knob.name,
        "value": int(cell.value) if cell.knob.integer else float(cell.value),
        "width": cell.width, "height": cell.height,
        "ref_width": cell.source.width, "ref_height": cell.source.height,
        "frames": frames, "fps": fps, "bytes": nbytes,
        "bitrate_kbps": bitrate_kbps(nbytes, frames, fps),
        "scores": scores, "model": model_name(scoring.model),
        "pipeline": description, "versions": versions(cell),
        "elapsed_s": elapsed, "renditions": renditions, "log": kept,
        "settings": {p: v for p, v in encoder_settings(cell)},
        "queue_frames": queue_frames,
    }
    if cell.shot is not None:
        row.update(shot=cell.shot, shot_start=cell.shot_start,
                   shot_frames=frames)
    return row
