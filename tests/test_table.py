"""The unit at the table (issue 11): the welcome screen, dimming, « ÉTEINDRE ? », the resume policy,
the settings menu and its saved file, the evening's summary, and the old traces kept.

Everything on the virtual clock through the ``simulate`` trace, except the runtime's own duties
(resuming, saving the settings), which run on a fake clock with real files.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from helpers import kinds, simulate_records, times

from unit.app import config as configuration
from unit.app.persist import Clocks, GameStore
from unit.app.runtime import Runtime
from unit.app.settings import FILENAME, SettingsStore
from unit.app.trace import TraceWriter
from unit.backends.base import Backend
from unit.cli import main
from unit.core import Pressed, Released, Unit
from unit.core.evening import Tally
from unit.core.menu import Choices

POWER_ON = {"at": 0, "press": "power"}
COMPAT = Path(__file__).parent / "data" / "compat"


def states(records):
    return [(r["t"], r["state"]) for r in kinds(records, "state")]


def screens(records):
    return [(r["t"], r["text"]) for r in kinds(records, "screen")]


# --- the welcome screen, dimming, the pixel shift --------------------------------------------


def test_the_program_starts_on_the_welcome_screen_with_a_chime():
    records = simulate_records(5, [])
    assert records[0] == {
        "t": 0.0,
        "kind": "screen",
        "text": "MONOPOLY CITY · ON/OFF : jouer · ENCHÈRES 2 s : réglages",
    }
    assert records[1]["kind"] == "sound" and records[1]["name"] == "welcome" and records[1]["t"] == 0.0
    assert states(records) == []  # still off


def test_the_screen_dims_when_untouched_and_a_press_wakes_it():
    records = simulate_records(1400, [POWER_ON, {"at": 700, "press": "auction"}], {"game": {"minutes": None}})
    assert [(r["t"], r["dimmed"]) for r in kinds(records, "display")][:2] == [(600.0, True), (700.0, False)]
    # The press that wakes the screen also does what it always does: the auction starts.
    assert (700.0, "countdown") in states(records)
    assert times(records, "display", dimmed=True) == [600.0, 1350.0]  # 10 min after the auction was sold


def test_the_welcome_screen_dims_too():
    records = simulate_records(700, [], {"display": {"dim_after_minutes": 5}})
    assert times(records, "display", dimmed=True) == [300.0]


def test_still_screens_move_by_a_pixel_and_countdowns_do_not():
    config = configuration.load(({"display": {"shift_minutes": 1}}, "test"))
    unit = Unit(config)
    unit.start(0.0)
    seen = []
    for t in (59.0, 60.0, 120.0, 180.0, 240.0):
        unit.advance(t)
        seen.append(unit.display.shift)
    assert seen == [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]
    unit.advance(300.0)
    assert unit.display.shift == (1, 0)
    unit.handle(Pressed("power"), 301.0)
    unit.handle(Released("power"), 301.1)
    unit.handle(Pressed("auction"), 302.0)
    assert unit.state == "countdown" and unit.display.shift == (0, 0)  # a short screen stays put
    unit.advance(320.0)
    assert unit.display.shift == (0, 0)


def test_no_idle_work_before_the_program_starts():
    unit = Unit(configuration.load())
    assert unit.next_deadline() is None
    unit.start(0.0)
    assert unit.next_deadline() == 180.0  # the first pixel shift: a wake-up every few minutes, no polling


# --- mistakes forgiven: « ÉTEINDRE ? » ---------------------------------------------------------


def test_power_during_a_game_asks_first_and_a_second_press_switches_off():
    records = simulate_records(30, [POWER_ON, {"at": 10, "press": "power"}, {"at": 12, "press": "power"}])
    assert states(records) == [(0.0, "ready"), (12.0, "off")]
    assert (10.0, "ÉTEINDRE ? · ON/OFF encore : oui") in screens(records)
    assert times(records, "sound", name="confirm") == [10.0]


def test_the_question_goes_away_and_the_game_goes_on():
    records = simulate_records(30, [POWER_ON, {"at": 10, "press": "power"}, {"at": 20, "press": "power"}])
    assert states(records) == [(0.0, "ready")]  # two questions, no OFF
    assert screens(records)[-2:] == [(20.0, "ÉTEINDRE ? · ON/OFF encore : oui"), (24.0, "RESTE 1h00 · PARTIE 1h00")]
    assert times(records, "sound", name="confirm") == [10.0, 20.0]


def test_another_button_keeps_the_game_and_does_its_job():
    events = [POWER_ON, {"at": 10, "press": "power"}, {"at": 11, "press": "auction"}, {"at": 12, "press": "power"}]
    records = simulate_records(30, events)
    assert states(records) == [(0.0, "ready"), (11.0, "countdown")]
    assert (11.0, "ENCHÈRES 50") in screens(records)
    assert times(records, "sound", name="confirm") == [10.0, 12.0]  # a fresh question, not a switch-off


def test_the_countdown_runs_on_under_the_question():
    events = [POWER_ON, {"at": 5, "press": "auction"}, {"at": 49, "press": "power"}]
    records = simulate_records(60, events)
    assert states(records) == [(0.0, "ready"), (5.0, "countdown"), (50.0, "warning"), (55.0, "ready")]
    shown = screens(records)
    assert (49.0, "ÉTEINDRE ? · ON/OFF encore : oui") in shown
    assert not [s for s in shown if 49.0 < s[0] < 53.0]  # the question stays up...
    assert (53.0, "ENCHÈRES 2 !") in shown  # ...then the countdown, where it has got to


def test_a_latching_switch_needs_no_question():
    config = {"power": {"control": "switch"}}
    records = simulate_records(20, [{"at": 0, "switch": "on"}, {"at": 10, "switch": "off"}], config)
    assert states(records) == [(0.0, "ready"), (10.0, "off")]
    assert times(records, "sound", name="confirm") == []


def test_game_over_needs_no_question():
    config = {"game": {"minutes": 1, "final_warning_minutes": 0}}
    records = simulate_records(100, [POWER_ON, {"at": 80, "press": "power"}], config)
    assert states(records) == [(0.0, "ready"), (60.0, "time_up"), (80.0, "off")]


def test_holding_power_through_the_question_still_shuts_down():
    records = simulate_records(20, [POWER_ON, {"at": 5, "hold": "power", "seconds": 4}])
    assert times(records, "system") == [8.0]


# --- the evening's summary ---------------------------------------------------------------------


EVENING = [
    POWER_ON,
    {"at": 5, "press": "auction"},  # sold at 55
    {"at": 60, "press": "auction"},  # sold at 110
    {"at": 115, "press": "auction"},
    {"at": 120, "hold": "auction", "seconds": 2},  # cancelled at 122
    {"at": 130, "press": "build"},
    {"at": 135, "press": "build"},  # the same result again: not a new draw
    {"at": 150, "press": "auction"},  # sold at 200
]


def test_the_summary_follows_the_end_of_the_game():
    config = {"game": {"minutes": 4, "final_warning_minutes": 0}}
    records = simulate_records(300, EVENING, config, seed=1)
    drawn = kinds(records, "build")
    assert len(drawn) == 1
    station = {1: "1", 2: "2", 3: "3", "station": "GARE"}
    builds = " ".join(f"{station[r]}×{int(r == drawn[0]['result'])}" for r in (1, 2, 3, "station"))
    assert screens(records)[-6:] == [
        (240.0, "FIN DE PARTIE · Comptez vos fortunes"),
        (248.0, "BILAN · Temps de jeu : 4 min"),
        (252.0, "BILAN · Enchères : adjugées 3 · annulées 1"),
        (256.0, f"BILAN · Constructions : {builds}"),
        (260.0, "BILAN · Série record : 2 de suite"),
        (264.0, "FIN DE PARTIE · Comptez vos fortunes"),
    ]
    assert states(records)[-1] == (240.0, "time_up")


def test_a_press_after_the_game_shows_the_summary_again():
    config = {"game": {"minutes": 1, "final_warning_minutes": 0}}
    records = simulate_records(120, [POWER_ON, {"at": 100, "press": "build"}, {"at": 101, "press": "auction"}], config)
    shown = [s for s in screens(records) if s[0] >= 84.0]
    assert shown[:3] == [
        (84.0, "FIN DE PARTIE · Comptez vos fortunes"),
        (100.0, "BILAN · Temps de jeu : 1 min"),
        (101.0, "BILAN · Enchères : adjugées 0 · annulées 0"),
    ]
    assert shown[-1] == (113.0, "FIN DE PARTIE · Comptez vos fortunes")  # then in turn, 4 s a page
    assert kinds(records, "build") == [] and states(records)[-1] == (60.0, "time_up")


@pytest.mark.slow
def test_the_counts_survive_a_power_cut():
    tally = Tally().started().ended_sold().started().ended_cancelled().drew("station")
    assert Tally.from_dict(json.loads(json.dumps(tally.as_dict()))) == tally
    assert Tally.from_dict(None) == Tally() and Tally.from_dict({"sold": "many", "builds": []}) == Tally()


# --- the settings menu, on the virtual clock -------------------------------------------------

OPEN_MENU = {"at": 1, "hold": "auction", "seconds": 2.5}


def settings_lines(records):
    return [(r["t"], r["values"], r["reset"]) for r in kinds(records, "settings")]


def test_a_long_press_on_auction_opens_the_menu_and_it_closes_untouched():
    records = simulate_records(60, [OPEN_MENU])
    assert states(records) == [(3.0, "settings"), (33.0, "off")]
    assert screens(records)[1:] == [
        (3.0, "RÉGLAGES · Durée de partie : 1 h"),
        (33.0, "MONOPOLY CITY · ON/OFF : jouer · ENCHÈRES 2 s : réglages"),
    ]
    assert times(records, "sound", name="click") == [3.0]


def test_a_short_press_on_auction_does_not_open_it():
    records = simulate_records(10, [{"at": 1, "hold": "auction", "seconds": 1.9}])
    assert states(records) == []


def test_the_menu_moves_changes_and_applies_at_once():
    events = [
        OPEN_MENU,
        {"at": 5, "press": "build"},  # game: 1 h -> 1 h 30
        {"at": 6, "press": "auction"},  # auction length
        {"at": 7, "press": "build"},  # 50 s -> 60 s
        {"at": 8, "press": "auction"},  # language
        {"at": 9, "press": "build"},  # English
        {"at": 10, "press": "power"},  # leave
        {"at": 12, "press": "power"},  # a game with the new settings
        {"at": 13, "press": "auction"},
    ]
    records = simulate_records(100, events)
    values = [v for _, v, _ in settings_lines(records)]
    assert [v["game"]["minutes"] for v in values] == [90, 90, 90]
    assert [v["auction"]["seconds"] for v in values] == [50, 60, 60]
    assert [v["language"] for v in values] == ["fr", "fr", "en"]
    assert settings_lines(records)[0][0] == 5.0
    assert (9.0, "SETTINGS · Language : English") in screens(records)  # the words follow at once
    assert (12.0, "LEFT 1h30 · GAME 1h30") in screens(records)
    assert (13.0, "countdown") in states(records) and states(records)[-1] == (73.0, "ready")  # 60 s


def test_factory_settings_restore_the_configuration():
    events = [OPEN_MENU, {"at": 5, "press": "build"}] + [{"at": 6 + i, "press": "auction"} for i in range(5)]
    events += [{"at": 12, "press": "build"}]
    records = simulate_records(60, events)
    assert screens(records)[-2][1] == "RÉGLAGES · Réglages d'usine : rétablis"
    last = settings_lines(records)[-1]
    assert last[0] == 12.0 and last[2] is True and last[1]["game"]["minutes"] == 60


def test_every_value_steps_round():
    choices = Choices.of(configuration.load())
    seen = [choices.game_minutes]
    for _ in range(7):
        choices = choices.changed("game")
        seen.append(choices.game_minutes)
    assert seen == [60, 90, 120, 180, None, 30, 45, 60]
    short = configuration.load(({"game": {"minutes": 2, "final_warning_minutes": 1}}, "t"))
    assert Choices.of(short).changed("game").game_minutes == 30  # from a length not in the list: the next one


def test_a_shorter_choice_keeps_the_dependent_settings_valid():
    config = configuration.load(({"auction": {"seconds": 90, "warning_seconds": 40}}, "test"))
    changed = Choices.of(config).changed("auction")  # 90 -> 30
    applied = changed.apply(config)
    assert applied.auction.seconds == 30 and applied.auction.warning_seconds == 29


# --- the runtime: resuming, saving the settings ---------------------------------------------


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def rebooted_store(tmp_path, wall):
    """The saved game's folder, on a Pi whose wall clock is synchronised: the outage is read on it."""
    clocks = Clocks(wall=lambda: wall, synchronised=lambda: True, boot=lambda: None, since_boot=lambda: 0.0)
    return GameStore(tmp_path, clocks=clocks)


