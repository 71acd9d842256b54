"""The protocol between the unit and the phones (unit/core/protocol.py) and the view codec (unit/core/views.py).

Both ends import the same module; these tests need neither the web extra nor a socket: the codec
round-trips every view, a malformed view or record is refused (never raised), and the snapshot the
link greets a client with is the one the web service folds from the same lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unit.app.pairing import CODE_SECONDS, CODE_TRIES, MAX_CODES, PAIRING_FILE, Checked, Pairing, Verdict
from unit.core import Button, views
from unit.core.menu import MenuItem
from unit.core.protocol import (
    BAD_PHONE,
    BAD_SESSION,
    NOT_ONE_OBJECT,
    SESSION_CHARS,
    BadLine,
    BuildRecord,
    ChangeSettings,
    CheckCode,
    ErrorRecord,
    LedRecord,
    NotResumedRecord,
    PairedRecord,
    PairingRecord,
    Press,
    Release,
    RequestCode,
    ResumeRecord,
    ScreenRecord,
    SettingsRecord,
    ShowPhone,
    Snapshot,
    SoundRecord,
    StateRecord,
    fold,
    message_from,
    read_message,
    read_record,
)
from unit.core.settings import BUILD_RESULTS

# --- the view codec --------------------------------------------------------------------------------

ints = st.integers(-(10**6), 10**6)
numbers = st.one_of(ints, st.floats(allow_nan=False, allow_infinity=False))
texts = st.text(max_size=12)
text_tuples = st.lists(texts, max_size=4).map(tuple)
addresses = st.none() | st.builds(views.PhoneAddress, text_tuples, text_tuples)
#: Every kind of view, with any field values its type allows (not only those the core makes).
VIEWS = st.one_of(
    st.just(views.Off()),
    st.builds(views.Ready, ints, st.booleans(), st.none() | numbers),
    st.builds(views.Countdown, ints, numbers, st.booleans()),
    st.builds(views.Banner, st.sampled_from(views.BannerKind), ints),
    st.builds(views.Build, ints, st.sampled_from((None, *BUILD_RESULTS)), st.booleans()),
    st.just(views.TimeUp()),
    st.just(views.Shutdown()),
    st.builds(views.Welcome, numbers, st.booleans()),
    st.just(views.Confirm()),
    st.builds(views.Menu, st.sampled_from(MenuItem), st.none() | numbers | texts, ints, ints, st.booleans()),
    st.builds(views.Summary, st.sampled_from(views.SummaryPage), ints, ints, ints, st.lists(ints).map(tuple), ints),
    st.builds(views.Phone, addresses, st.sampled_from(views.PhonePage)),
    st.builds(views.Pairing, texts),
)


def over_the_wire(data: object) -> object:
    return json.loads(json.dumps(data, ensure_ascii=False))


def test_every_kind_of_view_has_a_sample():
    """So that the round trip below covers every kind (the property test covers every field value)."""
    kinds = set(get_args(views.View))
    assert {type(view) for view in views.SAMPLES.values()} == kinds


@pytest.mark.parametrize("name", sorted(views.SAMPLES))
def test_every_sample_view_comes_back_from_json_as_it_went(name):
    view = views.SAMPLES[name]
    assert views.decode(over_the_wire(views.encode(view))) == view


def test_the_wire_names_a_view_by_its_class_and_carries_what_is_visible():
    assert views.encode(views.Countdown(5, 50, warning=True)) == {
        "name": "countdown",
        "seconds_left": 5,
        "total": 50,
        "warning": True,
    }
    assert views.encode(views.Banner(views.BannerKind.HOUR, 2)) == {"name": "banner", "kind": "hour", "value": 2}
    assert views.encode(views.Phone(views.PhoneAddress(("a:80",), ("01", "10")))) == {
        "name": "phone",
        "address": {"lines": ["a:80"], "qr": ["01", "10"]},
        "page": "text",
    }


@given(VIEWS)
def test_any_view_comes_back_from_json_as_it_went(view):
    assert views.decode(over_the_wire(views.encode(view))) == view


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "countdown",
        {},
        {"name": "../etc"},
        {"name": "countdown", "seconds_left": "5", "total": 50},  # a wrong type
        {"name": "countdown", "seconds_left": True, "total": 50},  # a bool is not a number here
        {"name": "countdown", "seconds_left": 5, "total": 50, "colour": "red"},  # a field it does not have
        {"name": "countdown"},  # fields without a default missing
        {"name": "banner", "kind": "fireworks"},
        {"name": "build", "highlight": 0, "result": 4},
        {"name": "build", "highlight": 0, "result": True},
        {"name": "phone", "address": {"lines": "a"}},
        {"name": "phone", "address": {"lines": ["a"], "qr": [1]}},
        {"name": "summary", "page": "played", "builds": [1, "2"]},
        {"name": "menu", "item": "volume", "value": None, "position": 1, "count": 6},
    ],
)
def test_a_view_that_is_not_one_is_refused_not_raised(data):
    assert views.decode(data) is None


JSON = st.recursive(
    st.none() | st.booleans() | ints | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@given(st.sampled_from([cls.__name__.lower() for cls in get_args(views.View)]), st.dictionaries(texts, JSON))
def test_decoding_anything_gives_a_view_or_none(name, fields):
    view = views.decode({"name": name, **fields})
    assert view is None or isinstance(view, get_args(views.View))


def test_the_codec_runs_without_the_web_extra():
    """The core's codec and protocol import no web library: here with starlette and jinja2 made unimportable."""
    code = (
        "import sys, json; sys.modules.update(starlette=None, jinja2=None, segno=None, uvicorn=None)\n"
        "from unit.core import views, protocol\n"
        "assert all(views.decode(json.loads(json.dumps(views.encode(v)))) == v for v in views.SAMPLES.values())\n"
        "print(sorted(m for m in sys.modules if m.startswith('unit')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not [m for m in eval(done.stdout) if m.startswith(("unit.app", "unit.web", "unit.backends"))]


# --- records ------------------------------------------------------------------------------------------------

t = st.floats(0, 36000, allow_nan=False).map(lambda x: round(x, 3))
RECORDS = st.one_of(
    st.builds(StateRecord, t, st.sampled_from(["off", "ready", "countdown", "warning", "build", "time_up"])),
    st.builds(LedRecord, t, st.just("blink"), st.sampled_from([1.0, 4.0])),
    st.builds(LedRecord, t, st.sampled_from(["off", "on"])),
    st.builds(SoundRecord, t, st.just("tick"), st.lists(st.tuples(ints, ints), max_size=3).map(tuple)),
    st.builds(ScreenRecord, t, texts, st.none() | VIEWS),
    st.builds(BuildRecord, t, st.sampled_from(BUILD_RESULTS)),
    st.builds(SettingsRecord, t, st.none() | st.just({"language": "fr"}), st.none() | st.booleans()),
    st.builds(SettingsRecord, t, settings=st.dictionaries(st.just("game.minutes"), st.none() | ints, min_size=1)),
    st.builds(ResumeRecord, t, t),
    st.builds(NotResumedRecord, t, st.sampled_from(["over", "too_long"]), st.none() | t),
    st.builds(PairingRecord, st.text("0123456789abcdef", min_size=16, max_size=16), st.none() | st.just(True)),
    st.builds(PairedRecord, texts, st.booleans()),
    st.builds(ErrorRecord, texts, st.none() | st.just("phone")),
)


@given(RECORDS)
def test_any_record_comes_back_from_its_line_as_it_went(record):
    assert read_record(json.loads(record.line())) == record


def test_the_trace_records_keep_their_documented_shape():
    """docs/simulate.md: ``t`` first, then ``kind``; ``hz`` only with a blink; ``view`` only from the link."""
    assert LedRecord(10.0, "blink", 1.0).line() == b'{"t": 10.0, "kind": "led", "mode": "blink", "hz": 1.0}\n'
    assert LedRecord(55.0, "off").line() == b'{"t": 55.0, "kind": "led", "mode": "off"}\n'
    assert ScreenRecord(5.0, "ENCHÈRES 50").line() == '{"t": 5.0, "kind": "screen", "text": "ENCHÈRES 50"}\n'.encode()
    assert SoundRecord(51.0, "tick", ((2637, 30),)).data()["tones"] == [[2637, 30]]
    assert NotResumedRecord(0.0, "over", None).data() == {
        "t": 0.0,
        "kind": "not_resumed",
        "reason": "over",
        "off_minutes": None,
    }
    assert PairedRecord("a", False).data() == {"kind": "paired", "id": "a", "ok": False}


@given(st.lists(RECORDS, max_size=30))
def test_the_link_and_the_web_service_fold_the_same_snapshot(records):
    """The link folds typed records and greets a client with the result; the web service folds the lines:
    the two snapshots are one."""
    link = Snapshot(options={"language": ("fr", "en")})
    hub = read_record(json.loads(link.line()))
    assert isinstance(hub, Snapshot)
    for record in records:
        link = fold(link, record)
        read = read_record(json.loads(record.line()))
        assert read is not None
        hub = fold(hub, read)
    assert hub == link
    assert read_record(json.loads(link.line())) == link  # a snapshot taken later says the same


def test_the_fold_keeps_the_game_clock_under_a_countdown():
    clock = views.Ready(3540, True, 60)
    snapshot = fold(Snapshot(), ScreenRecord(1.0, "RESTE 59 min", clock))
    snapshot = fold(snapshot, ScreenRecord(2.0, "ENCHÈRES 50", views.Countdown(50, 50)))
    assert snapshot.clock == clock and snapshot.screen.view == views.Countdown(50, 50) and snapshot.t == 2.0
    assert fold(snapshot, SettingsRecord(3.0, {"language": "en"}, False)).settings is None  # only the link's settings


def test_a_snapshot_without_the_unit_says_only_that():
    assert Snapshot(unit=False).data() == {"kind": "snapshot", "unit": False}


# --- messages -----------------------------------------------------------------------------------------------

MESSAGES = st.one_of(
    st.builds(Press, st.sampled_from(Button)),
    st.builds(Release, st.sampled_from(Button)),
    st.builds(ChangeSettings, st.dictionaries(texts, st.none() | ints | texts, max_size=3)),
    st.builds(RequestCode, st.none() | st.text(min_size=1, max_size=SESSION_CHARS)),
    st.builds(
        CheckCode,
        st.none() | st.text("0123456789", max_size=6),
        st.text(max_size=64),
        st.none() | st.text(min_size=1, max_size=SESSION_CHARS),
    ),
    st.builds(ShowPhone, st.lists(st.text("abc.:0123", min_size=1, max_size=48), min_size=1, max_size=3).map(tuple)),
)


@given(MESSAGES)
def test_any_message_comes_back_from_its_line_as_it_went(message):
    assert read_message(message.line()) == message


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        (b"not json", NOT_ONE_OBJECT),
        (b"[" * 2000 + b"]" * 2000, NOT_ONE_OBJECT),
        (b'{"press": "auction", "release": "auction"}', NOT_ONE_OBJECT),
        (b'{"press": "self-destruct"}', BadLine("unknown message 'press'")),
        (b'{"pair": 7}', BadLine("unknown message 'pair'")),
        (b'{"phone": {"lines": []}}', BAD_PHONE),
        (b'{"phone": {"lines": ["a"], "qr": ["01"]}}', BAD_PHONE),  # not square
        (b'{"pair": {"request": true, "session": 7}}', BAD_SESSION),
        (b'{"pair": {"code": "1", "id": "a", "session": ""}}', BAD_SESSION),
        (b'{"pair": {"request": true, "session": "' + b"s" * 65 + b'"}}', BAD_SESSION),
    ],
)
def test_a_line_that_is_no_message_is_refused_with_its_reason(line, refused):
    assert read_message(line) == refused


