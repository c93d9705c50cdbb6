#!/usr/bin/env python3
"""Two structure checks of the Rust sources (run in CI as `python3 scripts/layers.py`).

1. Layers: the module graph of the tree under interp/src/exec/ has no cycle.

   Every file `foo.rs` or `foo/mod.rs` is a module (`kernel/queue.rs` is
   `exec::kernel::queue`); an inline `mod name { ... }` is part of its file.
   A module A depends on B (edge A -> B) when A's source names B through a
   path:
     use super::x;  use super::super::x;  use self::x;  use x::...  (x a child)
     use crate::exec::x::...;  use super::{a, b::c};  (each leaf of a group)
     super::kernel::HOST, crate::exec::bodies::src::Foo, $crate::exec::h::F
     (paths in code and in macro bodies)
   A path resolves to the deepest module of the tree it names: an item path
   `super::kernel::Kernel` is module `exec::kernel`, and `super::Dispatch`
   from `exec::machine` is `exec` itself, so a child using its parent's (or
   any ancestor's) items depends on it. Not dependencies:
     - structure: a parent's `mod x;` and its `pub use` / `pub(crate) use`
       re-exports of its descendants' items (a private `use self::x::Y` in a
       parent IS an edge parent -> x);
     - a module naming its own items (a self-loop is always trivial here);
     - test-only code: items under `#[cfg(test)]` (`mod tests { ... }`,
       `impl`, `fn`, `use`, ...) and modules declared `#[cfg(test)] mod x;`;
     - comments, doc comments and string literals; paths leaving exec.
   Every strongly connected component of more than one module is reported:
   its members, its elementary cycles, and each edge inside it with the
   file:line of every import or path that makes it.

2. Size: every .rs file of the crate folders (default: interp/, reference/,
   harness/, cli/ and every other top-level folder whose Cargo.toml has a
   [package], except target/, fuzz/, python/ and benches/) has at most
   --max-lines lines without its tests, i.e. not counting the lines of its
   `#[cfg(test)]` module blocks (`#[cfg(test)] mod tests { ... }` anywhere in
   the file, from the attributes and the `///` lines above them to the
   closing brace). Skipped: folders target/, fuzz/, python/, benches/, hidden
   folders, everything under a tests/ folder, and files that are test-only
   modules (declared `#[cfg(test)] mod x;`).

Exit status: 0 when both checks pass (one summary line each), 1 when either
fails (the report lists every cycle and every oversized file), 2 on a usage
error.
"""

import argparse
import bisect
import os
import re
import sys

DEFAULT_CRATES = ("interp", "reference", "harness", "cli")
SKIP_DIRS = {"target", "fuzz", "python", "benches"}
EXEC_DIR = os.path.join("interp", "src", "exec")
# Every crate's whole module tree (exec, checked on its own first, is part of
# interp's).
DEFAULT_TREES = tuple(
    os.path.join(c, "src") for c in ("interp", "types", "reference", "harness", "cli", "python")
)
MAX_LINES = 600
# How a file a script writes starts: the size check leaves it out.
GENERATED = "// @generated"
MAX_CYCLES_SHOWN = 40
CYCLE_ENUM_LIMIT = 100000

# ---------------------------------------------------------------- lexing

_RAW = re.compile(r'(?:b|c)?r(#*)"')
_IDENT_CHAR = re.compile(r"\w")
_TOKEN = re.compile(
    r"r#[A-Za-z_]\w*"  # raw identifier
    r"|\$?[A-Za-z_]\w*"  # identifier, keyword, $crate, $metavar
    r"|::"
    r"|'[A-Za-z_]\w*"  # lifetime or loop label
    r"|\d\w*"
    r"|\S"
)


def _is_ident(c):
    return bool(c) and (c.isalnum() or c == "_")


