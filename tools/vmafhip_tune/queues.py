"""The queues of a shared pipeline, bounded in frames (pipeline.py).

A title read from the page cache outruns the encoders, so unbounded
queues would hold the whole title.  Bounded ones can deadlock instead:
the reference waits at the element for each rendition of its frame,
and an encoder returns frame k only after it has taken frame k + D (its
look-ahead, B-frames and frame threads: D is dozens of frames for x264's
slower presets, more on many cores).  Once a queue after the tee is full the
tee pushes nothing more, so a branch whose encoder needs more input than
that lets through never returns the frame the element waits for.

Every queue after the tee therefore starts at `start` frames, and those
that are full double while a branch is starved: its queue empty (its
encoder has taken everything) and fewer frames out of its decoder than
the reference has brought to the element (which holds the newest of
those at its pad until this branch's frame of it comes).  One of the full
queues blocks the tee: the reference's, or that of a branch ahead of the
others, whose decoder waits at the element.  A slow encoder has frames
queued and an encoder ahead has returned more frames, so neither grows
anything by itself: the bounds end within twice the largest encoder's
delay.
"""

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

# The reference queue's first bound, and the most it may grow to (an
# encoder holding more frames than this is named as the cell's failure)
START_FRAMES = 64
MAX_FRAMES = 8192


def queue_description(frames):
    """A queue bounded to FRAMES buffers (no byte or time limit)."""
    return (f"queue max-size-buffers={frames} max-size-bytes=0 "
            "max-size-time=0")


class QueueTooSmall(Exception):
    """An encoder held more frames than MAX_FRAMES; INDEX: its branch."""

    def __init__(self, message, index):
        super().__init__(message)
        self.index = index


def count_buffers(pad):
    """A counter of the buffers leaving PAD (a list, read without a lock:
    one writer, and a stale value only delays a check by a tick)."""
    total = [0]

    def probe(pad, info):
        if info.type & Gst.PadProbeType.BUFFER_LIST:
            total[0] += info.get_buffer_list().length()
        else:
            total[0] += 1
        return Gst.PadProbeReturn.OK

    pad.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST,
                  probe)
    return total


class TeeQueues:
    """The queues after PIPELINE's tee `t` (the reference's `refq`, each
    branch's q<i>), grown while a branch is starved behind a full one;
    check() from the thread that runs the pipeline, every tenth of a
    second or so.  Frames are counted where they enter the element `v`
    (PADS[i]: branch i's pad), whatever decoder returned them."""

    def __init__(self, pipeline, pads, start=START_FRAMES, limit=MAX_FRAMES):
        self.start = start
        self.limit = limit
        element = pipeline.get_by_name("v")
        self.left = count_buffers(element.get_static_pad("ref_sink"))
        self.branches = [
            (pipeline.get_by_name(f"q{i}"),
             count_buffers(element.get_static_pad(pad)))
            for i, pad in enumerate(pads)]
        # every queue the tee pushes into, with its bound
        self.bounds = {queue: start for queue in
                       [pipeline.get_by_name("refq")]
                       + [queue for queue, _ in self.branches]}

    @property
    def frames(self):
        """The largest bound now."""
        return max(self.bounds.values())

    def starved(self):
        """The index of a branch starved (its queue empty, the element
        holding a reference frame it has not returned), or None."""
        left = self.left[0]
        for index, (queue, arrived) in enumerate(self.branches):
            if arrived[0] < left and \
                    queue.get_property("current-level-buffers") == 0:
                return index
        return None

    def check(self):
        """Double every full queue while a branch is starved (one of them
        blocks the tee); QueueTooSmall past the limit."""
        index = self.starved()
        if index is None:
            return
        for queue, bound in self.bounds.items():
            if queue.get_property("current-level-buffers") < bound:
                continue
            if bound * 2 > self.limit:
                raise QueueTooSmall(
                    f"enc{index} held more than {self.limit} frames "
                    "before returning one (its look-ahead and threads): "
                    "lower them (--set rc-lookahead=40 threads=8 for "
                    "x264enc)", index)
            self.bounds[queue] = bound * 2
            queue.set_property("max-size-buffers", bound * 2)
