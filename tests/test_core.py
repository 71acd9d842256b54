"""The unit's behaviour on a virtual clock, checked through the simulate trace.

Where the French rules (seeds/regles-monopoly-city.txt) say something about a
behaviour, the test quotes it.
"""

from __future__ import annotations

import random

import pytest
from helpers import kinds, simulate_lines, simulate_records, times

from unit.app import config as configuration
from unit.core import LedChanged, Pressed, Released, StateChanged, Unit

POWER_ON = {"at": 0, "press": "power"}


def states(records):
    return [(r["t"], r["state"]) for r in kinds(records, "state")]


# --- power ----------------------------------------------------------------------------------


def test_power_on_is_ready_at_once():
    """« Allumez l'unité électronique à l'aide du bouton ON/OFF placé en-dessous. »"""
    records = simulate_records(10, [POWER_ON])
    assert states(records) == [(0.0, "ready")]
    assert [r["name"] for r in kinds(records, "sound")] == ["welcome", "power_on"]  # the chime came at start
    assert kinds(records, "led") == []  # the LED stays dark


def test_unit_starts_off_and_idle():
    unit = Unit(configuration.load())
    assert unit.state == "off"
    assert unit.next_deadline() is None  # nothing to wake up for: zero idle work


SINGLE_PRESS_OFF = {"power": {"confirm_off": False}}
WELCOME_FR = "MONOPOLY CITY · ON/OFF : jouer · ENCHÈRES 2 s : réglages"


def test_power_button_toggles_off_and_on():
    events = [POWER_ON, {"at": 10, "press": "power"}, {"at": 20, "press": "power"}]
    records = simulate_records(30, events, SINGLE_PRESS_OFF)
    assert states(records) == [(0.0, "ready"), (10.0, "off"), (20.0, "ready")]
    assert kinds(records, "screen")[-2]["text"] == WELCOME_FR  # off: the welcome screen again


def test_latching_switch_position_is_the_state():
    config = {"power": {"control": "switch"}}
    events = [{"at": 0, "switch": "on"}, {"at": 5, "switch": "on"}, {"at": 10, "switch": "off"}]
    records = simulate_records(20, events, config)
    assert states(records) == [(0.0, "ready"), (10.0, "off")]


def test_long_press_on_power_asks_for_shutdown():
    records = simulate_records(20, [POWER_ON, {"at": 5, "hold": "power", "seconds": 4}, {"at": 15, "press": "auction"}])
    assert kinds(records, "system") == [{"t": 8.0, "kind": "system", "action": "shutdown"}]
    assert kinds(records, "screen")[-1]["t"] == 8.0  # the shutdown screen, then nothing more
    assert records[-1]["t"] == 8.0


def test_short_power_press_does_not_shut_down():
    records = simulate_records(20, [POWER_ON, {"at": 5, "hold": "power", "seconds": 2.9}])
    assert kinds(records, "system") == []


def test_with_a_switch_holding_build_while_off_shuts_down():
    config = {"power": {"control": "switch"}}
    events = [{"at": 0, "switch": "off"}, {"at": 1, "hold": "build", "seconds": 3.5}]
    records = simulate_records(10, events, config)
    assert kinds(records, "system") == [{"t": 4.0, "kind": "system", "action": "shutdown"}]


# --- auctions and deals ---------------------------------------------------------------------


def test_auction_countdown_warning_and_end():
    """« Le banquier doit appuyer sur le bouton ENCHÈRES de l'unité électronique pour démarrer la
    vente aux enchères. Vous avez jusqu'à 50 secondes pour terminer les transactions. »
    « Lorsque l'unité électronique émet un bip et que la lumière rouge se met à clignoter plus vite,
    il vous reste 5 secondes pour terminer les enchères ! »
    « Le joueur qui a proposé le plus gros montant quand la lumière s'éteint remporte le quartier »"""
    records = simulate_records(100, [POWER_ON, {"at": 10, "press": "auction"}])
    assert states(records) == [(0.0, "ready"), (10.0, "countdown"), (55.0, "warning"), (60.0, "ready")]
    leds = kinds(records, "led")
    assert [(r["t"], r["mode"]) for r in leds] == [(10.0, "blink"), (55.0, "blink"), (60.0, "off")]
    assert leds[1]["hz"] > leds[0]["hz"]  # flashes faster in the last 5 seconds
    sound_times = times(records, "sound")
    assert 55.0 in sound_times and 60.0 in sound_times
    assert kinds(records, "sound", t=55.0)[0]["name"] == "warning"
    assert kinds(records, "sound", t=60.0)[0]["name"] == "sold"
    assert kinds(records, "screen", t=10.0)[-1]["text"] == "ENCHÈRES 50"