def clean(src):
    """`src` with comments, doc comments, string and char literals blanked
    (newlines kept, so line numbers stay)."""
    out = []
    n = len(src)
    i = 0
    last = 0  # src[last:i] is kept as is

    def blank(a, b):
        out.append(src[last:a])
        out.append(re.sub(r"[^\n]", " ", src[a:b]))
        return b

    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = src.find("\n", i)
            j = n if j < 0 else j
            last = i = blank(i, j)
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            last = i = blank(i, j)
        elif c == '"':
            last = i = blank(i, _string_end(src, i + 1))
        elif c in "rbc" and (i == 0 or not _is_ident(src[i - 1])):
            m = _RAW.match(src, i)
            if m:
                close = '"' + m.group(1)
                j = src.find(close, m.end())
                j = n if j < 0 else j + len(close)
                last = i = blank(i, j)
            elif c in "bc" and nxt == '"':
                last = i = blank(i, _string_end(src, i + 2))
            elif c == "b" and nxt == "'":
                last = i = blank(i, _char_end(src, i + 1))
            else:
                j = i
                while j < n and _is_ident(src[j]):
                    j += 1
                i = j
        elif c == "'":
            end = _char_end(src, i)
            if end is None:  # a lifetime or label
                i += 1
            else:
                last = i = blank(i, end)
        elif _is_ident(c):
            j = i
            while j < n and _is_ident(src[j]):
                j += 1
            i = j
        else:
            i += 1
    out.append(src[last:])
    return "".join(out)


def _string_end(src, j):
    n = len(src)
    while j < n:
        if src[j] == "\\":
            j += 2
        elif src[j] == '"':
            return j + 1
        else:
            j += 1
    return n


def _char_end(src, i):
    """End of the char literal opening at src[i] == "'", or None if it is a
    lifetime."""
    n = len(src)
    if i + 1 < n and src[i + 1] == "\\":
        k = i + 3
        while k < n and src[k] != "'" and src[k] != "\n":
            k += 1
        return k + 1 if k < n and src[k] == "'" else None
    if i + 2 < n and src[i + 2] == "'" and src[i + 1] != "\n":
        return i + 3
    return None


class Tok:
    __slots__ = ("text", "line")

    def __init__(self, text, line):
        self.text = text
        self.line = line

    def __repr__(self):
        return "%s@%d" % (self.text, self.line)


def tokenize(src):
    text = clean(src)
    starts = [m.end() for m in re.finditer("\n", text)]
    toks = []
    for m in _TOKEN.finditer(text):
        t = m.group()
        if t.startswith("r#"):
            t = t[2:]
        toks.append(Tok(t, bisect.bisect_right(starts, m.start()) + 1))
    return toks


# ---------------------------------------------------------------- scanning

PATH_HEADS = ("super", "self", "crate", "$crate")
BLOCK_ITEMS = {"mod", "impl", "fn", "trait", "struct", "enum", "union", "macro_rules"}
SEMI_ITEMS = {"use", "const", "static", "type", "extern"}
FN_MODIFIERS = {"const", "unsafe", "async", "default", "extern", "safe"}


class Ref:
    """A path in the source: segs is [(name, line)], logical the module it is
    written in (file module + inline modules), kind 'use' | 'code' | 'bare'."""

    __slots__ = ("segs", "logical", "kind", "pub")

    def __init__(self, segs, logical, kind, pub):
        self.segs = segs
        self.logical = logical
        self.kind = kind
        self.pub = pub


class Scan:
    def __init__(self):
        self.refs = []
        self.test_blocks = []  # (first line, last line) of #[cfg(test)] mod blocks
        self.test_children = set()  # names declared `#[cfg(test)] mod x;`
        self.file_is_test = False


def _match(toks, i, open_, close):
    """Index of the token closing the group opened at toks[i]."""
    depth = 0
    for k in range(i, len(toks)):
        t = toks[k].text
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return k
    return len(toks) - 1


