//! Numbers as the reports print them: thousands separated by commas, and
//! a count with its noun, for the command line's reports and progress.

/// `n` with thousands separators: 1,234,567.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and the noun: `1 pass`, `2,355 passes`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_nouns() {
        for (n, text) in [
            (0, "0"),
            (7, "7"),
            (999, "999"),
            (1_000, "1,000"),
            (999_671, "999,671"),
            (1_234_567, "1,234,567"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(grouped(n), text);
        }
        assert_eq!(counted(1, "pass", "passes"), "1 pass");
        assert_eq!(counted(0, "pass", "passes"), "0 passes");
        assert_eq!(counted(2_355, "pass", "passes"), "2,355 passes");
    }
}