def test_the_messages_of_docs_phone_md():
    assert message_from({"press": "auction"}) == Press(Button.AUCTION)
    assert message_from({"pair": {"code": 123456, "id": "x" * 100}}) == CheckCode(None, "x" * 64)
    assert Press(Button.AUCTION).line() == b'{"press": "auction"}\n'
    assert CheckCode("042917", "a").data() == {"pair": {"code": "042917", "id": "a"}}


def test_pairing_messages_name_the_session_without_bending_the_old_ones():
    """The session was added to the wire: an old line keeps its meaning (the sessionless code)."""
    assert RequestCode().data() == {"pair": "request"} and message_from({"pair": "request"}) == RequestCode()
    assert RequestCode("s1").data() == {"pair": {"request": True, "session": "s1"}}
    assert message_from({"pair": {"request": True, "session": "s1"}}) == RequestCode("s1")
    assert CheckCode("042917", "a", "s1").data() == {"pair": {"code": "042917", "id": "a", "session": "s1"}}
    assert message_from({"pair": {"code": "042917", "id": "a"}}) == CheckCode("042917", "a", None)


# --- pairing, on a clock the test drives --------------------------------------------------------------------


def test_a_code_is_right_once_within_its_time_and_void_after_the_tries(tmp_path):
    pairing = Pairing(tmp_path)
    code = pairing.new_code(now=100.0)
    wrong = "000000" if code != "000000" else "111111"
    assert pairing.check(wrong, 100.0) == Verdict.WRONG and pairing.code_pending
    assert pairing.check(code, 100.0 + CODE_SECONDS - 0.001) == Verdict.RIGHT
    assert pairing.check(code, 101.0) == Verdict.NONE  # one phone per code
    code = pairing.new_code(now=200.0)
    assert pairing.check(code, 200.0 + CODE_SECONDS) == Verdict.NONE  # expired at exactly its end
    code = pairing.new_code(now=300.0)
    verdicts = [pairing.check(None, 300.0) for _ in range(CODE_TRIES)]
    assert verdicts == [Verdict.WRONG] * (CODE_TRIES - 1) + [Verdict.VOID]
    assert pairing.check(code, 300.0) == Verdict.NONE and not pairing.code_pending


