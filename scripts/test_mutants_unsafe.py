"""Tests of scripts/mutants-unsafe.py's search: which code it mutates, and how."""

import importlib.util
import unittest
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "mutants_unsafe", Path(__file__).with_name("mutants-unsafe.py"))
mu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mu)

SOURCE = """\
fn safe(a: u32) -> bool {
    a == 1
}

unsafe fn hot(a: u32, b: u32) -> u32 {
    // a comment: a + b
    if !done(a) { a + b } else { a }
}

trait T {
    unsafe fn declared(p: *const u8) -> u8;
    fn other(x: u32) -> u32 {
        x - 1
    }
}

macro_rules! ops {
    ($f:expr) => { fn g(x: u32) -> u32 { $f(x) & 3 } };
}

ops! {
    Shr: |b, imm| b >> (imm & 31);
}

#[cfg(test)]
mod tests {
    unsafe fn helper(a: u32) -> u32 {
        a * 2
    }
}
"""


def names(text):
    return [m[0] for m in mu.mutants_of("f.rs", text)]


class Search(unittest.TestCase):
    def test_an_unsafe_fn_body_is_mutated_and_a_safe_fn_is_not(self):
        found = names(SOURCE)
        self.assertIn("f.rs:7:21: replace + with - in hot", found)
        self.assertIn("f.rs:7:21: replace + with * in hot", found)
        self.assertIn("f.rs:7:8: delete ! in hot", found)
        self.assertFalse(any(" in safe" in n for n in found))

    def test_comments_are_not_mutated(self):
        self.assertFalse(any(n.startswith("f.rs:6:") for n in names(SOURCE)))

    def test_a_declaration_without_body_does_not_swallow_what_follows(self):
        # `other` is a safe fn after the declared `unsafe fn`: not mutated.
        self.assertFalse(any(n.startswith("f.rs:13:") for n in names(SOURCE)))

    def test_macro_definitions_and_top_level_calls_are_mutated(self):
        found = names(SOURCE)
        self.assertIn("f.rs:18:48: replace & with | in g", found)
        self.assertIn("f.rs:22:21: replace >> with << in ops", found)
        self.assertIn("f.rs:22:29: replace & with ^ in ops", found)

    def test_test_modules_are_skipped(self):
        self.assertFalse(any(n.startswith("f.rs:27:") for n in names(SOURCE)))

    def test_assertions_are_not_mutated(self):
        text = ("unsafe fn f() -> u32 {\n    const {\n        assert!(\n"
                "            !A && !B,\n            \"contract\"\n        );\n    }\n"
                "    x | y\n}\n")
        found = names(text)
        self.assertFalse(any(n.startswith("f.rs:4:") for n in found))
        self.assertIn("f.rs:8:7: replace | with & in f", found)

    def test_a_line_under_a_feature_says_so(self):
        text = ('unsafe fn f(d: u8) -> u8 {\n    #[cfg(feature = "jit")]\n'
                "    if d == 1 {\n        return d + 1;\n    }\n    d\n}\n")
        found = names(text)
        self.assertIn("f.rs:3:10: replace == with != in f (feature jit)", found)
        self.assertIn("f.rs:4:18: replace + with - in f", found)

    def test_generic_arrows_and_references_are_not_operators(self):
        found = names("unsafe fn f<T: A>(x: &T) -> Vec<u8> {\n    g::<u8>(&x, *p) => 1\n}\n")
        self.assertEqual(found, [])


class FirstFailing(unittest.TestCase):
    def test_the_binary_cargo_stopped_in_is_the_last_it_ran(self):
        log = ("     Running unittests src/lib.rs (target/mutants/deps/kmst-0123abcd)\n"
               "test result: ok. 4 passed\n"
               "     Running tests/exec_random.rs (target/mutants/deps/exec_random-89ef0011)\n"
               "test result: FAILED. 1 passed; 1 failed\n"
               "error: test failed, to rerun pass `--test exec_random`\n")
        self.assertEqual(mu.first_failing(log), "exec_random")
        # cargo-mutants' logs quote the binary's path instead.
        self.assertEqual(mu.first_failing("Running `/t/target/mutants/deps/kmst_harness-00ff`"),
                         "kmst_harness")
        self.assertIsNone(mu.first_failing("error[E0308]: mismatched types"))

    def test_the_test_set_is_read_from_the_configuration(self):
        engine = {"test_package": ["kmst", "kmst-harness"],
                  "additional_cargo_args": ["--lib", "--test", "check", "--test", "corpus"]}
        self.assertEqual(mu.test_binaries(engine), ["kmst", "kmst_harness", "check", "corpus"])

    def test_never_first_is_not_claimed_without_a_record(self):
        binaries = ["kmst", "corpus", "exec_random"]
        self.assertEqual(mu.first_failing_report({"kmst": 47, "corpus": 4}, binaries),
                         ["    47 kmst", "     4 corpus", "never first: exec_random"])
        self.assertEqual(mu.first_failing_report({"?": 19}, binaries)[-1],
                         "never first: not known")
        self.assertEqual(mu.first_failing_report({"kmst": 2, "?": 1}, binaries)[-1],
                         "never first: not known (among the known: corpus, exec_random)")


if __name__ == "__main__":
    unittest.main()
