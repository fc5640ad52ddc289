#!/usr/bin/env python3
"""check_rust_bindings.py HEADER LIB_RS RUSTC CC WORKDIR

The Rust bindings (sdk/rust/toolgate-sys) say what toolgate.h says: read the
header's constants, struct fields and callback typedefs, generate a C
program and a Rust program that print every constant's value, every
struct's size and every field's offset, build both (the C one with the C
compiler, the Rust one with rustc against the bindings) and compare.  A
name missing from the bindings fails the Rust build; a value, size or
offset that differs is listed.  Exit status 0 only when all agree.
"""
import re
import subprocess
import sys
from pathlib import Path


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def parse_header(text):
    constants = []
    for m in re.finditer(r"^#define\s+((?:TG|TOOLGATE_ABI)_\w+)\s+(0x[0-9A-Fa-f]+|\d+)u?\b",
                         text, flags=re.M):
        constants.append((m.group(1), int(m.group(2), 0)))
    code = strip_comments(text)
    structs = {}
    for m in re.finditer(r"(?:typedef\s+)?struct\s+(tg_\w+)\s*\{(.*?)\}\s*\w*\s*;", code, flags=re.S):
        body = "\n".join(l for l in m.group(2).splitlines() if not l.strip().startswith("#"))
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            name = fp.group(1) if fp else re.findall(r"\w+", decl)[-1]
            fields.append(name)
        structs[m.group(1)] = fields
    callbacks = re.findall(r"typedef\s+[^;]*?\(\s*\*\s*(tg_\w+)\s*\)", code)
    return constants, structs, callbacks


def rust_field(name):
    return "r#type" if name == "type" else name


def main():
    header, lib_rs, rustc, cc, work = sys.argv[1:6]
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    constants, structs, callbacks = parse_header(Path(header).read_text())
    if len(structs) < 6 or len(constants) < 30:
        sys.exit(f"FAIL: parsed only {len(structs)} structs and {len(constants)} constants "
                 f"from {header}; the parser no longer understands the header")

    c = ["#include <stddef.h>", "#include <stdio.h>", f'#include "{Path(header).resolve()}"',
         "int main(void) {"]
    rs = ["#![allow(unused_imports)]", "use std::mem::{size_of, MaybeUninit};",
          "use toolgate_sys::*;", "fn main() {"]
    for name, _ in constants:
        c.append(f'  printf("const {name} %lld\\n", (long long)({name}));')
        rs.append(f'  println!("const {name} {{}}", {name} as i64);')
    for s, fields in structs.items():
        c.append(f'  printf("size {s} %zu\\n", sizeof(struct {s}));')
        rs.append(f'  println!("size {s} {{}}", size_of::<{s}>());')
        for f in fields:
            c.append(f'  printf("offset {s}.{f} %zu\\n", offsetof(struct {s}, {f}));')
            rs.append("  { let u = MaybeUninit::<%s>::uninit(); let b = u.as_ptr() as usize;"
                      " let f = unsafe { std::ptr::addr_of!((*u.as_ptr()).%s) } as usize;"
                      ' println!("offset %s.%s {}", f - b); }' % (s, rust_field(f), s, f))
    for cb in callbacks:
        rs.append(f"  let _: {cb} = None;  // the callback type exists, nullable")
    c += ["  return 0;", "}"]
    rs += ["}"]
    (work / "layout.c").write_text("\n".join(c) + "\n")
    (work / "layout.rs").write_text("\n".join(rs) + "\n")

    def run(cmd):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"FAIL: {' '.join(map(str, cmd))}\n{p.stdout}{p.stderr}")
        return p.stdout

    run([cc, "-std=c99", "-Wall", "-Werror", "-o", work / "layout_c", work / "layout.c"])
    run([rustc, "--edition", "2018", "--crate-type", "rlib", "--crate-name", "toolgate_sys",
         "-o", work / "libtoolgate_sys.rlib", lib_rs])
    run([rustc, "--edition", "2018", "-o", work / "layout_rs", "--extern",
         f"toolgate_sys={work / 'libtoolgate_sys.rlib'}", work / "layout.rs"])
    want = run([work / "layout_c"]).splitlines()
    got = run([work / "layout_rs"]).splitlines()
    diffs = [f"  header: {w}\n  rust:   {g}" for w, g in zip(want, got) if w != g]
    if diffs or len(want) != len(got):
        print("FAIL: the Rust bindings disagree with the header:\n" + "\n".join(diffs))
        sys.exit(1)
    print(f"ok: {len(constants)} constants, {len(structs)} structs "
          f"({sum(len(f) for f in structs.values())} fields), {len(callbacks)} callback types agree")


if __name__ == "__main__":
    main()
