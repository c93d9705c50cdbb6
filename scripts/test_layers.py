"""Tests of scripts/layers.py on small fake trees.

Run from the repository root: python3 -m unittest scripts/test_layers.py
"""

import contextlib
import io
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402


class Tree:
    """A fake repository in a temporary folder."""

    def __init__(self, files):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        for rel, text in files.items():
            self.write(rel, text)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text).lstrip("\n") if isinstance(text, str) else text)

    def run(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stderr(io.StringIO()):
            rc = layers.main(["--repo", self.root] + list(args), out=out)
        return rc, out.getvalue()

    def edges(self):
        _, edges = layers.build_graph(self.root, os.path.join(self.root, layers.EXEC_DIR))
        return {(layers.name(a), layers.name(b)): sites for (a, b), sites in edges.items()}

    def close(self):
        self._tmp.cleanup()


EXEC = "interp/src/exec/"


def exec_tree(files):
    tree = Tree({"interp/Cargo.toml": "[package]\nname = \"x\"\n"})
    for rel, text in files.items():
        tree.write(EXEC + rel, text)
    return tree


class LayersTest(unittest.TestCase):
    def tree(self, files):
        t = exec_tree(files)
        self.addCleanup(t.close)
        return t

    def test_cycle_across_two_files_is_reported_with_its_import_lines(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\n",
                "a.rs": """
                    //! A.
                    use super::b::Thing;

                    pub struct Other;
                """,
                "b.rs": """
                    pub struct Thing;

                    fn f() -> super::a::Other {
                        super::a::Other
                    }
                """,
            }
        )
        rc, out = t.run("--check", "layers")
        self.assertEqual(rc, 1, out)
        self.assertIn("cycle 1: 2 modules: exec::a, exec::b", out)
        self.assertIn("exec::a -> exec::b -> exec::a", out)
        self.assertIn("interp/src/exec/a.rs:2  use super::b::Thing;", out)
        self.assertIn("interp/src/exec/b.rs:3  fn f() -> super::a::Other {", out)
        self.assertIn("interp/src/exec/b.rs:4  super::a::Other", out)

    def test_no_cycle_prints_one_summary_line_and_exits_0(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\npub use a::Thing;\n",
                "a.rs": "pub struct Thing;\n",
                "b.rs": "use super::a::Thing;\nuse super::Dispatch;\n",
            }
        )
        rc, out = t.run("--check", "layers")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, "exec: 3 modules, 2 edges, no cycle\n")
        rc, out = t.run("--check", "layers", "--layers", "--edges")
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        order = [l.split()[-1] for l in lines if l.startswith("   ")]
        self.assertLess(order.index("exec::a"), order.index("exec::b"))
        self.assertLess(order.index("exec"), order.index("exec::b"))
        self.assertIn("  exec::b -> exec  (interp/src/exec/b.rs:2)", lines)

    def test_cfg_test_module_is_ignored(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\n",
                "a.rs": """
                    pub struct A;

                    #[cfg(test)]
                    #[allow(unused)]
                    mod tests {
                        use super::*;
                        use crate::exec::b::B;
                        fn g() { let _ = super::super::b::B; }
                    }
                """,
                "b.rs": "use super::a::A;\npub struct B;\n",
            }
        )
        self.assertEqual(set(t.edges()), {("exec::b", "exec::a")})
        rc, out = t.run("--check", "layers")
        self.assertEqual(rc, 0, out)

    def test_comments_and_strings_are_ignored(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\n",
                "a.rs": """
                    // use super::b::B;
                    /* super::b::B /* nested */ super::b::B */
                    /// [`super::b::B`]
                    const S: &str = "super::b::B";
                    const R: &str = r#"use super::b::B;"#;
                    const C: char = '"';
                    fn f<'a>(x: &'a str) -> &'a str { x }
                """,
                "b.rs": "pub struct B;\n",
            }
        )
        self.assertEqual(t.edges(), {})

    def test_grouped_import_makes_an_edge_to_each_module(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\nmod c;\n",
                "a.rs": "pub struct X;\n",
                "b.rs": "pub fn f() {}\n",
                "c.rs": """
                    use super::{
                        a::X,
                        b,
                    };
                """,
            }
        )
        edges = t.edges()
        self.assertEqual(set(edges), {("exec::c", "exec::a"), ("exec::c", "exec::b")})
        self.assertEqual([s.line for s in edges[("exec::c", "exec::a")]], [2])
        self.assertEqual([s.line for s in edges[("exec::c", "exec::b")]], [3])

    def test_crate_path_resolves_to_the_deepest_existing_module(self):
        t = self.tree(
            {
                "mod.rs": "mod x;\nmod user;\n",
                "x/mod.rs": "mod y;\n",
                "x/y.rs": "pub struct Item;\n",
                "user.rs": """
                    use crate::exec::x::y::Item;
                    fn f() {
                        let _ = crate::exec::x::z::Other::new();
                        let _ = crate::exec::Dispatch::Tail;
                    }
                    macro_rules! m { () => { $crate::exec::x::y::Item }; }
                    fn g(_: crate::reference::Params) {}
                """,
            }
        )
        edges = t.edges()
        self.assertEqual(
            set(edges),
            {
                ("exec::user", "exec::x::y"),
                ("exec::user", "exec::x"),
                ("exec::user", "exec"),
            },
        )
        self.assertEqual([s.line for s in edges[("exec::user", "exec::x::y")]], [1, 6])
        self.assertEqual([s.line for s in edges[("exec::user", "exec::x")]], [3])

    def test_parent_structure_is_not_an_edge_but_a_private_use_is(self):
        t = self.tree(
            {
                "mod.rs": "pub mod k;\npub use k::Kernel;\npub(crate) use self::k::q::Job;\n",
                "k/mod.rs": """
                    mod q;
                    mod s;
                    pub(crate) use s::Stream;
                    use self::q::Job;
                    pub struct Slot;
                """,
                "k/q.rs": "pub struct Job;\n",
                "k/s.rs": "use super::Slot;\nuse super::super::k::q::Job;\npub struct Stream;\n",
            }
        )
        self.assertEqual(
            set(t.edges()),
            {
                ("exec::k", "exec::k::q"),
                ("exec::k::s", "exec::k"),
                ("exec::k::s", "exec::k::q"),
            },
        )

    def test_inline_module_super_is_its_file(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\nmod b;\n",
                "a.rs": """
                    pub struct Regs;
                    pub(crate) mod src {
                        use super::Regs;
                        pub fn f() { super::super::b::g() }
                    }
                """,
                "b.rs": "pub fn g() {}\n",
            }
        )
        self.assertEqual(set(t.edges()), {("exec::a", "exec::b")})

    def test_cfg_test_child_file_is_not_a_module(self):
        t = self.tree(
            {
                "mod.rs": "mod a;\n",
                "a/mod.rs": "#[cfg(test)]\nmod tests;\npub struct A;\n",
                "a/tests.rs": "use super::A;\n" + "fn t() {}\n" * 700,
            }
        )
        modules, _ = layers.build_graph(t.root, os.path.join(t.root, layers.EXEC_DIR))
        self.assertEqual(sorted(layers.name(m) for m in modules), ["exec", "exec::a"])
        rc, out = t.run("--check", "size", "--root", "interp")
        self.assertEqual(rc, 0, out)


    def test_a_crates_src_is_a_tree_and_its_cycles_fail(self):
        t = Tree(
            {
                "types/Cargo.toml": "[package]\nname = \"t\"\n",
                "types/src/lib.rs": "pub mod params;\npub mod result;\n",
                "types/src/params.rs": "use crate::result::Command;\npub struct Params;\n",
                "types/src/result.rs": "use crate::params::Params;\npub struct Command;\n",
                "types/src/bin/tool.rs": "fn main() {}\n",
            }
        )
        self.addCleanup(t.close)
        rc, out = t.run("--check", "layers")
        self.assertEqual(rc, 1, out)
        self.assertIn("types: 3 modules, 2 edges, 1 cycle", out)
        self.assertIn("types::params -> types::result -> types::params", out)
        # A leaf module for the shared type breaks it.
        t.write("types/src/lib.rs", "mod command;\npub mod params;\npub mod result;\n")
        t.write("types/src/command.rs", "pub struct Command;\n")
        t.write("types/src/params.rs", "use crate::command::Command;\npub struct Params;\n")
        t.write("types/src/result.rs", "use crate::params::Params;\npub use crate::command::Command;\n")
        rc, out = t.run("--check", "layers")
        self.assertEqual(rc, 0, out)
        self.assertIn("types: 4 modules, 3 edges, no cycle", out)

