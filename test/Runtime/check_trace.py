"""Validates a runtime trace (Chrome trace-event JSON) and JSON Lines log."""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
spans = [e for e in events if e.get("ph") == "X"]
assert spans, "no spans"
for e in spans:
    assert e["name"].startswith("program "), e
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    assert e["args"]["simulated"] == (e["cat"] != "cpu"), e
    assert tracks[e["tid"]].startswith(e["cat"]), e
steps = {e["args"]["step"] for e in spans}
print(f"trace ok: {len(steps)} steps, {len(spans)} program spans, tracks "
      + ", ".join(tracks[t] for t in sorted(tracks)) + "; every ane span simulated")
lines = [json.loads(l) for l in open(sys.argv[2])]
programs = [l for l in lines if l["type"] == "program"]
step_lines = [l for l in lines if l["type"] == "step"]
assert len(programs) == len(spans), (len(programs), len(spans))
print(f"log ok: {len(programs)} program lines, {len(step_lines)} step lines")