def test_countdown_shows_every_second_at_exact_times():
    records = simulate_records(100, [POWER_ON, {"at": 10.25, "press": "auction"}])
    shown = [(r["t"], r["text"]) for r in kinds(records, "screen") if r["text"].startswith("ENCHÈRES")]
    assert len(shown) == 50
    assert shown[0] == (10.25, "ENCHÈRES 50") and shown[-1] == (59.25, "ENCHÈRES 1 !")
    assert all(round(t - 10.25, 6) == i for i, (t, _) in enumerate(shown))  # absolute deadlines: no drift


def test_warning_ticks_each_second():
    records = simulate_records(100, [POWER_ON, {"at": 10, "press": "auction"}])
    assert times(records, "sound", name="tick") == [56.0, 57.0, 58.0, 59.0]


def test_short_auction_press_during_countdown_changes_nothing():
    """Bankers bump buttons: a short press must not restart a running auction."""
    alone = simulate_lines(100, [POWER_ON, {"at": 10, "press": "auction"}])
    bumped = simulate_lines(100, [POWER_ON, {"at": 10, "press": "auction"}, {"at": 30, "press": "auction"}])
    assert bumped == alone


def test_long_auction_press_cancels_when_the_hold_reaches_two_seconds():
    events = [POWER_ON, {"at": 10, "press": "auction"}, {"at": 30, "hold": "auction", "seconds": 2.5}]
    records = simulate_records(100, events)
    assert states(records)[-1] == (32.0, "ready")
    assert kinds(records, "led")[-1] == {"t": 32.0, "kind": "led", "mode": "off"}
    assert kinds(records, "sound", t=32.0)[0]["name"] == "cancelled"
    assert not [r for r in records if r["t"] > 32.0 and r["kind"] in ("state", "led")]


def test_hold_shorter_than_cancel_time_does_not_cancel():
    events = [POWER_ON, {"at": 10, "press": "auction"}, {"at": 30, "hold": "auction", "seconds": 1.9}]
    assert states(simulate_records(100, events))[-1] == (60.0, "ready")


def test_the_hold_that_starts_an_auction_does_not_cancel_it():
    records = simulate_records(100, [POWER_ON, {"at": 10, "hold": "auction", "seconds": 5}])
    assert states(records)[-1] == (60.0, "ready")


def test_deal_uses_the_same_countdown():
    """« Lorsque vous souhaitez proposer un deal à un autre joueur, appuyez sur le bouton ENCHÈRES de
    l'unité électronique. Vous devez arriver à un accord [...] avant la fin du temps imparti ! »"""
    config = {"auction": {"seconds": 30, "warning_seconds": 3}}
    records = simulate_records(100, [POWER_ON, {"at": 10, "press": "auction"}], config)
    assert states(records) == [(0.0, "ready"), (10.0, "countdown"), (37.0, "warning"), (40.0, "ready")]


def test_auction_is_ignored_while_off():
    records = simulate_records(100, [{"at": 10, "press": "auction"}])
    assert [r["kind"] for r in records] == ["screen", "sound"]  # only the welcome screen and chime, at 0


# --- building -------------------------------------------------------------------------------


def test_build_draw_spins_then_shows_the_result():
    """« Appuyez sur le bouton CONSTRUCTION de l'unité électronique. Le numéro qui s'affiche est le
    nombre maximum de bâtiments que vous pouvez construire pour ce tour. »"""
    records = simulate_records(100, [POWER_ON, {"at": 70, "press": "build"}])
    assert states(records) == [(0.0, "ready"), (70.0, "build"), (81.5, "ready")]
    draws = kinds(records, "build")
    assert [d["t"] for d in draws] == [71.5]
    assert draws[0]["result"] in (1, 2, 3, "station")
    spin_ticks = times(records, "sound", name="spin_tick")
    gaps = [b - a for a, b in zip(spin_ticks, spin_ticks[1:])]
    assert len(spin_ticks) >= 8 and gaps == sorted(gaps)  # the highlight slows down


def test_build_result_lands_where_the_highlight_stops():
    records = simulate_records(100, [POWER_ON, {"at": 70, "press": "build"}], seed=3)
    result = kinds(records, "build")[0]["result"]
    last_spin = [r["text"] for r in kinds(records, "screen") if r["t"] < 71.5][-1]
    names = {1: "1", 2: "2", 3: "3", "station": "GARE"}
    following = {"1": "2", "2": "3", "3": "GARE", "GARE": "1"}
    assert following[last_spin.split()[-1]] == names[result]
    assert kinds(records, "screen", t=71.5)[0]["text"] == f"CONSTRUCTION : {names[result]}"