def runtime_for(tmp_path, wall, *, config=None, settings=True):
    config = config or configuration.load()
    clock = FakeClock()
    out = io.StringIO()
    runtime = Runtime(
        Unit(config),
        Backend(),
        clock=clock,
        trace=TraceWriter(out, config.language),
        store=rebooted_store(tmp_path, wall),
        settings=SettingsStore(tmp_path) if settings else None,
    )
    runtime.open()
    return runtime, clock, out


def first_record(out):
    return json.loads(out.getvalue().splitlines()[0])


def test_a_short_outage_resumes_with_the_counts(tmp_path):
    rebooted_store(tmp_path, 10_000.0).save(600.0, 60, "ready", counts=Tally().started().ended_sold().as_dict())
    runtime, _, out = runtime_for(tmp_path, wall=10_000.0 + 29 * 60)
    assert first_record(out)["kind"] == "resume"
    assert runtime.unit.state == "ready" and runtime.unit.tally.sold == 1


def test_a_long_outage_starts_at_the_welcome_screen_and_says_why(tmp_path, caplog):
    rebooted_store(tmp_path, 10_000.0).save(600.0, 60, "ready")
    with caplog.at_level(logging.WARNING):
        runtime, _, out = runtime_for(tmp_path, wall=10_000.0 + 31 * 60)
    assert first_record(out) == {"t": 0.0, "kind": "not_resumed", "reason": "too_long", "off_minutes": 31.0}
    assert runtime.unit.state == "off" and '"name": "welcome"' in out.getvalue()
    assert "the power was out 31 min" in caplog.text
    assert not (tmp_path / "game.json").exists()


