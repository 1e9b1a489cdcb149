#!/usr/bin/env python3
"""Reads vmafhip's per-frame scores from Python, two ways: the custom meta
on each buffer leaving the element (a pad probe), and the "VMAF" bus
messages. Content: videotestsrc as the reference, an x264 round trip as the
distorted copy (needs gstreamer1.0-plugins-ugly and -libav), or, with
--no-encoder, a videoconvert copy.

    GST_PLUGIN_PATH=build/gst/vmafhip python3 docs/examples/vmafhip-meta.py

Exits non-zero if a buffer lacks the meta or the meta and the frame message
of a frame disagree.
"""
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, Gst
except (ImportError, ValueError) as e:
    # 77: "skipped" for meson test
    print(f"PyGObject with GStreamer is missing ({e}): apt-get install "
          "python3-gi gir1.2-gstreamer-1.0", file=sys.stderr)
    sys.exit(77)

N_FRAMES = 30


def main():
    Gst.init(None)
    distort = ("videoconvert" if "--no-encoder" in sys.argv else
               "x264enc tune=zerolatency bitrate=200 ! avdec_h264")
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={N_FRAMES} pattern=ball ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! "
        "tee name=t t. ! queue ! v.ref_sink "
        f"t. ! queue ! {distort} ! v.dist_sink "
        "vmafhip name=v backend=cpu frame-message=true ! fakesink name=out")

    from_meta, from_messages = {}, {}

    def on_buffer(pad, info):
        meta = info.get_buffer().get_custom_meta("GstVmafHipMeta")
        if meta is None:
            print("a buffer has no GstVmafHipMeta", file=sys.stderr)
            sys.exit(1)
        s = meta.get_structure()
        index = s.get_value("index")
        if index >= 0:
            from_meta[index] = s.get_value("vmaf")
        return Gst.PadProbeReturn.OK

    sink_pad = pipeline.get_by_name("out").get_static_pad("sink")
    sink_pad.add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    loop = GLib.MainLoop()
    failed = []

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() == "VMAF" and s.get_value("type") == "frame":
                from_messages[s.get_value("index")] = s.get_value("score")
            elif s.get_name() == "VMAF":
                print(f"pooled over {s.get_value('n-frames')} frames: "
                      f"vmaf {s.get_value('vmaf'):.3f}")
        elif msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            failed.append(err.message)
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)

    if failed:
        print("error:", failed[0], file=sys.stderr)
        return 1
    for index in sorted(from_meta):
        print(f"frame {index}: vmaf {from_meta[index]:.3f}")
    if not from_meta or from_meta != from_messages:
        print(f"meta ({len(from_meta)} frames) and messages "
              f"({len(from_messages)} frames) disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