def test_a_code_belongs_to_the_session_that_asked_for_it(tmp_path):
    """Strangers' wrong tries and strangers' own codes neither void nor replace the banker's code."""
    pairing = Pairing(tmp_path)
    banker = pairing.new_code(now=0.0, session="banker")
    for n in range(50):  # fifty strangers, each with its own code, and each trying the banker's way
        pairing.new_code(now=1.0, session=f"stranger{n}")
        for _ in range(CODE_TRIES):
            assert pairing.check(banker, 1.0, session=f"nobody{n}") == Verdict.NONE  # no code of its own
            assert pairing.check("x", 1.0, session=f"stranger{n}") in (Verdict.WRONG, Verdict.VOID)
    assert pairing.check(banker, 2.0, session="stranger0") == Verdict.NONE  # voided by its own tries
    assert pairing.check(banker, 2.0, session="banker") == Verdict.RIGHT


def test_only_the_end_of_the_code_on_the_screen_takes_it_off(tmp_path):
    pairing = Pairing(tmp_path)
    first = pairing.new_code(now=0.0, session="a")
    shown = pairing.new_code(now=1.0, session="b")  # the newest is on the screen
    assert pairing.attempt(first, 2.0, session="a") == Checked(Verdict.RIGHT, on_screen=False)
    tries = [pairing.attempt(None, 2.0, session="b") for _ in range(CODE_TRIES)]
    assert [t.hides_code for t in tries] == [False] * (CODE_TRIES - 1) + [True]
    assert pairing.check(shown, 2.0, session="b") == Verdict.NONE