def _is_cfg_test(toks, a, b):
    """Whether the attribute toks[a:b+1] (`#[...]`) is cfg(test) or
    cfg(all(.., test, ..))."""
    body = [t.text for t in toks[a:b + 1]]
    if body[:2] == ["#", "!"]:
        body = ["#"] + body[2:]
    if body[:5] != ["#", "[", "cfg", "(", "test"]:
        if body[:6] == ["#", "[", "cfg", "(", "all", "("]:
            depth = 0
            for k, t in enumerate(body[5:]):
                if t == "(":
                    depth += 1
                elif t == ")":
                    depth -= 1
                elif t == "test" and depth == 1 and body[5 + k - 1] in ("(", ","):
                    return True
        return False
    return body[5:] == [")", "]"]


def _skip_vis(toks, k):
    if k < len(toks) and toks[k].text == "pub":
        k += 1
        if k < len(toks) and toks[k].text == "(":
            k = _match(toks, k, "(", ")") + 1
    return k


def _item_end(toks, k, kind):
    """Index of the last token of the item whose keyword is toks[k]."""
    depth = 0
    for j in range(k, len(toks)):
        t = toks[j].text
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
            if depth < 0:
                return j - 1
        elif t == "{":
            if depth == 0 and kind != "semi":
                return _match(toks, j, "{", "}")
            depth += 1
        elif t == "}":
            depth -= 1
            if depth < 0:
                return j - 1
        elif t == ";" and depth == 0:
            return j
    return len(toks) - 1


def _is_pub(toks, i):
    """Whether the item whose keyword is toks[i] has a visibility."""
    if i >= 1 and toks[i - 1].text == "pub":
        return True
    if i >= 1 and toks[i - 1].text == ")":
        depth = 0
        for k in range(i - 1, -1, -1):
            t = toks[k].text
            if t == ")":
                depth += 1
            elif t == "(":
                depth -= 1
                if depth == 0:
                    return k >= 1 and toks[k - 1].text == "pub"
    return False


def _use_tree(toks, k, end, prefix, leaves):
    """Parses the use tree at toks[k:end]; appends each leaf path (a list of
    (name, line)) to leaves; returns the index after the tree."""
    segs = list(prefix)
    while k < end:
        t = toks[k].text
        if t == "::":
            k += 1
        elif t == "{":
            close = _match(toks, k, "{", "}")
            j = k + 1
            while j < close:
                j = _use_tree(toks, j, close, segs, leaves)
                if j < close and toks[j].text == ",":
                    j += 1
            return close + 1
        elif t == "*":
            leaves.append(segs)
            return k + 1
        elif t == "self" and segs:
            leaves.append(segs)
            k += 1
            if k + 1 < end and toks[k].text == "as":
                k += 2
            return k
        elif t == "as":
            leaves.append(segs)
            return k + 2
        elif t in (",", "}"):
            break
        elif re.match(r"\$?\w+$", t):
            segs = segs + [(t, toks[k].line)]
            k += 1
        else:
            k += 1
    if len(segs) > len(prefix):
        leaves.append(segs)
    return k


def _path_at(toks, i):
    """The path of identifiers separated by `::` starting at toks[i]."""
    segs = [(toks[i].text, toks[i].line)]
    k = i + 1
    while (
        k + 1 < len(toks)
        and toks[k].text == "::"
        and re.match(r"\$?[A-Za-z_]\w*$", toks[k + 1].text)
    ):
        segs.append((toks[k + 1].text, toks[k + 1].line))
        k += 2
    return segs, k