def test_second_build_press_in_the_same_turn_shows_the_same_result():
    """« Vous ne pouvez appuyer sur le bouton CONSTRUCTION qu'une seule fois au cours du même tour. »"""
    events = [POWER_ON, {"at": 70, "press": "build"}, {"at": 75, "press": "build"}, {"at": 71, "press": "build"}]
    events.sort(key=lambda e: e["at"])
    records = simulate_records(100, events)
    assert len(kinds(records, "build")) == 1  # no new draw, during the spin or after
    assert states(records)[-1] == (85.0, "ready")  # shown again for 10 s from the second press


def test_a_new_turn_draws_again():
    records = simulate_records(200, [POWER_ON, {"at": 10, "press": "build"}, {"at": 100, "press": "build"}])
    assert times(records, "build") == [11.5, 101.5]


def test_build_during_a_countdown_is_ignored():
    with_build = simulate_lines(100, [POWER_ON, {"at": 10, "press": "auction"}, {"at": 20, "press": "build"}])
    without = simulate_lines(100, [POWER_ON, {"at": 10, "press": "auction"}])
    assert with_build == without


def test_auction_after_the_build_result_starts_the_countdown():
    records = simulate_records(100, [POWER_ON, {"at": 10, "press": "build"}, {"at": 15, "press": "auction"}])
    assert states(records)[-3:] == [(15.0, "countdown"), (60.0, "warning"), (65.0, "ready")]


def test_zero_weight_is_never_drawn():
    events = [POWER_ON] + [{"at": 20 * i, "press": "build"} for i in range(1, 100)]
    config = {"build": {"weights": {"station": 0}}}
    results = [r["result"] for r in kinds(simulate_records(2000, events, config, seed=11), "build")]
    assert len(results) == 99
    assert "station" not in results
    assert set(results) == {1, 2, 3}


def test_weights_set_the_odds():
    overrides = {"game": {"minutes": None}, "build": {"weights": {1: 0, 2: 0, 3: 1, "station": 3}}}
    unit = Unit(configuration.load((overrides, "test")), random.Random(5))
    counts = {3: 0, "station": 0}
    t = 0.0
    unit.handle(Pressed("power"), t)
    unit.handle(Released("power"), t)
    for _ in range(400):
        t += 20
        drawn = [o.result for o in unit.handle(Pressed("build"), t) if hasattr(o, "result")]
        unit.handle(Released("build"), t)
        drawn += [o.result for o in unit.advance(t + 2) if hasattr(o, "result")]
        counts[drawn[0]] += 1
    assert 0.18 < counts[3] / 400 < 0.32  # expected 0.25


def test_same_seed_gives_identical_output():
    events = [POWER_ON] + [{"at": 20 * i, "press": "build"} for i in range(1, 20)]
    assert simulate_lines(500, events, seed=42) == simulate_lines(500, events, seed=42)
    assert simulate_lines(500, events, seed=42) != simulate_lines(500, events, seed=43)


# --- the game clock -------------------------------------------------------------------------


def test_sixty_minute_game_ends_at_3600():
    """« L'unité électronique vous indiquera la fin de la partie (arpès une heure). »"""
    records = simulate_records(4000, [POWER_ON])
    assert states(records) == [(0.0, "ready"), (3600.0, "time_up")]
    assert kinds(records, "sound", t=3600.0)[-1]["name"] == "game_over"
    assert kinds(records, "screen")[-1]["text"] == "FIN DE PARTIE · Comptez vos fortunes"
    assert times(records, "sound", name="hour") == []  # the end signal, not an hour mark


def test_game_clock_counts_from_power_on():
    records = simulate_records(4000, [{"at": 100, "press": "power"}])
    assert states(records)[-1] == (3700.0, "time_up")


def test_countdown_running_at_the_end_finishes_first():
    events = [POWER_ON, {"at": 3580, "press": "auction"}]
    records = simulate_records(4000, events)
    assert states(records)[-3:] == [(3580.0, "countdown"), (3625.0, "warning"), (3630.0, "time_up")]
    assert kinds(records, "led")[-1] == {"t": 3630.0, "kind": "led", "mode": "off"}