def test_the_unit_keeps_a_bounded_number_of_codes(tmp_path):
    pairing = Pairing(tmp_path)
    codes = {f"s{n}": pairing.new_code(now=float(n), session=f"s{n}") for n in range(MAX_CODES + 5)}
    assert pairing.check(codes["s0"], 100.0, session="s0") == Verdict.NONE  # the oldest went first
    last = f"s{MAX_CODES + 4}"
    assert pairing.check(codes[last], 100.0, session=last) == Verdict.RIGHT


def test_the_generation_is_kept_renewed_and_survives_a_bad_file(tmp_path):
    first = Pairing(tmp_path).generation
    assert Pairing(tmp_path).generation == first  # a restart keeps the phones paired
    renewed = Pairing(tmp_path).renew()
    assert renewed != first and Pairing(tmp_path).generation == renewed
    assert not list(tmp_path.glob(".*.tmp"))  # written through unit/files.py, nothing left behind
    (tmp_path / PAIRING_FILE).write_text("[" * 100_000)
    assert len(Pairing(tmp_path).generation) == 16  # a new one, no traceback


def test_a_fifo_in_place_of_the_pairing_file_does_not_hold_the_start(tmp_path: Path):
    import os

    os.mkfifo(tmp_path / PAIRING_FILE)
    assert len(Pairing(tmp_path).generation) == 16