def scan(src, module=()):
    """Scans one file whose module path is `module` (a tuple)."""
    toks = tokenize(src)
    sc = Scan()
    stack = []  # per open `{`: the inline module's name or None
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i].text
        if t == "#" and i + 1 < n and toks[i + 1].text in ("[", "!"):
            # a run of attributes
            first = i
            cfg_test = False
            inner_test = False
            while i + 1 < n and toks[i].text == "#" and toks[i + 1].text in ("[", "!"):
                inner = toks[i + 1].text == "!"
                b = i + 2 if inner else i + 1
                if b >= n or toks[b].text != "[":
                    break
                close = _match(toks, b, "[", "]")
                if _is_cfg_test(toks, i, close):
                    if inner:
                        inner_test = True
                    else:
                        cfg_test = True
                i = close + 1
            if inner_test and not stack:
                sc.file_is_test = True
                sc.refs = []
                return sc
            if not cfg_test:
                continue
            k = _skip_vis(toks, i)
            mods = k
            while mods < n and toks[mods].text in FN_MODIFIERS and mods < k + 4:
                mods += 1
            kw = toks[k].text if k < n else ""
            if kw in FN_MODIFIERS and mods < n and toks[mods].text in BLOCK_ITEMS:
                kw = toks[mods].text  # const fn, unsafe impl, ...
            if kw == "extern" and k + 1 < n and toks[k + 1].text != "crate":
                kw = "impl"  # an extern block: ends with its braces
            if kw == "mod" and k + 2 < n:
                name = toks[k + 1].text
                if toks[k + 2].text == ";":
                    sc.test_children.add(name)
                    i = k + 3
                    continue
                if toks[k + 2].text == "{":
                    end = _match(toks, k + 2, "{", "}")
                    sc.test_blocks.append((toks[first].line, toks[end].line))
                    i = end + 1
                    continue
            if kw in BLOCK_ITEMS or kw in SEMI_ITEMS:
                i = _item_end(toks, k, "semi" if kw in SEMI_ITEMS else "block") + 1
            continue
        if t == "{":
            named = i >= 2 and toks[i - 2].text == "mod"
            stack.append(toks[i - 1].text if named else None)
            i += 1
            continue
        if t == "}":
            if stack:
                stack.pop()
            i += 1
            continue
        logical = tuple(module) + tuple(s for s in stack if s is not None)
        if t == "use" and i + 1 < n and toks[i + 1].text != "<":
            end = i + 1
            while end < n and toks[end].text != ";":
                end += 1
            leaves = []
            k = i + 1
            while k < end:
                k = _use_tree(toks, k, end, [], leaves)
                if k < end and toks[k].text in (",", "}"):
                    k += 1
            pub = _is_pub(toks, i)
            for segs in leaves:
                if segs:
                    kind = "use" if segs[0][0] in PATH_HEADS else "bare-use"
                    sc.refs.append(Ref(segs, logical, kind, pub))
            i = end + 1
            continue
        if (
            i + 2 < n
            and toks[i + 1].text == "::"
            and re.match(r"\$?[A-Za-z_]\w*$", t)
            and (i == 0 or toks[i - 1].text not in ("::", "."))
        ):
            if (
                i >= 3
                and toks[i - 1].text == "in"
                and toks[i - 2].text == "("
                and toks[i - 3].text == "pub"
            ):  # pub(in crate::x): a visibility, not a dependency
                _, i = _path_at(toks, i)
                continue
            segs, k = _path_at(toks, i)
            kind = "code" if t in PATH_HEADS else "bare"
            if len(segs) > 1 or kind == "code":
                sc.refs.append(Ref(segs, logical, kind, False))
            i = k
            continue
        i += 1
    return sc


# ---------------------------------------------------------------- module graph


def crate_root_file(tree_dir):
    """A crate's root file (lib.rs, else main.rs) when tree_dir is its
    `src` folder, else None."""
    if os.path.basename(os.path.normpath(tree_dir)) != "src":
        return None
    for name in ("lib.rs", "main.rs"):
        path = os.path.join(tree_dir, name)
        if os.path.isfile(path):
            return path
    return None


def tree_name(tree_dir):
    """The name a tree's root module is shown by: the folder's, or for a
    crate's `src` folder, the crate folder's (`reference`)."""
    norm = os.path.normpath(os.path.abspath(tree_dir))
    if crate_root_file(tree_dir):
        return os.path.basename(os.path.dirname(norm))
    return os.path.basename(norm)


