"""vmafhip-tune's package (docs/tune.md).

- encoders: the per-encoder table (knobs, ranges, direction, parser,
  decoders) and the check against the installed plugins
- corpus: the JSON-lines row format (in its docstring), the append-only
  writer (flush + fsync per row), the reader that drops a cut-short last
  line, resume by cell key
- pipeline: one GStreamer pipeline per cell (source, tee, encoder,
  decoder, vmafhip), bytes counted by a pad probe, scores from the
  element's results log
- shots: the scene-cut detector for --per-shot
- sweep: cells run concurrently, progress, failures, the bisection
- cli: the subcommands corpus and recommend
"""
