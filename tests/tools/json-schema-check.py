#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every JSON document the programs write, against its schema in docs/schemas/.

usage: json-schema-check.py FILE...
       json-schema-check.py --programs BINDIR TRACE_DIR

A document names its schema ("schema": "evtrace.NAME/VERSION"): the check
loads docs/schemas/evtrace.NAME.json, whose $id must be that very name and
version, and validates the document against it (JSON Schema 2020-12,
python3-jsonschema). A file of several lines holds one document a line.

--programs: runs the programs in BINDIR on TRACE_DIR (a kernel-mode
evsynth trace) and checks what they write: evstat --json, evcat --stats
--format json, then evsynth --chunks into a directory of its own, each
chunk's summary.json and evcat --stats on the run. evctl status --json and
evdrain's documents (--stats-json, a rotating run's summary.json) need the
module: the unit test of evctl's printer and the VM tests (netlink-status,
evdrain-basic, rotate) check those with this script.
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = os.path.join(TOP, "docs", "schemas")
_loaded = {}


def fail(msg):
    print("json-schema-check: " + msg, file=sys.stderr)
    sys.exit(1)


def validator(name):
    if name not in _loaded:
        base = name.split("/")[0]
        path = os.path.join(SCHEMAS, base + ".json")
        if "/" not in name or not os.path.exists(path):
            fail("%r: no schema %s" % (name, path))
        schema = json.load(open(path))
        jsonschema.Draft202012Validator.check_schema(schema)
        if schema.get("$id") != name:
            fail("%s is %r, the document says %r: the version moved without its schema" % (path, schema.get("$id"), name))
        _loaded[name] = jsonschema.Draft202012Validator(schema)
    return _loaded[name]


def check_text(what, text, want=None):
    """Each line of @text (or the whole, when it is one indented document) against its schema."""
    docs = []
    try:
        docs = [json.loads(text)]
    except ValueError:
        for n, line in enumerate(text.splitlines(), 1):
            try:
                docs.append(json.loads(line))
            except ValueError as e:
                fail("%s line %d: not JSON: %s" % (what, n, e))
    if not docs:
        fail("%s: empty" % what)
    for d in docs:
        if not isinstance(d, dict) or not isinstance(d.get("schema"), str):
            fail("%s: no \"schema\" member: %.200s" % (what, json.dumps(d)))
        if want and not d["schema"].startswith(want + "/"):
            fail("%s: schema %s, expected %s" % (what, d["schema"], want))
        if list(d)[0] != "schema":
            fail("%s: \"schema\" is not the first member" % what)
        errs = sorted(validator(d["schema"]).iter_errors(d), key=lambda e: list(e.absolute_path))
        if errs:
            fail("%s: not %s:\n%s" % (what, d["schema"], "\n".join(
                "  at /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:300]) for e in errs[:10])))
    return docs


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")[:500]))
    return p.stdout.decode()


def programs(bindir, trace):
    b = lambda name: os.path.join(bindir, name)
    seen = set()
    seen.update(d["schema"] for d in check_text("evstat --json", run([b("evstat"), "--json", trace]), "evtrace.stats"))
    seen.update(d["schema"] for d in check_text("evcat --stats --format json",
                                                run([b("evcat"), trace, "--stats", "--format", "json"]),
                                                "evtrace.cat-stats"))
    with tempfile.TemporaryDirectory(prefix="evt-schema-") as tmp:
        run_dir = os.path.join(tmp, "run")
        run([b("evsynth"), run_dir, "--chunks", "3", "--events", "3000", "--cpus", "2", "--quiet"])
        chunks = sorted(c for c in os.listdir(run_dir) if not c.startswith("."))
        if len(chunks) != 3:
            fail("evsynth --chunks 3 wrote %s" % chunks)
        for c in chunks:
            with open(os.path.join(run_dir, c, "summary.json")) as f:
                seen.update(d["schema"] for d in check_text(c + "/summary.json", f.read(), "evtrace.chunk-summary"))
        docs = check_text("evcat --stats on a run", run([b("evcat"), run_dir, "--stats", "--format", "json"]),
                          "evtrace.cat-stats")
        if len(docs[0].get("chunks", [])) != 3:
            fail("evcat --stats on a run of 3 chunks: no chunks member: %.300s" % json.dumps(docs[0]))
    print("json-schema-check: %s valid" % ", ".join(sorted(seen)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--programs":
        programs(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        fail(__doc__.strip().splitlines()[2])
    for path in sys.argv[1:]:
        with open(path) as f:
            docs = check_text(path, f.read())
        print("json-schema-check: %s: %s valid" % (path, ", ".join(sorted(set(d["schema"] for d in docs)))))


main()
