//! A tiny test-only writer of uploads, laid out by hand from docs/spec.md
//! "The upload" (header, micro-ops, templates, each padded to 64 bytes).
#![allow(dead_code)]

pub mod answers;
pub mod diff;
pub mod s35;

pub const R15: u8 = 15;
pub const FROM_COMMAND: u8 = 0xFF;
pub const EXCLUSIVE: u8 = 1 << 1;
pub const RESULT: u8 = 1 << 2;

/// One 80-byte template.
#[derive(Clone, Debug)]
pub struct Tpl {
    pub handler: u8,
    pub flags: u8,
    pub first: u16,
    pub count: u16,
    pub args: [u32; 10],
    /// (argument, register) patches.
    pub patches: Vec<(u8, u8)>,
    pub first_register: u8,
    pub count_register: u8,
    /// Overrides patch_count (for bad uploads) when set.
    pub patch_count: Option<u8>,
}

impl Tpl {
    /// A command for `handler` on the fixed group (first, count).
    pub fn group(handler: u8, first: u16, count: u16) -> Tpl {
        Tpl {
            handler,
            flags: 0,
            first,
            count,
            args: [0; 10],
            patches: Vec::new(),
            first_register: FROM_COMMAND,
            count_register: FROM_COMMAND,
            patch_count: None,
        }
    }
    /// A template for ENQUEUE (the group is ignored).
    pub fn job(handler: u8) -> Tpl {
        Tpl::group(handler, 0, 0)
    }
    pub fn flags(mut self, flags: u8) -> Tpl {
        self.flags = flags;
        self
    }
    pub fn arg(mut self, k: usize, v: u32) -> Tpl {
        self.args[k] = v;
        self
    }
    pub fn patch(mut self, arg: u8, register: u8) -> Tpl {
        self.patches.push((arg, register));
        self
    }
    pub fn regs(mut self, first_register: u8, count_register: u8) -> Tpl {
        self.first_register = first_register;
        self.count_register = count_register;
        self
    }

    pub fn bytes(&self) -> [u8; 80] {
        let mut b = [0u8; 80];
        b[0] = self.handler;
        b[1] = self.flags;
        b[12..14].copy_from_slice(&self.first.to_le_bytes());
        b[14..16].copy_from_slice(&self.count.to_le_bytes());
        for (k, a) in self.args.iter().enumerate() {
            b[16 + 4 * k..20 + 4 * k].copy_from_slice(&a.to_le_bytes());
        }
        for (k, &(arg, reg)) in self.patches.iter().enumerate().take(4) {
            b[64 + k] = arg;
            b[68 + k] = reg;
        }
        b[72] = self.first_register;
        b[73] = self.count_register;
        b[74] = self.patch_count.unwrap_or(self.patches.len() as u8);
        b
    }
}

/// `name(operands) = (opcode, a, b, c, imm)`: a method that adds that
/// micro-op.
macro_rules! ops {
    ($($name:ident($($arg:ident: $t:ty),*) = ($($field:expr),*);)*) => {
        $(
            pub fn $name(&mut self, $($arg: $t),*) -> &mut Up {
                self.op($($field),*)
            }
        )*
        /// The micro-op whose method is `name`, its operands in the method's order.
        fn named(&mut self, name: &str, operands: &[u32]) -> &mut Up {
            let mut values = operands.iter();
            let mut next = || *values.next().unwrap();
            match name {
                $(stringify!($name) => {
                    let want = [$(stringify!($arg)),*].len();
                    assert_eq!(operands.len(), want, "{name} {operands:?}: how many operands");
                    $(
                        let $arg = <$t>::try_from(next())
                            .unwrap_or_else(|_| panic!("{name}: {} too large", stringify!($arg)));
                    )*
                    self.$name($($arg),*)
                })*
                _ => panic!("no micro-op {name:?}"),
            }
        }
    };
}

/// An upload under construction.
#[derive(Clone, Debug)]
pub struct Up {
    pub magic: u32,
    pub version: u32,
    pub max_steps: u32,
    pub deadline_us: u32,
    pub req: u32,
    pub seed: u32,
    /// Overrides op_count / command_count in the header when set.
    pub op_count: Option<u32>,
    pub command_count: Option<u32>,
    pub ops: Vec<[u8; 16]>,
    pub templates: Vec<[u8; 80]>,
}

impl Default for Up {
    fn default() -> Up {
        Up::new()
    }
}

