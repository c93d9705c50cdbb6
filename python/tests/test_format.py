"""encode/decode (S10), the check and check_run (docs/spec.md "The check", S3, S6)."""

import json

import pytest

from conftest import STREAMS
from kmst import Stream, StreamError, StreamFormatError, check, check_run


def sample():
    s = Stream(deadline_microseconds=7, max_steps=1000, seed=3, req=9)
    a, b = s.registers(2)
    top = s.label()
    s.rand(a)
    s.and_(a, a, s.const(15))
    s.submit(4, group=(a, 2), args=[b, 1, 2], result=True)
    s.addi(b, b, 1)
    s.jlt(b, s.const(20), top)
    s.wait(0)
    s.halt(b)
    return s


def test_decode_of_encode_gives_back_the_stream():
    s = sample()
    data = s.encode()
    d = Stream.decode(data)
    assert d == s
    assert d.encode() == data
    assert (d.deadline_microseconds, d.max_steps, d.seed, d.req) == (7, 1000, 3, 9)
    assert Stream.decode(bytearray(data)).encode() == data
    assert Stream.decode(memoryview(data)).encode() == data
    assert d.simulate() == s.simulate()


def test_a_decoded_stream_takes_no_more_micro_ops():
    d = Stream.decode(sample().encode())
    with pytest.raises(TypeError):
        d.registers(1)


def corpus():
    for answer in sorted(STREAMS.glob("*.json")):
        yield answer.stem, (STREAMS / (answer.stem + ".bin")).read_bytes(), json.loads(answer.read_text())


def test_corpus_uploads_round_trip_or_raise_the_checks_error():
    # decode checks the upload on its own (a region as large as the data).
    accepted = equal = rejected = 0
    for name, data, answer in corpus():
        verdict = check(data, len(data))
        if verdict is None:
            again = Stream.decode(data).encode()
            # encode(decode(d)) == d when every ignored byte is zero (S10);
            # in any case the re-encoding decodes to itself and passes the check.
            assert Stream.decode(again).encode() == again, name
            assert check(again, len(again)) is None, name
            accepted += 1
            equal += again == data
        else:
            with pytest.raises(StreamFormatError) as info:
                Stream.decode(data)
            e = info.value
            assert isinstance(e, ValueError)
            assert (e.reason, e.pc) == (verdict.reason, verdict.pc), name
            assert e.error == verdict
            rejected += 1
            if answer["params"]["region_size"] >= len(data):
                assert answer["check"] == {"reason": e.reason, "pc": e.pc}, name
    assert accepted > 100 and rejected > 30 and equal > accepted // 2


def test_check_answers_the_saved_check():
    for name, data, answer in corpus():
        region = answer["params"]["region_size"]
        want = answer["check"]
        got = check(data, region)
        if want is None:
            assert got is None, name
        else:
            assert got == StreamError(want["reason"], want["pc"]), name
            assert (got.reason, got.pc) == (want["reason"], want["pc"])


def test_check_run_answers_the_saved_cases():
    n = 0
    for name, data, answer in corpus():
        for case in answer.get("check_run", []):
            error, req = check_run(
                data,
                case["offset"],
                case["region_size"],
                active=[tuple(r) for r in case["active"]],
                active_reqs=case["active_reqs"],
            )
            want = case["error"]
            assert req == case["req"], name
            assert error == (None if want is None else StreamError(want["reason"], want["pc"])), name
            n += 1
    assert n >= 4


def test_check_run_by_hand():
    data = sample().encode()  # req 9, 448 bytes
    assert check_run(data, 0, 4096) == (None, 9)
    # S6 order: alignment, range, overlap, active req, then the check.
    assert check_run(data, 32, 4096) == (StreamError(1, 0), 9)
    assert check_run(data, 4096 - 64, 4096) == (StreamError(1, 0), 9)
    assert check_run(data, 0, 4096, active=[(64, 64)]) == (StreamError(1, 0), 9)
    assert check_run(data, 0, 4096, active=[(0, 0)]) == (None, 9)
    assert check_run(data, 0, 4096, active_reqs=[9]) == (StreamError(1, 0), 9)
    # S3: the header outside the region gives req 0.
    assert check_run(data, 4096, 4096) == (StreamError(1, 0), 0)
    with pytest.raises(ValueError):
        check_run(data, -1, 4096)


def test_stream_error_values():
    e = StreamError(7, 3)
    assert (e.reason, e.pc) == (7, 3)
    assert e == StreamError(reason=7, pc=3) and e != StreamError(7, 4)
    assert hash(e) == hash(StreamError(7, 3))
    assert repr(e) == "StreamError(reason=7, pc=3)"
    assert e.description == "MOD by zero"
    with pytest.raises(ValueError):
        StreamError(12, 0)
