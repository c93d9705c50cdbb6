//! The text form of a closed set of things with names (the fuzz targets,
//! the stress shapes): [`named!`] gives such a type, from its `ALL` and
//! `name`, its `Display`, its `FromStr` and the error naming the others.

/// For a type with `ALL` (every value) and `name(self)`: `Display` as the
/// name, `FromStr` from it, and the error type `$unknown` for any other
/// text, whose message is `$message` with the text and the names.
macro_rules! named {
    ($ty:ident, $(#[$doc:meta])* $unknown:ident, $message:literal) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $unknown(pub String);

        impl std::fmt::Display for $unknown {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let names: Vec<&str> = $ty::ALL.iter().map(|t| t.name()).collect();
                write!(f, $message, self.0, names.join(", "))
            }
        }

        impl std::error::Error for $unknown {}

        impl std::str::FromStr for $ty {
            type Err = $unknown;

            fn from_str(s: &str) -> Result<$ty, $unknown> {
                $ty::ALL
                    .iter()
                    .copied()
                    .find(|t| t.name() == s)
                    .ok_or_else(|| $unknown(s.to_owned()))
            }
        }
    };
}
