#!/usr/bin/env python3
"""The public API of crate `kmst`, one item a line, against its snapshot.

Builds the crate's rustdoc JSON (nightly rustdoc, `-Z unstable-options
--output-format json`; the default features), walks every public item from the
crate root (modules, re-exports, types with their public fields, variants,
inherent methods and constants, trait implementations, functions, constants,
traits, macros) and writes one line per item with its signature, sorted.

    scripts/public-api.py            compare with interp/tests/public-api.txt;
                                     exit 1 with a diff when they differ
    UPDATE_API=1 scripts/public-api.py   (or --update) rewrite the snapshot

A change to the public API is made on purpose: update the snapshot in the
same commit, and note it in CHANGELOG.md (the versioning policy there says
which changes need a new minor or major version).
"""

import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "interp" / "tests" / "public-api.txt"
CRATE = "kmst"


def build_json() -> dict:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(
        ["cargo", "rustdoc", "-q", "-p", CRATE, "--lib", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True)
    return json.loads((target / "doc" / f"{CRATE}.json").read_text())


class Api:
    def __init__(self, doc: dict):
        self.index = doc["index"]
        self.paths = doc["paths"]
        self.root = str(doc["root"])
        self.lines: set[str] = set()
        self.seen: set[str] = set()
        # Where each item was first listed, and the re-exports of local items
        # (resolved after the walk: a path to the listed item, or the item
        # listed here when its own module is private).
        self.walked: dict[str, str] = {}
        self.uses: list[tuple[str, str, str]] = []

    # --- types -----------------------------------------------------------
    def path_of(self, id_, given: str) -> str:
        p = self.paths.get(str(id_)) if id_ is not None else None
        return "::".join(p["path"]) if p else given

    def args(self, a) -> str:
        if not a:
            return ""
        if "angle_bracketed" in a:
            ab = a["angle_bracketed"]
            parts = []
            for g in ab["args"]:
                if "type" in g:
                    parts.append(self.ty(g["type"]))
                elif "lifetime" in g:
                    parts.append(g["lifetime"])
                elif "const" in g:
                    parts.append(str(g["const"].get("expr", "?")))
                else:
                    parts.append("_")
            for c in ab.get("constraints", []):
                b = c.get("binding", {})
                if "equality" in b:
                    eq = b["equality"]
                    parts.append(f"{c['name']} = {self.ty(eq['type']) if 'type' in eq else eq}")
                else:
                    parts.append(f"{c['name']}: {self.bounds(b.get('constraint', []))}")
            return f"<{', '.join(parts)}>" if parts else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            out = f" -> {self.ty(p['output'])}" if p.get("output") else ""
            return f"({', '.join(self.ty(t) for t in p['inputs'])}){out}"
        return "<?>"

    def bounds(self, bs) -> str:
        out = []
        for b in bs:
            if "trait_bound" in b:
                t = b["trait_bound"]["trait"]
                m = b["trait_bound"].get("modifier", "none")
                pre = "?" if m == "maybe" else ""
                out.append(pre + self.path_of(t.get("id"), t["path"]) + self.args(t.get("args")))
            elif "outlives" in b:
                out.append(b["outlives"])
            else:
                out.append(json.dumps(b, sort_keys=True))
        return " + ".join(out)

    def ty(self, t) -> str:
        (k, v), = t.items()
        if k in ("primitive", "generic"):
            return v
        if k == "resolved_path":
            return self.path_of(v.get("id"), v["path"]) + self.args(v.get("args"))
        if k == "borrowed_ref":
            lt = f"{v['lifetime']} " if v.get("lifetime") else ""
            return f"&{lt}{'mut ' if v['is_mutable'] else ''}{self.ty(v['type'])}"
        if k == "raw_pointer":
            return f"*{'mut' if v['is_mutable'] else 'const'} {self.ty(v['type'])}"
        if k == "slice":
            return f"[{self.ty(v)}]"
        if k == "array":
            return f"[{self.ty(v['type'])}; {v['len']}]"
        if k == "tuple":
            return f"({', '.join(self.ty(x) for x in v)}{',' if len(v) == 1 else ''})"
        if k == "impl_trait":
            return f"impl {self.bounds(v)}"
        if k == "dyn_trait":
            parts = [self.path_of(p["trait"].get("id"), p["trait"]["path"]) + self.args(p["trait"].get("args"))
                     for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return f"dyn {' + '.join(parts)}"
        if k == "function_pointer":
            sig = v["sig"]
            out = f" -> {self.ty(sig['output'])}" if sig.get("output") else ""
            return f"fn({', '.join(self.ty(x[1]) for x in sig['inputs'])}){out}"
        if k == "qualified_path":
            tr = v.get("trait")
            trs = f" as {self.path_of(tr.get('id'), tr['path'])}" if tr else ""
            return f"<{self.ty(v['self_type'])}{trs}>::{v['name']}"
        if k == "infer":
            return "_"
        return json.dumps(t, sort_keys=True)

    def generics(self, g) -> str:
        ps = []
        for p in g["params"]:
            kind = p["kind"]
            if "lifetime" in kind:
                ps.append(p["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                b = self.bounds(kind["type"]["bounds"])
                ps.append(p["name"] + (f": {b}" if b else ""))
            elif "const" in kind:
                ps.append(f"const {p['name']}: {self.ty(kind['const']['type'])}")
        out = f"<{', '.join(ps)}>" if ps else ""
        wh = []
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                bp = w["bound_predicate"]
                wh.append(f"{self.ty(bp['type'])}: {self.bounds(bp['bounds'])}")
            else:
                wh.append(json.dumps(w, sort_keys=True))
        return out + (f" where {', '.join(wh)}" if wh else "")

    def fn_sig(self, f) -> str:
        h = f["header"]
        quals = ("const " if h["is_const"] else "") + ("unsafe " if h["is_unsafe"] else "") + \
            ("async " if h["is_async"] else "")
        ins = []
        for name, t in f["sig"]["inputs"]:
            ins.append("self" if name == "self" and t == {"generic": "Self"} else
                       ("&self" if name == "self" and t == {"borrowed_ref": {"lifetime": None, "is_mutable": False, "type": {"generic": "Self"}}} else
                        ("&mut self" if name == "self" and t == {"borrowed_ref": {"lifetime": None, "is_mutable": True, "type": {"generic": "Self"}}} else
                         self.ty(t))))
        out = f" -> {self.ty(f['sig']['output'])}" if f["sig"].get("output") else ""
        return quals, f"({', '.join(ins)}){out}"

    # --- items -----------------------------------------------------------
    def emit(self, line: str):
        self.lines.add(line)

    def item(self, id_, path: str, name: str | None = None):
        it = self.index.get(str(id_))
        if it is None:
            return
        (kind, inner), = it["inner"].items()
        name = name or it["name"]
        here = f"{path}::{name}" if path else name
        if kind != "use":
            self.walked.setdefault(str(id_), here)
        if kind == "module":
            if str(id_) in self.seen:
                return
            self.seen.add(str(id_))
            if not inner["is_crate"]:
                self.emit(f"pub mod {here}")
            for c in inner["items"]:
                self.item(c, here)
        elif kind == "use":
            target = inner["source"]
            if inner.get("id") is not None and str(inner["id"]) in self.index and not inner["is_glob"]:
                self.uses.append((str(inner["id"]), path, inner["name"]))
                return
            if inner.get("id") is not None:
                target = self.path_of(inner["id"], target)
            if inner["is_glob"]:
                self.emit(f"pub use {path}::* = {target}::*")
            else:
                self.emit(f"pub use {path}::{inner['name']} = {target}")
        elif kind == "struct":
            k = inner["kind"]
            g = self.generics(inner["generics"])
            if k == "unit":
                self.emit(f"pub struct {here}{g};")
            elif "tuple" in k:
                fields = [self.ty(self.index[str(f)]["inner"]["struct_field"]) if f is not None else "_"
                          for f in k["tuple"]]
                self.emit(f"pub struct {here}{g}({', '.join(fields)})")
            else:
                st = k["plain"]
                self.emit(f"pub struct {here}{g}" + (" {{ .. }}" if st["has_stripped_fields"] else ""))
                for f in st["fields"]:
                    fi = self.index[str(f)]
                    self.emit(f"pub field {here}::{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            self.impls(inner["impls"], here)
        elif kind == "enum":
            self.emit(f"pub enum {here}{self.generics(inner['generics'])}"
                      + (" {{ .. }}" if inner.get("has_stripped_variants") else ""))
            for v in inner["variants"]:
                vi = self.index[str(v)]
                vk = vi["inner"]["variant"]["kind"]
                if vk == "plain":
                    self.emit(f"pub variant {here}::{vi['name']}")
                elif "tuple" in vk:
                    fs = [self.ty(self.index[str(f)]["inner"]["struct_field"]) if f is not None else "_"
                          for f in vk["tuple"]]
                    self.emit(f"pub variant {here}::{vi['name']}({', '.join(fs)})")
                else:
                    fs = [f"{self.index[str(f)]['name']}: {self.ty(self.index[str(f)]['inner']['struct_field'])}"
                          for f in vk["struct"]["fields"]]
                    self.emit(f"pub variant {here}::{vi['name']} {{ {', '.join(fs)} }}")
            self.impls(inner["impls"], here)
        elif kind == "function":
            quals, sig = self.fn_sig(inner)
            self.emit(f"pub {quals}fn {here}{self.generics(inner['generics'])}{sig}")
        elif kind == "constant":
            self.emit(f"pub const {here}: {self.ty(inner['type'])}")
        elif kind == "static":
            self.emit(f"pub static {here}: {self.ty(inner['type'])}")
        elif kind == "type_alias":
            self.emit(f"pub type {here}{self.generics(inner['generics'])} = {self.ty(inner['type'])}")
        elif kind == "trait":
            self.emit(f"pub {'unsafe ' if inner['is_unsafe'] else ''}trait {here}"
                      f"{self.generics(inner['generics'])}"
                      + (f": {self.bounds(inner['bounds'])}" if inner["bounds"] else ""))
            for m in inner["items"]:
                self.assoc(m, here, "trait ")
        elif kind == "macro":
            self.emit(f"pub macro {here}!")
        else:
            self.emit(f"pub {kind} {here}")

    def assoc(self, id_, owner: str, where: str):
        it = self.index[str(id_)]
        (kind, inner), = it["inner"].items()
        if where == "" and it.get("visibility") != "public":
            return
        here = f"{owner}::{it['name']}"
        if kind == "function":
            quals, sig = self.fn_sig(inner)
            body = "" if where == "" else (" {..}" if inner["has_body"] else ";")
            self.emit(f"pub {where}{quals}fn {here}{self.generics(inner['generics'])}{sig}{body}")
        elif kind == "assoc_const":
            self.emit(f"pub {where}const {here}: {self.ty(inner['type'])}")
        elif kind == "assoc_type":
            b = self.bounds(inner.get("bounds", []))
            t = f" = {self.ty(inner['type'])}" if inner.get("type") else ""
            self.emit(f"pub {where}type {here}{': ' + b if b else ''}{t}")

    def impls(self, ids, owner: str):
        for i in ids:
            im = self.index[str(i)]["inner"]["impl"]
            if im["is_synthetic"] or im.get("blanket_impl"):
                continue
            if im["trait"] is None:
                for m in im["items"]:
                    self.assoc(m, owner, "")
            else:
                t = im["trait"]
                neg = "!" if im["is_negative"] else ""
                g = self.generics(im["generics"])
                self.emit(f"impl{g} {neg}{self.path_of(t.get('id'), t['path'])}{self.args(t.get('args'))}"
                          f" for {self.ty(im['for'])}")


def main() -> int:
    update = "--update" in sys.argv[1:] or os.environ.get("UPDATE_API") == "1"
    api = Api(build_json())
    api.item(api.root, "")
    while api.uses:
        uses, api.uses = api.uses, []
        for id_, path, name in uses:
            if id_ in api.walked:
                api.emit(f"pub use {path}::{name} = {api.walked[id_]}")
            else:
                api.item(id_, path, name)
    lines = sorted(api.lines)
    text = ("# The public API of crate kmst (default features), written by scripts/public-api.py.\n"
            "# Do not edit: run `UPDATE_API=1 scripts/public-api.py` after a deliberate change.\n"
            + "".join(l + "\n" for l in lines))
    if update:
        SNAPSHOT.write_text(text)
        print(f"{SNAPSHOT.relative_to(ROOT)}: {len(lines)} items written")
        return 0
    old = SNAPSHOT.read_text() if SNAPSHOT.exists() else ""
    if old == text:
        print(f"public API unchanged ({len(lines)} items)")
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(keepends=True), text.splitlines(keepends=True),
        str(SNAPSHOT.relative_to(ROOT)), "the public API now"))
    print("\nThe public API of kmst changed. If that is on purpose, run\n"
          "  UPDATE_API=1 scripts/public-api.py\n"
          "and commit interp/tests/public-api.txt with the change (and a CHANGELOG.md line).",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