def test_the_limit_is_a_setting(tmp_path):
    rebooted_store(tmp_path, 10_000.0).save(600.0, None, "ready")
    config = configuration.load(({"power": {"resume_within_minutes": 120}}, "test"))
    runtime, _, out = runtime_for(tmp_path, wall=10_000.0 + 100 * 60, config=config)
    assert first_record(out)["kind"] == "resume"


def test_a_game_whose_time_ran_out_during_the_outage_is_over(tmp_path):
    rebooted_store(tmp_path, 10_000.0).save(3500.0, 60, "ready")
    runtime, _, out = runtime_for(tmp_path, wall=10_000.0 + 5 * 60)
    assert first_record(out)["reason"] == "over" and runtime.unit.state == "off"


def test_a_wall_clock_that_went_back_cannot_tell_the_outage_and_resumes(tmp_path):
    rebooted_store(tmp_path, 10_000.0).save(600.0, 60, "ready")
    runtime, _, out = runtime_for(tmp_path, wall=5_000.0)
    assert first_record(out) == {"t": 0.0, "kind": "resume", "elapsed": 600.0}


def drive(runtime, clock, *gestures):
    """(at, button, seconds held) on the runtime's fake clock, stepping it like the real loop."""
    for at, button, held in gestures:
        for t, event in ((at, Pressed(button)), (at + held, Released(button))):
            while (due := runtime.next_wake()) is not None and due <= runtime.start + t:
                clock.now = due
                runtime.step(max_wait=0)
            clock.now = runtime.start + t
            runtime.post(event)
            runtime.step(max_wait=0)


