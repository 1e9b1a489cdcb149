"""Scene cuts of the reference, for --per-shot.

The detector: every frame's luma is scaled to 64x36 (GStreamer's
videoscale, area filter, no borders); the difference of frame i is the
mean absolute difference of its samples from frame i-1's, in 8-bit units
(0-255).  Frame i starts a new shot where that difference is at least
THRESHOLD (default 20: a cut between two unrelated pictures is typically
40-100, motion within one shot 1-10) and the shot before it has at least
MIN_FRAMES frames (default 4), so a flash or a fast pan does not make a
run of one-frame shots.  Simple and predictable; a dissolve (a gradual
transition) is not cut.
"""

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
# GstApp: the appsink gets its try_pull_sample method
from gi.repository import GLib, Gst, GstApp  # noqa: E402,F401

from .pipeline import CellError, SourceError, source_launch  # noqa: E402

THUMB_WIDTH, THUMB_HEIGHT = 64, 36
DEFAULT_THRESHOLD = 20.0
DEFAULT_MIN_FRAMES = 4


def luma_thumbnails(spec):
    """Every frame of SPEC as a 64x36 8-bit luma array."""
    import numpy    # here, not at the top: corpus runs without numpy
    launch = (f"{source_launch(spec)} ! videoconvert ! videoscale "
              "add-borders=false method=bilinear ! "
              f"video/x-raw,format=GRAY8,width={THUMB_WIDTH},"
              f"height={THUMB_HEIGHT},pixel-aspect-ratio=1/1 ! "
              "appsink name=thumbs sync=false max-buffers=8")
    try:
        pipeline = Gst.parse_launch(launch)
    except GLib.Error as e:
        raise SourceError(f"{spec}: {e.message}")
    sink = pipeline.get_by_name("thumbs")
    pipeline.set_state(Gst.State.PLAYING)
    frames = []
    try:
        while True:
            sample = sink.try_pull_sample(30 * Gst.SECOND)
            if sample is None:
                break
            buf = sample.get_buffer()
            ok, info = buf.map(Gst.MapFlags.READ)
            if not ok:
                raise CellError("cannot read a thumbnail buffer")
            try:
                # rows are padded to 4 bytes; 64 is a multiple of 4
                plane = numpy.frombuffer(info.data, dtype=numpy.uint8,
                                         count=THUMB_WIDTH * THUMB_HEIGHT)
                frames.append(plane.reshape(THUMB_HEIGHT, THUMB_WIDTH).copy())
            finally:
                buf.unmap(info)
        msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if msg is not None:
            err, _ = msg.parse_error()
            raise SourceError(f"{spec}: {err.message}")
    finally:
        pipeline.set_state(Gst.State.NULL)
    return frames


def differences(frames):
    """Mean absolute luma difference of each frame from the one before
    (frame 0: 0)."""
    import numpy
    out = [0.0]
    for before, now in zip(frames, frames[1:]):
        out.append(float(numpy.mean(numpy.abs(now.astype(numpy.int16)
                                              - before.astype(numpy.int16)))))
    return out


def cuts(diffs, threshold=DEFAULT_THRESHOLD, min_frames=DEFAULT_MIN_FRAMES):
    """The frames that start a shot (0 always), from DIFFS."""
    starts = [0]
    for i in range(1, len(diffs)):
        if diffs[i] >= threshold and i - starts[-1] >= min_frames:
            starts.append(i)
    return starts


def shots(starts, total):
    """(first frame, frame count) of each shot."""
    ends = starts[1:] + [total]
    return [(s, e - s) for s, e in zip(starts, ends)]


def detect(spec, threshold=DEFAULT_THRESHOLD, min_frames=DEFAULT_MIN_FRAMES):
    """SPEC's shots as (first frame, frame count) pairs."""
    frames = luma_thumbnails(spec)
    if not frames:
        raise SourceError(f"{spec}: no frames")
    return shots(cuts(differences(frames), threshold, min_frames), len(frames))