impl Up {
    /// max_steps 100,000, deadline 0 (the default), req 7, seed 1.
    pub fn new() -> Up {
        Up {
            magic: 0x4B4D_5354,
            version: 1,
            max_steps: 100_000,
            deadline_us: 0,
            req: 7,
            seed: 1,
            op_count: None,
            command_count: None,
            ops: Vec::new(),
            templates: Vec::new(),
        }
    }

    /// A raw micro-op.
    pub fn op(&mut self, op: u8, a: u8, b: u8, c: u8, imm: u32) -> &mut Up {
        let mut o = [0u8; 16];
        o[0] = op;
        o[1] = a;
        o[2] = b;
        o[3] = c;
        o[4..8].copy_from_slice(&imm.to_le_bytes());
        self.ops.push(o);
        self
    }
    // The micro-ops by name, with the operands each takes.
    ops! {
        set(a: u8, imm: u32) = (1, a, 0, 0, imm);
        mov(a: u8, b: u8) = (2, a, b, 0, 0);
        add(a: u8, b: u8, c: u8) = (3, a, b, c, 0);
        addi(a: u8, b: u8, imm: u32) = (4, a, b, 0, imm);
        sub(a: u8, b: u8, c: u8) = (5, a, b, c, 0);
        mul(a: u8, b: u8, c: u8) = (6, a, b, c, 0);
        and(a: u8, b: u8, c: u8) = (7, a, b, c, 0);
        shr(a: u8, b: u8, imm: u32) = (8, a, b, 0, imm);
        modr(a: u8, b: u8, c: u8) = (9, a, b, c, 0);
        rand(a: u8) = (10, a, 0, 0, 0);
        jmp(target: u32) = (16, 0, 0, 0, target);
        jlt(a: u8, b: u8, target: u32) = (17, a, b, 0, target);
        jeq(a: u8, b: u8, target: u32) = (18, a, b, 0, target);
        jnz(a: u8, target: u32) = (19, a, 0, 0, target);
        halt(a: u8) = (20, a, 0, 0, 0);
        submit(template: u32) = (32, 0, 0, 0, template);
        enqueue(template: u32, a: u8) = (33, a, 0, 0, template);
        wait(n: u32) = (40, 0, 0, 0, n);
        result(a: u8) = (41, a, 0, 0, 0);
        event(a: u8) = (48, a, 0, 0, 0);
        time(a: u8) = (49, a, 0, 0, 0);
    }
    /// Adds the micro-ops of `text`, one a line or each ended by `;`: the
    /// method's name, then its operands in its order, split by commas
    /// (`set r1, 0x10; enqueue t0, r1; jlt r0, r1, 2`). A register is `rN`, a
    /// template `tN`, a number decimal or `0x` hex, `_` allowed.
    pub fn code(&mut self, text: &str) -> &mut Up {
        for line in text
            .split([';', '\n'])
            .map(str::trim)
            .filter(|l| !l.is_empty())
        {
            let (name, rest) = line.split_once(' ').unwrap_or((line, ""));
            let operands: Vec<u32> = rest
                .split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(|o| {
                    number(o.trim_start_matches(['r', 't']))
                        .unwrap_or_else(|| panic!("{line:?}: operand {o:?}"))
                })
                .collect();
            self.named(name, &operands);
        }
        self
    }
    /// Adds a template; returns its index.
    pub fn template(&mut self, t: Tpl) -> u32 {
        self.templates.push(t.bytes());
        self.templates.len() as u32 - 1
    }
    pub fn raw_template(&mut self, b: [u8; 80]) -> u32 {
        self.templates.push(b);
        self.templates.len() as u32 - 1
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let words = [
            self.magic,
            self.version,
            self.op_count.unwrap_or(self.ops.len() as u32),
            self.command_count.unwrap_or(self.templates.len() as u32),
            self.max_steps,
            self.deadline_us,
            self.req,
            self.seed,
        ];
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.resize(64, 0);
        for o in &self.ops {
            out.extend_from_slice(o);
        }
        pad(&mut out);
        for t in &self.templates {
            out.extend_from_slice(t);
        }
        pad(&mut out);
        out
    }
}

/// An upload of `templates` (`t0`, `t1`, ... in order) and the micro-ops of
/// `code` (see [`Up::code`]).
pub fn up(templates: impl IntoIterator<Item = Tpl>, code: &str) -> Up {
    let mut u = Up::new();
    for t in templates {
        u.template(t);
    }
    u.code(code);
    u
}

fn number(text: &str) -> Option<u32> {
    let text = text.replace('_', "");
    match text.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn pad(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(64) {
        v.push(0);
    }
}
