#!/usr/bin/env python3
"""vmafhip-monitor: a live quality probe on the vmafhip element.

Runs a pipeline with a vmafhip element named "v", sets its monitoring
properties (rolling window, alarms, intervals), and prints one status
line per window and every alarm as it comes.  --jsonl keeps every vmafhip
message (frames, windows, intervals, alarms, the pooled scores) as JSON
lines for vmafhip-plot.

Without --pipeline it runs a demo: a live videotestsrc through x264 whose
bitrate drops for a few seconds, so an alarm is raised and cleared.

  vmafhip-monitor.py --window 2 --alarm-threshold 80 --jsonl run.jsonl
  vmafhip-plot.py run.jsonl -o run.svg

Needs PyGObject and GStreamer's introspection data (Debian: python3-gi,
gir1.2-gstreamer-1.0) and the vmafhip plugin on GST_PLUGIN_PATH.
"""
import argparse
import json
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

DEMO = (
    "videotestsrc is-live=true pattern=zone-plate kx2=20 ky2=20 kt=1 "
    "num-buffers={frames} "
    "! video/x-raw,width=320,height=240,framerate=25/1,format=I420 "
    "! tee name=t t. ! queue ! v.ref_sink "
    "t. ! queue ! x264enc name=enc tune=zerolatency speed-preset=ultrafast "
    "bitrate=1500 ! avdec_h264 ! v.dist_sink "
    "vmafhip name=v ! fakesink"
)


def seconds(value):
    """Seconds (a float) as nanoseconds."""
    return int(round(float(value) * Gst.SECOND))


def structure_dict(s):
    """A GstStructure's fields as plain Python values."""
    out = {"name": s.get_name()}
    for i in range(s.n_fields()):
        name = s.nth_field_name(i)
        value = s.get_value(name)
        if isinstance(value, (int, float, str, bool)):
            out[name] = value
    return out


def status_line(d, alarmed):
    t = d["running-time"] / Gst.SECOND
    end = t + d["duration"] / Gst.SECOND
    model = next((k[:-5] for k in d if k.endswith("-mean")), "score")
    line = (f"{t:7.2f}-{end:7.2f} s  {model}: mean {d[model + '-mean']:6.2f}"
            f"  min {d[model + '-min']:6.2f}  p5 {d[model + '-p5']:6.2f}"
            f"  harmonic {d[model + '-harmonic-mean']:6.2f}"
            f"  ({d['n-frames']} frames)")
    return line + ("  ALARM" if alarmed else "")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pipeline", help="gst-launch description with a "
                   "vmafhip element named v (default: the demo)")
    p.add_argument("--frames", type=int, default=400,
                   help="frames of the demo (default 400: 16 s)")
    p.add_argument("--window", type=float, default=2.0,
                   help="window in seconds (default 2)")
    p.add_argument("--window-interval", type=float, default=1.0,
                   help="seconds between window lines (default 1)")
    p.add_argument("--alarm-threshold", type=float, default=-1,
                   help="alarm below this windowed score (default: none; "
                   "the demo: 75)")
    p.add_argument("--alarm-duration", type=float, default=2.0,
                   help="seconds below the threshold before the alarm")
    p.add_argument("--alarm-hysteresis", type=float, default=2.0)
    p.add_argument("--interval", type=float, default=0,
                   help="pooled interval in seconds (default: none)")
    p.add_argument("--jsonl", help="write every vmafhip message here")
    args = p.parse_args(argv)

    Gst.init(None)
    demo = args.pipeline is None
    pipeline = Gst.parse_launch(args.pipeline
                                or DEMO.format(frames=args.frames))
    v = pipeline.get_by_name("v")
    if v is None:
        sys.exit("vmafhip-monitor: the pipeline has no element named v")
    threshold = args.alarm_threshold
    if demo and threshold < 0:
        threshold = 75.0
    v.set_property("window", seconds(args.window))
    v.set_property("window-interval", seconds(args.window_interval))
    v.set_property("alarm-threshold", threshold)
    v.set_property("alarm-duration", seconds(args.alarm_duration))
    v.set_property("alarm-hysteresis", args.alarm_hysteresis)
    v.set_property("interval", seconds(args.interval))
    if args.jsonl:
        v.set_property("frame-message", True)   # the plot's per-frame line

    out = open(args.jsonl, "w") if args.jsonl else None
    if out:
        json.dump({"name": "vmafhip-monitor", "window": args.window,
                   "alarm-threshold": threshold,
                   "interval": args.interval}, out)
        out.write("\n")
    loop = GLib.MainLoop()
    state = {"alarmed": False, "status": 0}

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT and msg.src == v:
            d = structure_dict(msg.get_structure())
            if out:
                json.dump(d, out)
                out.write("\n")
            if d["name"] == "vmafhip-alarm":
                state["alarmed"] = d["state"] == "raised"
                t = d["running-time"] / Gst.SECOND
                print(f"*** alarm {d['state']}: {d['model']} "
                      f"windowed {d['windowed-score']:.2f} (threshold "
                      f"{d['threshold']:g}) since {t:.2f} s; worst frame "
                      f"{d['worst-index']} at "
                      f"{d['worst-running-time'] / Gst.SECOND:.2f} s: "
                      f"{d['worst-score']:.2f}", flush=True)
            elif d.get("type") == "window":
                print(status_line(d, state["alarmed"]), flush=True)
            elif d.get("type") == "interval":
                t = d["running-time"] / Gst.SECOND
                print(f"interval {t:.2f} s: mean {d['score']:.2f} "
                      f"({d['n-frames']} frames)", flush=True)
            elif d.get("type") == "pooled":
                print(f"pooled over {d['n-frames']} frames: "
                      f"{d.get('score', float('nan')):.2f}", flush=True)
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"error: {err.message}", file=sys.stderr)
            state["status"] = 1
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)

    enc = pipeline.get_by_name("enc") if demo else None
    if enc is not None:
        # the demo's network trouble: a bitrate drop from 6 s to 10 s
        GLib.timeout_add(6000, lambda: enc.set_property("bitrate", 40)
                         or False)
        GLib.timeout_add(10000, lambda: enc.set_property("bitrate", 1500)
                         or False)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    finally:
        pipeline.set_state(Gst.State.NULL)
        if out:
            out.close()
    return state["status"]


if __name__ == "__main__":
    sys.exit(main())