def discover_modules(exec_dir, root_name):
    """{module tuple: file path} of the tree at exec_dir (a dir holding
    mod.rs, or with a sibling `<dir>.rs`, or a crate's `src` folder with
    lib.rs or main.rs; its `bin/` targets are crates of their own)."""
    mods = {}
    crate_root = crate_root_file(exec_dir)
    root_file = crate_root or os.path.join(exec_dir, "mod.rs")
    if not os.path.isfile(root_file):
        alt = exec_dir.rstrip(os.sep) + ".rs"
        if os.path.isfile(alt):
            root_file = alt
        else:
            return mods
    mods[(root_name,)] = root_file

    def walk(d, path):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            return
        for name in names:
            full = os.path.join(d, name)
            if crate_root and d == exec_dir and name in ("lib.rs", "main.rs", "bin"):
                continue
            if name.endswith(".rs") and name != "mod.rs" and os.path.isfile(full):
                stem = name[:-3]
                mods[path + (stem,)] = full
                sub = os.path.join(d, stem)
                if os.path.isdir(sub):
                    walk(sub, path + (stem,))
            elif os.path.isdir(full) and not name.startswith("."):
                if name == "tests":
                    # a tests/ folder is tests, unless it is a module dir
                    if not os.path.isfile(os.path.join(full, "mod.rs")):
                        continue
                if os.path.isfile(os.path.join(full, "mod.rs")):
                    mods[path + (name,)] = os.path.join(full, "mod.rs")
                    walk(full, path + (name,))

    walk(exec_dir, (root_name,))
    return mods


def crate_path_of(exec_dir):
    """The module path of exec_dir inside its crate (`interp/src/exec` ->
    ("exec",)): the folders after the nearest `src` ancestor."""
    parts = os.path.normpath(os.path.abspath(exec_dir)).split(os.sep)
    if "src" in parts:
        idx = len(parts) - 1 - parts[::-1].index("src")
        return tuple(parts[idx + 1:])
    return (parts[-1],)


class Site:
    __slots__ = ("file", "line", "text")

    def __init__(self, file, line, text):
        self.file = file
        self.line = line
        self.text = text


def resolve(ref, modules, abs_root, file_module):
    """The module (tuple relative to the tree, first element the tree's
    name) that ref names, with the line of the segment naming it, or None.

    abs_root: the tree root's path in its crate, e.g. ("exec",)."""
    segs = ref.segs
    root_name = file_module[0]
    # logical module, crate-absolute
    logical = abs_root + tuple(ref.logical[1:])
    head = segs[0][0]
    if head in ("crate", "$crate"):
        base, rest, k = (), segs[1:], 1
    elif head == "self":
        base, rest = logical, segs[1:]
    elif head == "super":
        base = logical
        k = 0
        while k < len(segs) and segs[k][0] == "super":
            if not base:
                return None
            base = base[:-1]
            k += 1
        rest = segs[k:]
    else:  # a bare path: only a child of the file module itself
        if tuple(ref.logical) != tuple(file_module):
            return None
        child = file_module + (head,)
        if child not in modules:
            return None
        base, rest = logical, segs
    lead = len(segs) - len(rest)
    full = base + tuple(name for name, _ in rest)
    if full[: len(abs_root)] != abs_root:
        return None
    rel = (root_name,) + full[len(abs_root):]
    best = None
    for d in range(len(rel), 0, -1):
        if rel[:d] in modules:
            best = d
            break
    if best is None:
        return None
    target = rel[:best]
    # the segment naming the target (or the last super/self/crate)
    # rel[j] is full[j + len(abs_root) - 1]; rest[r] is full[r + len(base)]
    idx = best + len(abs_root) - 2 - len(base)
    if idx >= 0 and idx < len(rest):
        line = rest[idx][1]
    else:
        line = segs[max(lead - 1, 0)][1]
    return target, line


