//! Splits one `.kms` line into tokens, each with its 1-based column.

use super::AsmError;

/// One token of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// A name: mnemonic, key, register, label.
    Ident(String),
    /// `.name`: a directive.
    Directive(String),
    /// An integer literal (decimal, `0x` hex, or negative decimal), exactly as written.
    Int(i128),
    /// One of `, = ( ) [ ] { } @ # :`.
    Punct(char),
    /// `<-` in a patch entry.
    Arrow,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    pub col: usize,
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// The tokens of `line` (line number `line_no` for errors) and the column just past its text.
pub(super) fn tokens(line: &str, line_no: usize) -> Result<(Vec<Token>, usize), AsmError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |col: usize, message: String| AsmError {
        line: line_no,
        column: col,
        message,
    };
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // `;` always starts a comment; `#` does unless a digit follows (`#N` is a template).
        if c == ';' || (c == '#' && !chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            break;
        }
        if ident_start(c) {
            let start = i;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                col,
            });
            continue;
        }
        if c == '.' && chars.get(i + 1).copied().is_some_and(ident_start) {
            let start = i + 1;
            i += 1;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Directive(chars[start..i].iter().collect()),
                col,
            });
            continue;
        }
        let negative = c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || negative {
            let start = i;
            if negative {
                i += 1;
            }
            let hex =
                !negative && chars[i] == '0' && matches!(chars.get(i + 1), Some('x') | Some('X'));
            if hex {
                i += 2;
            }
            let digits_start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let text: String = chars[digits_start..i]
                .iter()
                .filter(|&&c| c != '_')
                .collect();
            let value = if hex {
                i128::from_str_radix(&text, 16)
            } else {
                text.parse::<i128>()
            };
            let written: String = chars[start..i].iter().collect();
            let value = value
                .ok()
                .filter(|_| !text.is_empty() && text.len() <= 30)
                .ok_or_else(|| err(col, format!("bad integer `{written}`")))?;
            out.push(Token {
                tok: Tok::Int(if negative { -value } else { value }),
                col,
            });
            continue;
        }
        if c == '<' && chars.get(i + 1) == Some(&'-') {
            out.push(Token {
                tok: Tok::Arrow,
                col,
            });
            i += 2;
            continue;
        }
        if ",=()[]{}@#:".contains(c) {
            out.push(Token {
                tok: Tok::Punct(c),
                col,
            });
            i += 1;
            continue;
        }
        return Err(err(col, format!("unexpected character `{c}`")));
    }
    Ok((out, chars.len() + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_kinds() {
        let (t, end) = tokens("top:  addi r1, r1, -1 ; x", 1).unwrap();
        assert_eq!(end, 26); // 25 characters, so the end is column 26
        assert_eq!(
            t[0],
            Token {
                tok: Tok::Ident("top".into()),
                col: 1
            }
        );
        assert_eq!(
            t[1],
            Token {
                tok: Tok::Punct(':'),
                col: 4
            }
        );
        assert_eq!(
            t[2],
            Token {
                tok: Tok::Ident("addi".into()),
                col: 7
            }
        );
        assert_eq!(
            t[7],
            Token {
                tok: Tok::Int(-1),
                col: 20
            }
        );
        assert_eq!(t.len(), 8);
    }

    #[test]
    fn hash_comment_versus_template_reference() {
        let (t, _) = tokens("submit #12 # a comment", 1).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t[2].tok, Tok::Int(12));
        let (t, _) = tokens("# all comment", 1).unwrap();
        assert!(t.is_empty());
    }

    #[test]
    fn hex_arrow_directive() {
        let (t, _) = tokens(".template 0 patches=[1<-r2], first=0xFF", 1).unwrap();
        assert_eq!(t[0].tok, Tok::Directive("template".into()));
        assert!(t.contains(&Token {
            tok: Tok::Arrow,
            col: 23
        }));
        assert_eq!(t.last().unwrap().tok, Tok::Int(255));
        assert!(tokens("set r1, 12q", 1).is_err());
        assert!(tokens("set r1, $", 1).is_err());
    }
}
