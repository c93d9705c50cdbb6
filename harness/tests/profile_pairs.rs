//! `kmst_harness::profile::pairs`: adjacent micro-ops executed within one
//! turn of one stream, counted by hand on small streams.

mod common;

use common::{LOOP, two_streams};
use kmst::exec::Dispatch;
use kmst_harness::profile::pairs::{self, Counts, PairReport};
use kmst_reference::Params;

fn loop_counts(budget: u32, d: Dispatch) -> Counts {
    let upload = kmst::asm::assemble(LOOP).unwrap();
    let params = Params {
        turn_budget: budget,
        ..Params::default()
    };
    pairs::count_stream(&upload, &params, d)
}

#[test]
fn a_loop_in_one_turn() {
    // Budget 1,000: all 202 micro-ops in one turn, so every neighbour counts:
    // set->addi 1, addi->jlt 100 (once per round), jlt->addi 99 (the 99
    // taken branches), jlt->halt 1: 201 pairs. Triples: set addi jlt 1,
    // addi jlt addi 99, jlt addi jlt 99, addi jlt halt 1: 200.
    for &d in Dispatch::ALL {
        let c = loop_counts(1_000, d);
        assert_eq!(c.ops, 202);
        assert_eq!(c.pairs.len(), 4);
        assert_eq!(c.pairs[&["set", "addi"]], 1);
        assert_eq!(c.pairs[&["addi", "jlt"]], 100, "{d}");
        assert_eq!(c.pairs[&["jlt", "addi"]], 99);
        assert_eq!(c.pairs[&["jlt", "halt"]], 1);
        assert_eq!(c.triples[&["set", "addi", "jlt"]], 1);
        assert_eq!(c.triples[&["addi", "jlt", "addi"]], 99);
        assert_eq!(c.triples[&["jlt", "addi", "jlt"]], 99);
        assert_eq!(c.triples[&["addi", "jlt", "halt"]], 1);
        assert_eq!(c.triples.values().sum::<u64>(), 200);
        // Straight lines (pc, pc + 1): set(0)->addi(1), addi(1)->jlt(2),
        // jlt(2)->halt(3) when it falls through; jlt->addi jumps back (2 -> 1).
        assert_eq!(c.pairs_straight[&["addi", "jlt"]], 100);
        assert_eq!(c.pairs_straight[&["jlt", "halt"]], 1);
        assert!(!c.pairs_straight.contains_key(&["jlt", "addi"]));
        assert_eq!(c.triples_straight[&["set", "addi", "jlt"]], 1);
        assert_eq!(c.triples_straight[&["addi", "jlt", "halt"]], 1);
        assert_eq!(c.triples_straight.len(), 2);
    }
}

#[test]
fn a_turn_end_breaks_the_chain() {
    // Budget 64: turns of micro-ops 1..=64, 65..=128, 129..=192, 193..=202.
    // Micro-op 1 is SET, 2k is ADDI and 2k+1 is JLT (k = 1..=100), 202 HALT.
    // The cuts fall between 64|65, 128|129 and 192|193: each an addi->jlt
    // pair. So addi->jlt 100 - 3 = 97, jlt->addi 99, set->addi 1,
    // jlt->halt 1: 198 = 202 - 4 turns.
    let c = loop_counts(64, Dispatch::Tail);
    assert_eq!(c.pairs[&["addi", "jlt"]], 97);
    assert_eq!(c.pairs[&["jlt", "addi"]], 99);
    assert_eq!(c.pairs.values().sum::<u64>(), 198);
    // Triples: 62 + 62 + 62 + 8 = 194. A cut after micro-op 64 (ADDI) loses
    // the triples ending at 65 and 66: (63 jlt, 64 addi, 65 jlt) and
    // (64 addi, 65 jlt, 66 addi); each of the three cuts loses one
    // jlt-addi-jlt and one addi-jlt-addi: 99 - 3 = 96 of each.
    assert_eq!(c.triples.values().sum::<u64>(), 194);
    assert_eq!(c.triples[&["jlt", "addi", "jlt"]], 96);
    assert_eq!(c.triples[&["addi", "jlt", "addi"]], 96);
    // Budget 1: no two micro-ops share a turn.
    let c = loop_counts(1, Dispatch::Tail);
    assert_eq!(c.ops, 202);
    assert!(c.pairs.is_empty() && c.triples.is_empty());
}

#[test]
fn streams_of_a_scenario_do_not_chain_into_each_other() {
    // Stream 0 runs `submit; submit` then waits, stream 1 runs `set` +
    // (addi jlt) x 3 + halt in the same pass right after it (S29): the
    // kernel executes submit, submit, set, ... one after the other, but
    // submit->set is no pair (two turns). Stream 0's later turn: wait, halt.
    // Pairs: submit->submit 1, wait->halt 1, set->addi 1, addi->jlt 3,
    // jlt->addi 2, jlt->halt 1 = 9. Triples: stream 1's 6.
    let s = two_streams(Params {
        delay: kmst::Delay::Fixed(5),
        ..Params::default()
    });
    for &d in Dispatch::ALL {
        let c = pairs::count_scenario(&s, d);
        assert_eq!(c.ops, 12);
        assert_eq!(c.pairs[&["submit", "submit"]], 1);
        assert_eq!(c.pairs[&["wait", "halt"]], 1);
        assert_eq!(c.pairs[&["addi", "jlt"]], 3);
        assert_eq!(c.pairs[&["jlt", "addi"]], 2);
        assert!(!c.pairs.contains_key(&["submit", "set"]));
        assert_eq!(c.pairs.values().sum::<u64>(), 9);
        assert_eq!(c.triples.values().sum::<u64>(), 6);
    }
}

#[test]
fn the_report_ranks_and_attributes() {
    // Two sources: the loop in one turn (addi->jlt 100, jlt->addi 99, ...)
    // and the same at budget 64 (addi->jlt 97, jlt->addi 99, ...).
    let sources = vec![
        ("one".to_owned(), loop_counts(1_000, Dispatch::Tail)),
        ("cut".to_owned(), loop_counts(64, Dispatch::Tail)),
    ];
    let r = PairReport::build(Dispatch::Tail, &sources, 2);
    assert_eq!(r.micro_ops, 404);
    assert_eq!(r.pairs, 201 + 198);
    // jlt->addi 198 before addi->jlt 197.
    assert_eq!(r.top_pairs.len(), 2);
    assert_eq!(r.top_pairs[0].ops, ["jlt", "addi"]);
    assert_eq!(r.top_pairs[0].count, 198);
    assert_eq!(r.top_pairs[1].ops, ["addi", "jlt"]);
    assert_eq!(r.top_pairs[1].count, 197);
    assert_eq!(r.top_pairs[1].sources, 2);
    assert_eq!(r.top_pairs[1].top_source, "one");
    assert!((r.top_pairs[1].top_share - 100.0 / 197.0).abs() < 1e-12);
    assert!((r.top_pairs[0].share - 198.0 / 399.0).abs() < 1e-12);
    // jlt->addi always jumps back; addi->jlt is always a straight line.
    assert_eq!(
        (r.top_pairs[0].straight_count, r.top_pairs[1].straight_count),
        (0, 197)
    );
}