def build_graph(repo, exec_dir):
    """Returns (modules {tuple: file}, edges {(a, b): [Site]})."""
    root_name = tree_name(exec_dir)
    abs_root = crate_path_of(exec_dir)
    modules = discover_modules(exec_dir, root_name)
    scans = {}
    for mod, path in modules.items():
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        scans[mod] = (scan(src, mod), src.splitlines())
    # test-only modules and their subtrees leave the graph
    test_only = set()
    for mod, (sc, _) in scans.items():
        if sc.file_is_test:
            test_only.add(mod)
        for name in sc.test_children:
            test_only.add(mod + (name,))
    for mod in list(modules):
        if any(mod[: len(t)] == t for t in test_only):
            del modules[mod]
    edges = {}
    for mod, path in modules.items():
        sc, lines = scans[mod]
        rel = os.path.relpath(path, repo)
        for ref in sc.refs:
            res = resolve(ref, modules, abs_root, mod)
            if res is None:
                continue
            target, line = res
            if target == mod:
                continue  # a module naming its own items
            if (
                ref.pub
                and ref.kind in ("use", "bare-use")
                and target[: len(mod)] == mod
            ):
                continue  # a parent re-exporting a descendant's items
            text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            sites = edges.setdefault((mod, target), [])
            if not any(s.file == rel and s.line == line for s in sites):
                sites.append(Site(rel, line, text))
    return modules, edges


