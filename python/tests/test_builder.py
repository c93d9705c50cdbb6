"""The builder (docs/spec.md "The builder", S7..S9, P4): layouts worked out
by hand from the upload table, and every error naming its field and value."""

import struct

import pytest

from kmst import BuildError, Register, Stream, check

BIG = 1 << 32


def stream():
    return Stream(deadline_microseconds=0, max_steps=100, seed=1, req=0)


def header(op_count, command_count, max_steps=100, deadline=0, req=0, seed=1):
    return struct.pack("<8I", 0x4B4D5354, 1, op_count, command_count, max_steps, deadline, req, seed) + bytes(32)


def op(code, a=0, b=0, c=0, imm=0):
    return struct.pack("<4BI", code, a, b, c, imm & 0xFFFFFFFF) + bytes(8)


def pad(data):
    return data + bytes(-len(data) % 64)


def test_registers_and_constants_share_one_pool():
    # S7: r0..r14, lowest free first; equal constants share one register.
    s = stream()
    a, b = s.registers(2)
    assert isinstance(a, Register) and (a.number, b.number) == (0, 1)
    assert s.const(5).number == 2
    assert s.const(5) == s.const(5)
    assert s.const(-1).number == 3
    [c] = s.registers(1)
    assert c.number == 4
    assert a != b and len({a, b, a}) == 2
    assert repr(a) == "Register(0)"


def test_prologue_body_and_jumps_by_hand():
    # S8: const(7) then const(1) become SET r1,7; SET r2,1 before the body;
    # the label counts from the start of the upload, so it is micro-op 2.
    s = stream()
    [x] = s.registers(1)
    top = s.label()
    s.addi(x, x, s.const(7).number)  # an immediate of 1 (r1's number)
    s.sub(x, x, s.const(1))
    s.jnz(x, top)
    s.halt(x)
    expected = header(6, 0) + pad(
        op(1, 1, imm=7)  # SET r1, 7
        + op(1, 2, imm=1)  # SET r2, 1
        + op(4, 0, 0, imm=1)  # ADDI r0, r0, 1
        + op(5, 0, 0, 2)  # SUB r0, r0, r2
        + op(19, 0, imm=2)  # JNZ r0, 2
        + op(20, 0)  # HALT r0
    )
    assert s.encode() == expected
    assert check(expected) is None


def test_templates_by_hand():
    # S9: one template per call; register args become patches in ascending
    # argument order; an integer group goes into the command with 0xFF group
    # registers; an enqueue with an integer count uses const(count).
    s = stream()
    r, first = s.registers(2)
    s.submit(9, group=(first, 4), args=[1, r, 3, r], exclusive=True, result=True)
    s.enqueue(10, 8, args=[r])
    s.halt(r)
    ops = op(1, 2, imm=8) + op(32, imm=0) + op(33, 2, imm=1) + op(20, 0)
    cmd0 = struct.pack("<BBHIIHH10I", 9, 0b110, 0, 0, 0, 0, 4, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0) + bytes(8)
    t0 = cmd0 + bytes([1, 3, 0, 0]) + bytes([0, 0, 0, 0]) + bytes([1, 0xFF, 2]) + bytes(5)
    cmd1 = struct.pack("<BBHIIHH10I", 10, 0, 0, 0, 0, 0, 0, *([0] * 10)) + bytes(8)
    t1 = cmd1 + bytes([0, 0, 0, 0]) + bytes([0, 0, 0, 0]) + bytes([0xFF, 0xFF, 1]) + bytes(5)
    assert s.encode() == header(4, 2) + pad(ops) + pad(t0 + t1)


def raises(field, value, call, *args, **kwargs):
    with pytest.raises(BuildError) as info:
        call(*args, **kwargs)
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.field, e.value) == (field, value)
    assert str(value) in str(e)
    return e


def test_header_fields_out_of_range():
    raises("max_steps", 0, Stream, 0, 0, 1, 0)
    raises("max_steps", BIG, Stream, 0, BIG, 1, 0)
    raises("seed", 0, Stream, 0, 1, 0, 0)
    raises("seed", BIG, Stream, 0, 1, BIG, 0)
    raises("seed", -5, Stream, 0, 1, -5, 0)
    raises("req", BIG, Stream, 0, 1, 1, BIG)
    raises("req", -1, Stream, 0, 1, 1, -1)
    raises("deadline_microseconds", BIG, Stream, BIG, 1, 1, 0)
    raises("deadline_microseconds", 1 << 80, Stream, 1 << 80, 1, 1, 0)
    e = raises("seed", 0, Stream, deadline_microseconds=0, max_steps=1, seed=0, req=0)
    assert str(e) == "seed 0 is out of range 1..=4294967295"
    Stream(BIG - 1, BIG - 1, BIG - 1, BIG - 1)  # the extremes are fine


