#!/usr/bin/python3
"""validate_manifests.py SCHEMA [--rejects BAD.json] FILE... -- every sample must
validate against the published JSON Schema (after removing the comments and
trailing commas toolgate accepts), and a broken one must not."""
import json
import re
import sys

import jsonschema


def strip_jsonc(text):
    """Removes // and /* */ comments outside strings, then trailing commas."""
    out, i, in_str = [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        else:
            out.append(c)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


args = sys.argv[1:]
# --rejects FILE: a JSON array of documents the schema must refuse (the
# default: manifests toolgate refuses).
rejects = None
if len(args) > 2 and args[1] == "--rejects":
    rejects = json.load(open(args[2]))
    args = [args[0]] + args[3:]
schema = json.load(open(args[0]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = 0
for path in args[1:]:
    doc = json.loads(strip_jsonc(open(path).read()))
    errors = list(validator.iter_errors(doc))
    for e in errors:
        print(f"FAIL {path}: {e.json_path}: {e.message}")
    failed += bool(errors)
    if not errors:
        print(f"ok   {path}")
# The schema must reject what toolgate rejects.
if rejects is None:
    rejects = [{"plugins": []}, {"toolgate": 1, "plugin": []},
               {"toolgate": 1, "plugins": [{"id": "Bad Id", "path": "x.so"}]},
               {"toolgate": 1, "plugins": [{"id": "a", "path": "x.so", "hooks": {"h": {"mode": "audit"}}}]}]
for bad in rejects:
    if validator.is_valid(bad):
        print(f"FAIL schema accepts {bad}")
        failed += 1
sys.exit(1 if failed else 0)
