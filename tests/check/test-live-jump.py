#!/usr/bin/python3
"""vmafhip in a live pipeline whose distorted feed jumps in time (issue 33).

Two live appsrc feeds of the same synthetic video, the distorted one
through videobalance. At frame 50 the distorted feed's timestamps jump 14
frames ahead (DISCONT), as a restarted live source's do:
  - align=off: a warning names dist_sink and the jump; the run goes on to
    EOS with its pooled message and a results file that parses;
  - align=auto: the lock is lost at the jump and found again at the new
    lag (vmafhip-sync "locked", "lost", "locked" +25 frames).

Usage: test-live-jump.py (GST_PLUGIN_PATH names the built plugin)
"""
import json
import os
import random
import sys
import tempfile
import threading

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

W, H, FPS, N, JUMP_AT, JUMP = 64, 36, 25, 125, 50, 14
CAPS = f"video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1"
FRAME = Gst.SECOND // FPS


def frame_bytes(i):
    """Frame i's I420 planes: smooth blocks that change every frame, so
    that one lag matches clearly."""
    rnd = random.Random(i)
    blocks = [rnd.randrange(32, 224) for _ in range((W // 8) * (H // 4))]
    y = bytes(blocks[(row // 4) * (W // 8) + x // 8]
              for row in range(H) for x in range(W))
    c = bytes([128]) * (W // 2 * H // 2 * 2)
    return y + c


def run(props, results):
    desc = (f"appsrc name=r is-live=true format=time caps={CAPS} ! "
            "queue max-size-time=4000000000 max-size-buffers=0 ! v.ref_sink "
            f"appsrc name=d is-live=true format=time caps={CAPS} ! "
            "videobalance saturation=0.5 brightness=0.02 ! "
            "queue max-size-time=4000000000 max-size-buffers=0 ! v.dist_sink "
            # latency: 2 s of slack for a first frame that comes late (the
            # feeds push 5 s of frames at once; a start slowed by the
            # sanitizers must not time the first pairs out)
            f"vmafhip name=v backend=cpu threads=1 latency=2000000000 "
            f"results-filename={results} "
            f"{props} ! fakesink sync=false")
    pipe = Gst.parse_launch(desc)
    messages = []
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)

    def feed(name, shift_after):
        src = pipe.get_by_name(name)
        for i in range(N):
            buf = Gst.Buffer.new_wrapped(frame_bytes(i))
            shift = JUMP * FRAME if shift_after and i >= JUMP_AT else 0
            buf.pts = i * FRAME + shift
            buf.duration = FRAME
            if shift_after and i == JUMP_AT:
                buf.set_flags(Gst.BufferFlags.DISCONT)
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")

    threads = [threading.Thread(target=feed, args=("r", False)),
               threading.Thread(target=feed, args=("d", True))]
    for t in threads:
        t.start()
    while True:
        msg = bus.timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ANY)
        assert msg is not None, "no EOS within 30 s"
        messages.append(msg)
        if msg.type == Gst.MessageType.EOS:
            break
        if msg.type == Gst.MessageType.ERROR:
            raise AssertionError(msg.parse_error()[0].message)
    for t in threads:
        t.join()
    pipe.set_state(Gst.State.NULL)
    return messages


def structures(messages, name):
    out = []
    for m in messages:
        s = m.get_structure()
        if m.type == Gst.MessageType.ELEMENT and s and s.get_name() == name:
            out.append(s)
    return out


def check_results(path):
    with open(path) as f:
        data = json.load(f)
    assert data["frames"] and data["pooled_metrics"], path
    return data


def main():
    Gst.init(None)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "off.json")
        msgs = run("", path)
        warnings = [m.parse_warning()[0].message for m in msgs
                    if m.type == Gst.MessageType.WARNING]
        jumps = [w for w in warnings if "dist_sink jumped by +0:00:00.56" in w]
        assert len(jumps) == 1, warnings
        pooled = [s for s in structures(msgs, "VMAF")
                  if s.get_string("type") == "pooled"]
        assert len(pooled) == 1, "no pooled message"
        data = check_results(path)
        print(f"align=off: warned once ({jumps[0][:60]}...), "
              f"{len(data['frames'])} frames scored")

        path = os.path.join(tmp, "auto.json")
        msgs = run("align=auto search-window=600000000", path)
        syncs = [(s.get_string("state"), s.get_int("offset-frames")[1])
                 for s in structures(msgs, "vmafhip-sync")]
        assert syncs == [("locked", 0), ("lost", 0), ("locked", JUMP)], syncs
        data = check_results(path)
        print(f"align=auto: {syncs}, {len(data['frames'])} frames scored")
    return 0


if __name__ == "__main__":
    GLib.set_prgname("test-live-jump")
    sys.exit(main())