def test_wait_count():
    s = stream()
    raises("wait count", -1, s.wait, -1)
    raises("wait count", BIG, s.wait, BIG)
    s.wait(BIG - 1)


def test_immediates_and_constants_fit_32_bits():
    s = stream()
    [r] = s.registers(1)
    raises("set immediate", BIG, s.set, r, BIG)
    raises("addi immediate", -(1 << 31) - 1, s.addi, r, r, -(1 << 31) - 1)
    raises("shr immediate", 1 << 100, s.shr, r, r, 1 << 100)
    raises("constant", BIG, s.const, BIG)
    s.set(r, -(1 << 31))
    s.addi(r, r, BIG - 1)


def test_register_pool():
    s = stream()
    e = raises("registers", 16, s.registers, 16)
    assert e.free == 15 and "asked for 16 registers but 15 are free" in str(e)
    s.registers(14)
    s.const(1)
    e = raises("registers", 1, s.const, 2)
    assert e.free == 0
    assert s.const(1).number == 14  # an existing constant needs no register


def test_command_fields():
    s = stream()
    r = s.registers(5)
    raises("handler", 0, s.submit, 0, group=(0, 1))
    raises("handler", 240, s.enqueue, 240, 1)
    raises("args", 11, s.submit, 1, group=(0, 1), args=[0] * 11)
    raises("register args", 5, s.submit, 1, group=(0, 1), args=r)
    raises("args[2]", BIG, s.submit, 1, group=(0, 1), args=[0, r[0], BIG])
    raises("args[0]", -(1 << 40), s.enqueue, 1, 1, args=[-(1 << 40)])
    raises("group first", 65536, s.submit, 1, group=(65536, 1))
    raises("group count", -1, s.submit, 1, group=(0, -1))
    raises("count", BIG, s.enqueue, 1, BIG)
    s.submit(239, group=(65535, r[0]), args=[BIG - 1, -(1 << 31)] + r[:4] + [0] * 4)


def test_program_size():
    with pytest.raises(BuildError, match="no micro-op") as info:
        stream().encode()
    assert info.value.field == "micro-ops"
    s = stream()
    [r] = s.registers(1)
    for _ in range(65535):
        s.mov(r, r)
    s.encode()
    s.halt(r)
    raises("micro-ops", 65536, s.encode)


def test_labels():
    s = stream()
    [r] = s.registers(1)
    later = s.forward()
    s.jmp(later)
    s.halt(r)
    raises("label", 0, s.encode)  # made by forward, never bound
    s.bind(later)
    raises("label", 0, s.encode)  # bound at the end: a jump there is out of range
    raises("label", 0, s.bind, later)  # bound twice
    here = s.label()
    raises("label", 1, s.bind, here)  # label() is already bound
    other = stream()
    raises("label", 0, other.jmp, stream().label())  # another stream's
    with pytest.raises(TypeError):
        s.jmp(r)


def test_operand_types():
    s = stream()
    [r] = s.registers(1)
    with pytest.raises(TypeError):
        s.add(r, r, 1)
    with pytest.raises(TypeError):
        s.submit(1, group=(0, "1"))
    with pytest.raises(TypeError):
        s.submit(1, group=[0, 1, 2])
    with pytest.raises(TypeError):
        s.set(r, True)
    with pytest.raises(TypeError):
        Stream(0, 1, 1.5, 0)


def test_every_micro_op_method():
    # One method per micro-op, `and_` for AND; the opcode numbers of docs/spec.md.
    s = stream()
    a, b, c = s.registers(3)
    top = s.label()
    calls = [
        (s.set, (a, 1), 1), (s.mov, (a, b), 2), (s.add, (a, b, c), 3), (s.addi, (a, b, 1), 4),
        (s.sub, (a, b, c), 5), (s.mul, (a, b, c), 6), (s.and_, (a, b, c), 7), (s.shr, (a, b, 1), 8),
        (getattr(s, "mod"), (a, b, c), 9), (s.rand, (a,), 10), (s.jmp, (top,), 16),
        (s.jlt, (a, b, top), 17), (s.jeq, (a, b, top), 18), (s.jnz, (a, top), 19),
        (s.halt, (a,), 20), (s.wait, (0,), 40), (s.result, (a,), 41), (s.event, (a,), 48),
        (s.time, (a,), 49),
    ]
    for method, args, _ in calls:
        method(*args)
    s.submit(1, group=(0, 1))
    s.enqueue(1, 1)
    data = s.encode()
    codes = [data[64 + 16 * i] for i in range(len(calls) + 3)]
    # the enqueue's const(1) is the prologue's only SET
    assert codes == [1] + [code for _, _, code in calls] + [32, 33]