def code_lines(n):
    return "".join("pub fn f%d() {}\n" % k for k in range(n))


def test_block(n):
    """A #[cfg(test)] module of exactly n lines."""
    assert n >= 4
    body = "".join("    fn t%d() {}\n" % k for k in range(n - 4))
    return "#[cfg(test)]\nmod tests {\n    use super::*;\n" + body + "}\n"


class SizeTest(unittest.TestCase):
    def setUp(self):
        self.t = Tree(
            {
                "interp/Cargo.toml": "[package]\nname = \"interp\"\n",
                "newcrate/Cargo.toml": "[package]\nname = \"new\"\n",
                "fuzz/Cargo.toml": "[package]\nname = \"fuzz\"\n",
                "interp/src/lib.rs": "pub mod big;\n",
            }
        )
        self.addCleanup(self.t.close)

    def test_700_lines_of_which_200_are_tests_pass(self):
        src = code_lines(500) + test_block(200)
        self.assertEqual(src.count("\n"), 700)
        self.t.write("interp/src/big.rs", src)
        self.assertEqual(layers.count_lines(src), (500, 700))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 0, out)
        self.assertIn("none over 600 lines", out)

    def test_601_code_lines_fail(self):
        self.t.write("newcrate/src/lib.rs", code_lines(601) + test_block(50))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 1, out)
        self.assertIn("  newcrate/src/lib.rs: 601 lines (651 with tests)", out)
        self.t.write("newcrate/src/lib.rs", code_lines(600) + test_block(50))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 0, out)

    def test_a_generated_file_is_left_out(self):
        self.t.write("newcrate/src/lib.rs", "// @generated by a script\n" + code_lines(900))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 0, out)
        self.t.write("newcrate/src/lib.rs", "// written by hand\n" + code_lines(900))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 1, out)

    def test_test_blocks_anywhere_and_their_doc_lines_do_not_count(self):
        src = (
            code_lines(300)
            + "/// Tests.\n"
            + test_block(100)
            + code_lines(300)
            + "#[cfg(all(test, feature = \"x\"))]\nmod more {\n}\n"
        )
        self.assertEqual(layers.count_lines(src), (600, 704))

    def test_limit_roots_and_skipped_folders(self):
        self.t.write("interp/tests/long.rs", code_lines(900))
        self.t.write("interp/benches/long.rs", code_lines(900))
        self.t.write("fuzz/src/long.rs", code_lines(900))
        self.t.write("interp/src/mid.rs", code_lines(300))
        rc, out = self.t.run("--check", "size")
        self.assertEqual(rc, 0, out)
        rc, out = self.t.run("--check", "size", "--max-lines", "299")
        self.assertEqual(rc, 1, out)
        self.assertIn("interp/src/mid.rs: 300 lines", out)
        rc, out = self.t.run("--check", "size", "--max-lines", "299", "--root", "newcrate")
        self.assertEqual(rc, 0, out)

    def test_help_explains_both_checks(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as cm:
            layers.main(["--help"])
        self.assertEqual(cm.exception.code, 0)
        text = out.getvalue()
        self.assertIn("Layers", text)
        self.assertIn("Size", text)
        self.assertIn("--max-lines", text)
        self.assertIn("--root", text)


if __name__ == "__main__":
    unittest.main()