def sccs(nodes, adj):
    """Tarjan's strongly connected components (iterative)."""
    index = {}
    low = {}
    on = set()
    stack = []
    out = []
    counter = [0]
    for v in nodes:
        if v in index:
            continue
        work = [(v, iter(sorted(adj.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))
    return out


def elementary_cycles(comp, adj, limit):
    """The elementary cycles of the component comp (each a list of nodes,
    starting from its smallest), up to limit of them; (cycles, complete)."""
    order = sorted(comp)
    rank = {v: k for k, v in enumerate(order)}
    cycles = []
    for s in order:
        # cycles whose smallest node is s
        allowed = {v for v in order if rank[v] >= rank[s]}
        path = [s]
        on_path = {s}
        iters = [iter(sorted(w for w in adj.get(s, ()) if w in allowed))]
        while iters:
            advanced = False
            for w in iters[-1]:
                if w == s:
                    cycles.append(list(path))
                    if len(cycles) >= limit:
                        return cycles, False
                elif w not in on_path:
                    path.append(w)
                    on_path.add(w)
                    iters.append(iter(sorted(x for x in adj.get(w, ()) if x in allowed)))
                    advanced = True
                    break
            if not advanced:
                iters.pop()
                on_path.discard(path.pop())
    cycles.sort(key=lambda c: (len(c), c))
    return cycles, True


def layers(modules, adj, comps):
    """[(layer, [modules of one component])] in a topological order: each
    module after everything it depends on."""
    comp_of = {}
    for k, c in enumerate(comps):
        for v in c:
            comp_of[v] = k
    level = {}

    def lvl(k):
        if k in level:
            return level[k]
        level[k] = 0  # guards; the condensation has no cycle
        deps = {comp_of[w] for v in comps[k] for w in adj.get(v, ()) if comp_of[w] != k}
        level[k] = 1 + max((lvl(d) for d in deps), default=-1)
        return level[k]

    sys.setrecursionlimit(max(1000, 10 * len(comps) + 100))
    for k in range(len(comps)):
        lvl(k)
    order = sorted(range(len(comps)), key=lambda k: (level[k], comps[k]))
    return [(level[k], comps[k]) for k in order]


def name(mod):
    return "::".join(mod)


def check_graph(repo, exec_dir, show_layers, show_edges, out):
    modules, edges = build_graph(repo, exec_dir)
    rel_dir = os.path.relpath(exec_dir, repo)
    if not modules:
        print("layers: no module tree at %s" % rel_dir, file=out)
        return False
    adj = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
    comps = sccs(sorted(modules), adj)
    cyclic = sorted((c for c in comps if len(c) > 1), key=lambda c: c[0])
    root = name(min(modules, key=len))
    if not cyclic:
        print(
            "%s: %d modules, %d edges, no cycle" % (root, len(modules), len(edges)),
            file=out,
        )
    else:
        print(
            "%s: %d modules, %d edges, %d cycle%s (strongly connected components):"
            % (root, len(modules), len(edges), len(cyclic), "" if len(cyclic) == 1 else "s"),
            file=out,
        )
        for k, comp in enumerate(cyclic, 1):
            members = set(comp)
            print("", file=out)
            print(
                "cycle %d: %d modules: %s" % (k, len(comp), ", ".join(name(m) for m in comp)),
                file=out,
            )
            cycles, complete = elementary_cycles(comp, adj, CYCLE_ENUM_LIMIT)
            shown = cycles[:MAX_CYCLES_SHOWN]
            total = "%d" % len(cycles) if complete else "more than %d" % len(cycles)
            print("  %s elementary cycle%s:" % (total, "" if len(cycles) == 1 else "s"), file=out)
            for c in shown:
                print("    " + " -> ".join(name(m) for m in c + [c[0]]), file=out)
            if len(cycles) > len(shown):
                print("    ... (%d more not shown)" % (len(cycles) - len(shown)), file=out)
            inner = sorted((a, b) for (a, b) in edges if a in members and b in members)
            print("  its %d edges and where they are made:" % len(inner), file=out)
            for a, b in inner:
                print("    %s -> %s" % (name(a), name(b)), file=out)
                for s in sorted(edges[(a, b)], key=lambda s: (s.file, s.line)):
                    print("      %s:%d  %s" % (s.file, s.line, _short(s.text)), file=out)
    if show_layers:
        print("", file=out)
        print("layers (each module after the modules it depends on):", file=out)
        for lv, comp in layers(modules, adj, comps):
            if len(comp) == 1:
                print("  %2d  %s" % (lv, name(comp[0])), file=out)
            else:
                print(
                    "  %2d  {%s}  (a cycle)" % (lv, ", ".join(name(m) for m in comp)),
                    file=out,
                )
    if show_edges:
        print("", file=out)
        print("edges:", file=out)
        for a, b in sorted(edges):
            sites = ", ".join(
                "%s:%d" % (s.file, s.line)
                for s in sorted(edges[(a, b)], key=lambda s: (s.file, s.line))
            )
            print("  %s -> %s  (%s)" % (name(a), name(b), sites), file=out)
    return not cyclic


def _short(text, width=110):
    return text if len(text) <= width else text[: width - 3] + "..."


# ---------------------------------------------------------------- file size


def default_crates(repo):
    crates = [c for c in DEFAULT_CRATES if os.path.isdir(os.path.join(repo, c))]
    try:
        names = sorted(os.listdir(repo))
    except OSError:
        names = []
    for d in names:
        if d in crates or d in SKIP_DIRS or d.startswith("."):
            continue
        toml = os.path.join(repo, d, "Cargo.toml")
        if os.path.isfile(toml):
            with open(toml, encoding="utf-8", errors="replace") as f:
                if any(line.strip() == "[package]" for line in f):
                    crates.append(d)
    return crates


def rs_files(crate_dir):
    for dirpath, dirnames, filenames in os.walk(crate_dir):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS and d != "tests" and not d.startswith(".")
        )
        for f in sorted(filenames):
            if f.endswith(".rs"):
                yield os.path.join(dirpath, f)


def count_lines(src, sc=None):
    """(lines without the #[cfg(test)] module blocks, all lines)."""
    lines = src.splitlines()
    total = len(lines)
    if sc is None:
        sc = scan(src)
    if sc.file_is_test:
        return 0, total
    test = set()
    for a, b in sc.test_blocks:
        # the `///` lines just above the attributes belong to the block
        while a > 1 and lines[a - 2].lstrip().startswith("///"):
            a -= 1
        test.update(range(a, b + 1))
    return total - len(test), total


def _test_children_files(path, names):
    d = os.path.dirname(path)
    base = os.path.basename(path)
    if base not in ("mod.rs", "lib.rs", "main.rs"):
        d = os.path.join(d, base[:-3])
    out = []
    for n in names:
        out.append(os.path.join(d, n + ".rs"))
        out.append(os.path.join(d, n))  # a folder: the whole subtree
    return out


def check_size(repo, crates, max_lines, out):
    files = []
    for c in crates:
        cdir = c if os.path.isabs(c) else os.path.join(repo, c)
        if not os.path.isdir(cdir):
            print("size: no crate folder %s" % c, file=out)
            return False
        files.extend(rs_files(cdir))
    scans = {}
    tests = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        sc = scan(src)
        scans[path] = (sc, src)
        if sc.test_children:
            tests.extend(_test_children_files(path, sc.test_children))
    over = []
    checked = 0
    for path in files:
        if any(path == t or path.startswith(t + os.sep) for t in tests):
            continue
        sc, src = scans[path]
        if src.startswith(GENERATED):
            # Written by a script, read but never edited by hand (handlers.rs).
            continue
        code, total = count_lines(src, sc)
        checked += 1
        if code > max_lines:
            over.append((os.path.relpath(path, repo), code, total))
    label = ", ".join(c.rstrip("/") + "/" for c in crates)
    if not over:
        print(
            "size: %d files in %s, none over %d lines without tests" % (checked, label, max_lines),
            file=out,
        )
        return True
    print(
        "size: %d of %d files in %s over %d lines without tests:"
        % (len(over), checked, label, max_lines),
        file=out,
    )
    for rel, code, total in sorted(over):
        extra = "" if code == total else " (%d with tests)" % total
        print("  %s: %d lines%s" % (rel, code, extra), file=out)
    return False


# ---------------------------------------------------------------- main


def main(argv=None, out=None):
    out = out or sys.stdout
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(
        prog="layers.py",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--repo",
        default=os.path.dirname(here),
        help="the repository root (default: the folder above scripts/)",
    )
    p.add_argument(
        "--exec",
        dest="exec_dir",
        action="append",
        metavar="TREE",
        help="a module tree of the layers check, relative to --repo: a folder "
        "holding mod.rs, or a crate's src/ folder; repeat it for several "
        "(default: %s and the src/ folder of every crate: %s)"
        % (EXEC_DIR, ", ".join(t for t in DEFAULT_TREES)),
    )
    p.add_argument(
        "--root",
        action="append",
        metavar="CRATE",
        help="a crate folder of the size check, relative to --repo; repeat it or "
        "give a comma-separated list (default: %s and every other top-level "
        "folder whose Cargo.toml has a [package], except %s)"
        % (", ".join(DEFAULT_CRATES), ", ".join(sorted(SKIP_DIRS))),
    )
    p.add_argument(
        "--max-lines",
        type=int,
        default=MAX_LINES,
        help="the most lines a file may have without its tests (default: %(default)s)",
    )
    p.add_argument(
        "--check",
        choices=("all", "layers", "size"),
        default="all",
        help="run only one of the checks (default: both)",
    )
    p.add_argument(
        "--layers",
        action="store_true",
        help="also print the modules in layer order (a topological order, each "
        "module after what it depends on; a cycle is one group)",
    )
    p.add_argument(
        "--edges",
        action="store_true",
        help="also print every edge with the file:line of each path making it",
    )
    args = p.parse_args(argv)
    repo = os.path.abspath(args.repo)
    ok = True
    if args.check in ("all", "layers"):
        # By default exec (where it exists), then each crate with a root.
        trees = args.exec_dir or [
            t for t in (EXEC_DIR,) if os.path.isdir(os.path.join(repo, t))
        ] + [t for t in DEFAULT_TREES if crate_root_file(os.path.join(repo, t))]
        for tree in trees:
            exec_dir = tree if os.path.isabs(tree) else os.path.join(repo, tree)
            ok = check_graph(repo, exec_dir, args.layers, args.edges, out) and ok
    if args.check in ("all", "size"):
        if args.root:
            crates = [c for r in args.root for c in r.split(",") if c]
        else:
            crates = default_crates(repo)
        if args.check == "all":
            print("", file=out)
        ok = check_size(repo, crates, args.max_lines, out) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