def test_the_menu_saves_each_choice_atomically_and_the_next_start_uses_it(tmp_path):
    runtime, clock, out = runtime_for(tmp_path, wall=0.0)
    drive(runtime, clock, (1, "auction", 2.5), (5, "build", 0.1), (6, "auction", 0.1), (7, "auction", 0.1))
    drive(runtime, clock, (8, "build", 0.1))  # language: English
    saved = json.loads((tmp_path / FILENAME).read_text(encoding="utf-8"))
    assert saved["format"] == "monopoly-city-unit/settings/1"
    assert saved["settings"]["game"] == {"minutes": 90} and saved["settings"]["language"] == "en"
    assert [p.name for p in tmp_path.iterdir()] == [FILENAME]  # no temporary file left behind
    assert '"kind": "settings"' in out.getvalue()
    # Off and on again (a power cut): the choices are a layer over the configuration.
    assert SettingsStore(tmp_path).apply(configuration.load()).game.minutes == 90
    # Factory settings: the file goes.
    drive(runtime, clock, *[(9 + i, "auction", 0.1) for i in range(3)], (13, "build", 0.1))
    assert not (tmp_path / FILENAME).exists()


@pytest.mark.parametrize(
    "content",
    [b"{not json", b'{"format": "monopoly-city-unit/settings/1", "settings": {"language": "de"}}', b"[]", b""],
    ids=["corrupt", "bad value", "wrong shape", "empty"],
)
def test_a_corrupt_settings_file_gives_the_defaults_one_warning_and_keeps_the_game(tmp_path, caplog, content):
    (tmp_path / FILENAME).write_bytes(content)
    rebooted_store(tmp_path, 10_000.0).save(600.0, 60, "ready")
    with caplog.at_level(logging.WARNING):
        config = SettingsStore(tmp_path).apply(configuration.load())
    assert config == configuration.load()
    assert len([r for r in caplog.records if r.levelname == "WARNING"]) == 1
    runtime, _, out = runtime_for(tmp_path, wall=10_000.0 + 60, config=config)
    assert first_record(out)["kind"] == "resume" and runtime.unit.state == "ready"


