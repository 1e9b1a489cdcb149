#!/usr/bin/env python3
"""One line of counts from a meson testlog.json: test-summary.py LOG [LABEL]."""
import json
import sys

counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = r if r in counts else ("OK" if r == "EXPECTEDFAIL" else "FAIL")
    counts[key] += 1
label = sys.argv[2] if len(sys.argv) > 2 else "tests"
print(f"{label}: {counts['OK']} passed, {counts['FAIL']} failed, "
      f"{counts['SKIP']} skipped")
