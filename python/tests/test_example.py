"""The specification's example (docs/spec.md "The builder"), verbatim."""

from kmst import KM_EVENT_STREAM_END, Stream, simulate


def build():
    # --- docs/spec.md, word for word ---
    HANDLER_MAP = 3
    stream = Stream(deadline_microseconds=200_000, max_steps=100_000, seed=1, req=1)
    job, count = stream.registers(2)
    top = stream.label()
    stream.rand(count)
    stream.mod(count, count, stream.const(119))
    stream.addi(count, count, 1)
    stream.enqueue(HANDLER_MAP, count=count, args=[job, 77])
    stream.addi(job, job, 1)
    stream.jlt(job, stream.const(1000), top)
    stream.wait(0)
    stream.halt(stream.const(0))
    upload = stream.encode()
    # ---
    return stream, upload


def xorshift(x):
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def test_thousand_jobs_end_with_every_count_from_1_to_119():
    stream, upload = build()
    result = simulate(upload, core_count=119, delay=0)
    # "This submits 1,000 jobs, each on a random number of cores from 1 to 119,
    # and ends when all are done."
    assert result.status == "ended"
    assert result.halt == 0 and result.error is None and not result.stopped
    assert len(result.commands) == 1000
    assert all(c.queued and c.handler == 3 for c in result.commands)
    counts = [c.count for c in result.commands]
    assert min(counts) >= 1 and max(counts) <= 119
    # One END event with the stream's req and the halt value.
    [end] = result.events
    assert (end.kind, end.req, end.auxiliary) == (KM_EVENT_STREAM_END, 1, 0)
    assert result.passes == end.pass_index + 1


def test_thousand_jobs_carry_the_generator_and_the_job_number():
    # Each job's count is RAND % 119 + 1 with r15 starting at the seed (1),
    # and its args are [job, 77] as ENQUEUE ran: job numbers 0..999 in
    # queue order. The queue can run jobs out of order (a job that does not
    # fit does not block those behind it), so compare by job number.
    _, upload = build()
    result = simulate(upload)
    x, expected = 1, {}
    for job in range(1000):
        x = xorshift(x)
        expected[job] = x % 119 + 1
    got = {c.args[0]: c.count for c in result.commands}
    assert got == expected
    assert all(c.args[1:] == [77] + [0] * 8 for c in result.commands)
    assert [c.sequence for c in result.commands] == list(range(1000))


def test_layout_of_the_example():
    # S8: constants 119, 1000, 0 (first asked for in that order) are a prologue
    # of three SETs, so the body starts at pc 3: rand(3) mod(4) addi(5)
    # enqueue(6) addi(7) jlt(8) wait(9) halt(10): 11 micro-ops, one template.
    _, upload = build()
    words = [int.from_bytes(upload[i : i + 4], "little") for i in range(0, 32, 4)]
    assert words == [0x4B4D5354, 1, 11, 1, 100_000, 200_000, 1, 1]
    # 64 + pad64(11 * 16) + pad64(80) = 64 + 192 + 128
    assert len(upload) == 384
    result = simulate(upload)
    assert {c.pc for c in result.commands} == {6}


def test_the_delay_closure_of_the_specification():
    stream, _ = build()
    result = stream.simulate(delay=lambda command: 1 + command.sequence % 3)
    same = stream.simulate(delay=("cycle", 1, 3))
    assert result == same
    assert result.status == "ended" and len(result.commands) == 1000