def test_cancelled_countdown_after_the_end_gives_the_end_signal():
    events = [POWER_ON, {"at": 3580, "press": "auction"}, {"at": 3610, "hold": "auction", "seconds": 3}]
    assert states(simulate_records(4000, events))[-1] == (3612.0, "time_up")


def test_time_up_stays_until_off_and_on_which_starts_a_new_hour():
    """« Pour continuer à jouer, éteignez et rallumez l'unité en mettant l'interrupteur sur OFF (arrêt)
    puis sur ON (marche). Une nouvelle heure commencera alors. »"""
    events = [POWER_ON, {"at": 3700, "press": "auction"}, {"at": 3710, "press": "build"}]
    events += [{"at": 3800, "press": "power"}, {"at": 3801, "press": "power"}]
    records = simulate_records(8000, events)
    assert states(records) == [
        (0.0, "ready"),
        (3600.0, "time_up"),
        (3800.0, "off"),
        (3801.0, "ready"),
        (7401.0, "time_up"),
    ]


def test_off_and_on_mid_game_starts_a_new_hour():
    events = [POWER_ON, {"at": 1800, "press": "power"}, {"at": 1801, "press": "power"}, {"at": 1802, "press": "power"}]
    assert states(simulate_records(6000, events))[-1] == (5402.0, "time_up")  # ON/OFF twice is off: asked first


def test_two_hour_game_marks_the_first_hour():
    """« L'unité électronique vous indique chaque heure passée à joueur. »"""
    records = simulate_records(8000, [POWER_ON], {"game": {"minutes": 120}})
    assert times(records, "sound", name="hour") == [3600.0]
    assert states(records)[-1] == (7200.0, "time_up")


def test_untimed_game_marks_hours_and_never_ends():
    records = simulate_records(36005, [POWER_ON], {"game": {"minutes": None}})
    assert times(records, "sound", name="hour") == [3600.0 * k for k in range(1, 11)]
    assert states(records) == [(0.0, "ready")]
    assert kinds(records, "screen")[-1]["text"] == "JOUÉ 10h00 · SANS LIMITE"


def test_final_minutes_beep_more_and_more_often():
    """« Lorsque vous approchez de l'heure de jeu, l'unité électronique se met à biper plus souvent. »"""
    records = simulate_records(4000, [POWER_ON])
    beeps = times(records, "sound", name="final_beep")
    assert beeps[0] == 3300.0  # 5 minutes before the end
    assert beeps[-10:] == [3590.0 + k for k in range(10)]  # every second in the last 10 s
    gaps = [b - a for a, b in zip(beeps, beeps[1:])]
    assert all(later <= earlier for earlier, later in zip(gaps, gaps[1:]))
    assert set(gaps) == {60.0, 30.0, 10.0, 1.0}
    assert all(t >= 3300.0 for t in beeps)


@pytest.mark.parametrize("minutes,warning", [(60, 4.5), (7, 7), (3, 2.2), (90, 0)])
def test_final_beep_gaps_never_grow_for_any_window(minutes, warning):
    config = {"game": {"minutes": minutes, "final_warning_minutes": warning}}
    beeps = times(simulate_records(minutes * 60 + 10, [POWER_ON], config), "sound", name="final_beep")
    end = minutes * 60.0
    assert all(end - warning * 60 <= t < end for t in beeps)
    gaps = [b - a for a, b in zip(beeps, beeps[1:])]
    assert all(later <= earlier for earlier, later in zip(gaps, gaps[1:]))
    assert (beeps == []) == (warning == 0)


def test_ready_screen_shows_time_left_and_the_game_length():
    records = simulate_records(3600, [POWER_ON])
    texts = {r["t"]: r["text"] for r in kinds(records, "screen")}
    assert texts[0.0] == "RESTE 1h00 · PARTIE 1h00"
    assert texts[60.0] == "RESTE 59 min · PARTIE 1h00"
    assert texts[3540.0] == "RESTE 1 min · PARTIE 1h00"
    assert texts[3541.0] == "RESTE 59 s · PARTIE 1h00"
    assert texts[3599.0] == "RESTE 1 s · PARTIE 1h00"


def test_english_screen_text():
    records = simulate_records(30, [POWER_ON, {"at": 10, "press": "auction"}], {"language": "en"})
    assert [r["text"] for r in kinds(records, "screen")][1:3] == ["LEFT 1h00 · GAME 1h00", "AUCTION 50"]


def test_led_outputs_only_on_change():
    unit = Unit(configuration.load())
    out = unit.handle(Pressed("power"), 0.0)
    assert StateChanged("ready") in out and not [o for o in out if isinstance(o, LedChanged)]
