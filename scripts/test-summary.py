#!/usr/bin/env python3
"""Counts from a meson testlog.json, then each failed test's name and the
end of its output: test-summary.py LOG [LABEL].

test.sh prints this again at its very end, so that whoever reads only the
tail of a CI log still sees what failed and why."""
import json
import sys

TAIL_LINES = 25

counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
failed = []
for line in open(sys.argv[1]):
    entry = json.loads(line)
    r = entry["result"]
    key = r if r in counts else ("OK" if r == "EXPECTEDFAIL" else "FAIL")
    counts[key] += 1
    if key == "FAIL":
        failed.append(entry)
label = sys.argv[2] if len(sys.argv) > 2 else "tests"
for entry in failed:
    print(f"--- {label}: {entry['name']} {entry['result']} "
          f"after {entry.get('duration', 0):.1f} s; its output's end:")
    out = (entry.get("stdout") or "") + (entry.get("stderr") or "")
    for text in out.splitlines()[-TAIL_LINES:]:
        print("    " + text)
print(f"{label}: {counts['OK']} passed, {counts['FAIL']} failed, "
      f"{counts['SKIP']} skipped")
