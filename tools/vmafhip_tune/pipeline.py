"""One GStreamer pipeline per grid cell (PyGObject, no main loop: each cell
pops its own bus in the thread that runs it).

    SOURCE ! tee name=t
      t. ! queue ! v.ref_sink                       (the reference, decoded once)
      t. ! queue ! videoscale ! video/x-raw,width=W,height=H
           ! ENCODER ! PARSER ! STREAM-CAPS [! tee name=es ! queue ! filesink]
           ! DECODER ! v.dist_sink
      vmafhip name=v scaler=bicubic results-filename=LOG ! fakesink

The element scales the smaller decoded picture back up to the reference's
size (on the GPU with backend=hip, else on the CPU).  A pad probe on the
parser's output counts the elementary stream's bytes; the pooled scores
are read from the element's results log (libvmaf's JSON, the numbers as
vmafhip-score prints them), so a row equals a vmafhip-score run of the same
encode.
"""

import json
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

from . import encoders  # noqa: E402
from .corpus import bitrate_kbps  # noqa: E402

Gst.init(None)

# Unbounded queues: an encoder's look-ahead holds dozens of frames while
# the reference branch waits at the element
QUEUE = "queue max-size-buffers=0 max-size-bytes=0 max-size-time=0"


class SourceError(Exception):
    """A source that cannot be read (exit status 2)."""


class CellError(Exception):
    """A cell whose pipeline failed (recorded; the sweep goes on)."""


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
    # decodebin reads y4m (y4mdec) and anything else a plugin decodes
    # the capsfilter takes the video stream (an audio one stays unlinked)
    return (f"filesrc location={quote(os.path.abspath(spec))} ! decodebin ! "
            "video/x-raw(ANY)")


def run_to_end(pipeline, stop=None, on_message=None):
    """Play PIPELINE to EOS; CellError on an error, Stopped on STOP."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    try:
        while True:
            if stop is not None and stop.is_set():
                raise Stopped()
            msg = bus.timed_pop_filtered(
                100 * Gst.MSECOND,
                Gst.MessageType.ERROR | Gst.MessageType.EOS
                | Gst.MessageType.ELEMENT)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.ERROR:
                err, debug = msg.parse_error()
                where = msg.src.get_name() if msg.src else "?"
                raise CellError(f"{where}: {err.message}"
                                + (f" ({debug})" if debug else ""))
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


def describe(cell, scoring, log_path, keep_path):
    """The cell's gst-launch description."""
    settings = " ".join(f"{p}={quote(v) if ' ' in v or '=' in v else v}"
                        for p, v in encoder_settings(cell))
    encode = (f"t. ! {QUEUE} ! videoscale ! "
              f"video/x-raw,width={cell.width},height={cell.height} ! "
              f"{cell.encoder.factory} {settings} ! "
              f"{cell.encoder.parser} ! "
              f"capsfilter name=parse caps={cell.encoder.stream_caps} ! ")
    if keep_path:
        encode += (f"tee name=es ! {QUEUE} ! filesink location={quote(keep_path)} "
                   f"es. ! {QUEUE} ! ")
    encode += f"{cell.decoder} ! v.dist_sink"
    element = (f"vmafhip name=v backend={scoring.backend} scaler=bicubic "
               f"model-filename={quote(scoring.model)} "
               f"results-filename={quote(log_path)} results-format=json "
               "! fakesink sync=false")
    return (f"{cell.source.launch} ! tee name=t "
            f"t. ! {QUEUE} ! v.ref_sink {encode} {element}")


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


def count_bytes(pipeline):
    """A counter of the bytes leaving the parser (the elementary stream, as
    a kept file holds it)."""
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

    pad = pipeline.get_by_name("parse").get_static_pad("src")
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


def run_cell(cell, scoring, stop=None):
    """Encode, decode and score CELL; its corpus row."""
    begin = time.monotonic()
    temp_log = None
    if scoring.keep_logs:
        log_path = os.path.join(scoring.keep_logs, safe_name(cell.key) + ".json")
    else:
        fd, temp_log = tempfile.mkstemp(prefix="vmafhip-tune-", suffix=".json")
        os.close(fd)
        log_path = temp_log
    keep_path = None
    if scoring.keep_encodes:
        keep_path = os.path.join(scoring.keep_encodes, safe_name(cell.key)
                                 + "." + cell.encoder.extension)
    description = describe(cell, scoring, log_path, keep_path)
    try:
        try:
            pipeline = Gst.parse_launch(description)
        except GLib.Error as e:
            raise CellError(f"pipeline: {e.message}")
        if cell.shot is not None:
            cut_to_shot(pipeline, cell.shot_start, cell.shot_frames)
        nbytes = count_bytes(pipeline)
        run_to_end(pipeline, stop)
        try:
            log, scores = read_log(log_path)
        except (OSError, ValueError) as e:
            raise CellError(f"results log {log_path}: {e}")
        frames = len(log.get("frames", []))
        if frames == 0 or "vmaf" not in scores:
            raise CellError("no frame was scored")
    except CellError as e:
        e.pipeline = description
        raise
    finally:
        if temp_log and os.path.exists(temp_log):
            os.unlink(temp_log)
    fps = cell.source.fps
    row = {
        "cell": cell.key, "source": cell.source.spec,
        "encoder": cell.encoder.factory, "knob": cell.knob.name,
        "value": int(cell.value) if cell.knob.integer else float(cell.value),
        "width": cell.width, "height": cell.height,
        "ref_width": cell.source.width, "ref_height": cell.source.height,
        "frames": frames, "fps": fps, "bytes": nbytes[0],
        "bitrate_kbps": bitrate_kbps(nbytes[0], frames, fps),
        "scores": scores, "model": model_name(scoring.model),
        "pipeline": description, "versions": versions(cell),
        "elapsed_s": round(time.monotonic() - begin, 3),
        "log": None if temp_log else log_path,
        "settings": {p: v for p, v in encoder_settings(cell)},
    }
    if cell.shot is not None:
        row.update(shot=cell.shot, shot_start=cell.shot_start,
                   shot_frames=frames)
    return row