def test_the_command_applies_the_saved_settings(tmp_path, write_yaml):
    store = SettingsStore(tmp_path)
    store.save(Choices(45, 40, "en", "low", "medium"))
    script = write_yaml("s.yaml", "until: 0.3\nevents:\n  - {at: 0.1, press: power}\n")
    trace = tmp_path / "trace.jsonl"
    status = main(
        ["run", "--backend", "headless", "--script", script, "--state-dir", str(tmp_path), "--trace", str(trace)]
    )
    assert status == 0
    assert '"text": "LEFT 45 min · GAME 45 min"' in trace.read_text(encoding="utf-8")


# --- backwards compatibility ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["demo-game", "evening", "switch"])
def test_old_scenarios_give_the_same_states_led_and_builds_at_the_same_times(name, capsys, tmp_path):
    """tests/data/compat/*.before.jsonl is what `simulate` printed before issue 11 (commit b2819c5)."""
    config = tmp_path / "single-press.yaml"
    config.write_text("power: {confirm_off: false}\n", encoding="utf-8")
    assert main(["simulate", str(COMPAT / f"{name}.yaml"), "--config", str(config)]) == 0
    now = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    before = [json.loads(line) for line in (COMPAT / f"{name}.before.jsonl").read_text(encoding="utf-8").splitlines()]

    def same(records, kinds_kept):
        return [r for r in records if r["kind"] in kinds_kept]

    assert same(now, ("state", "led", "build", "system")) == same(before, ("state", "led", "build", "system"))
    first_press = same(before, ("state",))[0]["t"]
    sounds_now = [r for r in same(now, ("sound",)) if r["t"] >= first_press and r["name"] != "welcome"]
    assert sounds_now == [r for r in same(before, ("sound",)) if r["t"] >= first_press]


def test_the_real_command_with_a_corrupt_settings_file_warns_once_and_resumes_the_game(tmp_path, write_yaml):
    import subprocess
    import sys
    import time

    (tmp_path / FILENAME).write_bytes(b"\x00\xffnot settings")
    GameStore(tmp_path).save(600.0, 60, "ready")
    script = write_yaml("s.yaml", "until: 0.3\n")
    trace = tmp_path / "trace.jsonl"
    command = [sys.executable, "-m", "unit", "run", "--backend", "headless", "--script", script]
    command += ["--state-dir", str(tmp_path), "--trace", str(trace)]
    started = time.time()
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    about_settings = [line for line in result.stderr.splitlines() if FILENAME in line]
    assert len(about_settings) == 1 and "ignoring" in about_settings[0]
    assert "Traceback" not in result.stderr
    first = json.loads(trace.read_text(encoding="utf-8").splitlines()[0])
    assert first["kind"] == "resume" and 600.0 <= first["elapsed"] < 600.0 + (time.time() - started) + 1


def test_every_screen_appears_in_both_user_guides_with_its_image():
    from unit.core import views

    root = Path(__file__).parent.parent
    new = ["welcome", "confirm_off", "summary_played", "summary_auctions", "summary_builds", "summary_streak"]
    new += [name for name in views.SAMPLES if name.startswith("menu_") and not name.startswith("menu_language")]
    new.append("menu_language")  # menu_language.png or menu_language_en.png
    for guide, language in (("docs/user-guide.md", "fr"), ("docs/user-guide.en.md", "en")):
        text = (root / guide).read_text(encoding="utf-8")
        missing = [name for name in new if f"images/{language}/{name}" not in text]
        assert not missing, f"{guide}: {missing}"


def test_the_settings_menu_example_prints_what_simulate_md_says(capsys):
    root = Path(__file__).parent.parent
    doc = (root / "docs/simulate.md").read_text(encoding="utf-8")
    section = doc.split("Excerpts of `monopoly-city simulate docs/examples/settings-menu.yaml`:")[1]
    documented = [line for line in section.split("```\n")[1].split("```")[0].splitlines() if line.startswith("{")]
    assert len(documented) > 15
    assert main(["simulate", str(root / "docs/examples/settings-menu.yaml")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in documented if line not in printed] == []
