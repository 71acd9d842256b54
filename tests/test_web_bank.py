"""The table's bank on the phone (issue 22): every money movement in one tap, the history with undo, the box's sale.

Through Starlette's test client, as a phone posts: each tap is checked against what ``monopoly-city`` says on
the same file (the bank's own functions, ``fortune``, ``history``), a stale page's tap is refused with 409 and
nothing is paid twice, and an auction the unit ends is offered to a paired phone only. The whole evening in
Chromium is in test_web_bank_browser.py.
"""

from __future__ import annotations

import html
import os
import re
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

import httpx2 as httpx  # noqa: E402
from helpers import (  # noqa: E402
    THREE_DISTRICTS,
    Banker,
    RunningUnit,
    bank_flow,
    cli_json,
    pair_client,
    wait_for,
    without_revision,
)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.calculator import bank, ledger, money  # noqa: E402
from unit.calculator import position as positions  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.bank_page import Sales  # noqa: E402


def error_of(page: httpx.Response) -> str:
    found = re.search(r'id="error"[^>]*>([^<]*)<', page.text)
    return html.unescape(found.group(1)) if found else ""


def cash_shown(page: httpx.Response) -> list[str]:
    return [html.unescape(c) for c in re.findall(r'id="chip-\d+"[^>]*><span>[^<]*</span> <b>([^<]*)</b>', page.text)]


def history_shown(page: httpx.Response) -> list[str]:
    return [html.unescape(line) for line in re.findall(r'data-n="\d+"><span>([^<]*)</span>', page.text)]


def fortunes_shown(page: httpx.Response) -> dict[str, int]:
    rows = re.findall(r'data-player="([^"]+)" data-fortune="(\d+)"', page.text)
    return {html.unescape(name): int(value) for name, value in rows}


def cli_fortunes(capsys, path) -> dict[str, int]:
    status, out, err = cli_json(capsys, "fortune", str(path))
    assert status == 0, err
    return {row["name"]: row["fortune"] for row in out["players"]}


def game_of(path) -> positions.Game:
    return positions.load(path)


@pytest.fixture
def app(data):
    return create_app(None, "fr", data)


# --- an evening, tap by tap ---------------------------------------------------------------------------


def test_a_city_evening_at_the_bank_agrees_with_the_command_line(app, data, capsys):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    phone.tap(action="buy", player="0", square="Les Halles")  # printed price M 1M
    phone.tap(action="buy", player="0", square="Quai Nord")  # M 1,2M
    for _ in range(3):
        phone.tap(action="square", square="Les Halles", op="residential")  # M 200k each
    phone.tap(action="square", square="Quai Nord", op="industrial")  # M 400k
    answer = phone.tap(action="player", player="1", op="salary")  # + M 2M
    assert answer.headers["location"] == "/games/soiree?done=7"
    page = phone.look("?done=7")
    assert "Enregistré : banque → Bruno · M 2M · salaire de la case DÉPART" in html.unescape(page.text)
    # The rent, from the rent page: Bruno pays Alice in one tap, the amount the command line says.
    status, rent, err = cli_json(capsys, "rent", str(path), "Les Halles")
    page = phone.look("/rent?square=Les+Halles")
    labels = [html.unescape(x) for x in re.findall(r'class="bank-pay" id="pay-1">([^<]*)<', page.text)]
    assert labels == [f"Bruno paie {money.text('city', rent['rent'], 'fr')} à Alice"]
    assert phone.post(action="rent", back="rent", square="Les Halles", payer="1", dice="").status_code == 303
    game = game_of(path)
    alice = 20_000_000 - 1_000_000 - 1_200_000 - 3 * 200_000 - 400_000 + rent["rent"]
    assert [p.cash for p in game.players] == [alice, 22_000_000 - rent["rent"]]
    # A mortgage and its lift, a tax, a transfer, each with what the bank says.
    phone.tap(action="square", square="Quai Nord", op="mortgage")
    phone.tap(action="square", square="Quai Nord", op="lift")
    phone.tap(action="player", player="0", op="tax")  # the industry tax: Alice has an industrial block
    phone.tap(action="transfer", player="1", to="to:0", amount="1,5M")
    page = phone.look("/history")
    status, out, err = cli_json(capsys, "history", str(path))
    assert history_shown(page) == [e["text"] for e in reversed(out["history"])]
    assert history_shown(page)[0] == "Bruno → Alice · M 1,5M · virement"
    assert [e["what"] for e in out["history"]][-5:] == ["rent", "mortgage", "lift", "tax", "pay"]
    assert fortunes_shown(phone.look("/fortunes")) == cli_fortunes(capsys, path)
    game = game_of(path)
    assert cash_shown(page) == [money.text("city", p.cash, "fr") for p in game.players]


def test_what_the_page_records_is_what_the_command_line_records(app, data, capsys):
    """The same actions by the page and by ``monopoly-city buy/build/pay``: the same file, byte for byte."""
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    start = path.read_bytes()
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="square", square="Les Halles", op="residential")
    phone.tap(action="transfer", player="1", to="to:0", amount="600k")
    by_page = path.read_bytes()
    path.write_bytes(start)
    for argv in (
        ("buy", str(path), "Alice", "Les Halles"),
        ("build", str(path), "Les Halles", "--residential", "1"),
        ("pay", str(path), "Bruno", "Alice", "600k"),
    ):
        assert cli_json(capsys, *argv)[0] == 0
    assert path.read_bytes() == by_page
    # and a payment by the command line shows on the page, undone there
    assert cli_json(capsys, "pay", str(path), "Alice", "banque", "100k")[0] == 0
    assert history_shown(Banker(app).look("/history"))[0] == "Alice → banque · M 100k · virement"
    phone.tap(action="undo", count="1")
    assert without_revision(path.read_bytes()) == without_revision(by_page)  # but the revision: 3 then 5


def test_the_page_writes_a_long_history_as_the_command_line_does_whatever_its_notes(app, data, capsys):
    """The page keeps the history's text it read and writes only what changed: the same bytes as the command line."""
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    for note in ("prêt - what: pay", "a: b", "- x", "'quoted'", "x #y", "x" * 300):
        assert cli_json(capsys, "pay", str(path), "Alice", "Bruno", "1k", "--for", note)[0] == 0
    assert cli_json(capsys, "pay", str(path), "Alice", "Bruno", "1k", "--for", "prêt\n- what: pay")[0] == 2  # 2 lines
    phone.tap(action="transfer", player="1", to="to:0", amount="2k")
    assert path.read_text(encoding="utf-8") == positions.dumps(game_of(path), "trois.edition.yaml")
    phone.tap(action="undo", count="2", confirm="1")
    assert path.read_text(encoding="utf-8") == positions.dumps(game_of(path), "trois.edition.yaml")
    assert len(game_of(path).history) == 5


# --- nothing paid twice --------------------------------------------------------------------------------


def test_a_stale_page_is_refused_and_the_same_tap_twice_pays_once(app, data):
    first, second = Banker(app), Banker(app)
    first.create("trois.edition.yaml", "Alice, Bruno")
    first.tap(action="buy", player="0", square="Les Halles")
    first.look("/rent?square=Les+Halles")
    second.look()
    rent = {"action": "rent", "back": "rent", "square": "Les Halles", "payer": "1", "dice": ""}
    assert first.post(**rent).status_code == 303
    path = data / "soiree.game.yaml"
    paid = path.read_bytes()
    again = first.post(**rent)  # a double tap, or the browser sending the form again
    assert again.status_code == 409 and "rien n'est payé" in error_of(again) and path.read_bytes() == paid
    assert "Bruno paie" in html.unescape(again.text)  # the rent page again, as it is now
    late = second.post(action="transfer", player="1", to="to:0", amount="1M")  # a page from before the rent
    assert late.status_code == 409 and "a changé" in error_of(late) and path.read_bytes() == paid
    assert cash_shown(late) == ["M 19,05M", "M 19,95M"]  # the page shows the game as it is now
    assert len(game_of(path).history) == 2


def test_eight_copies_of_one_tap_at_once_pay_once(app, data):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.look()
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def send() -> None:
        barrier.wait()
        statuses.append(phone.post(action="player", player="0", op="salary").status_code)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [303] + [409] * 7
    game = game_of(data / "soiree.game.yaml")
    assert len(game.history) == 1 and game.players[0].cash == 22_000_000


# --- refusals -------------------------------------------------------------------------------------------


def test_a_refusal_says_the_rule_and_what_the_player_can_do_and_changes_nothing(app, data):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="transfer", player="0", to="to:1", amount="18,9M")  # Alice keeps M 100k
    path = data / "soiree.game.yaml"
    before = path.read_bytes()
    phone.look()
    short = phone.post(action="square", square="Les Halles", op="residential", anchor="c0x0")
    assert short.status_code == 400
    said = error_of(short)
    assert said.startswith("Alice n'a que M 100k pour payer M 200k (il manque M 100k)")
    assert "hypothéquer Les Halles" in said and "« Si vous ne pouvez pas payer" in said
    assert path.read_bytes() == before
    for form, says in (
        ({"action": "buy", "player": "1", "square": "Les Halles"}, "appartient déjà à Alice"),
        ({"action": "transfer", "player": "1", "to": "to:0", "amount": "-5M"}, "sans signe moins : écrivez 5M"),
        ({"action": "transfer", "player": "1", "to": "to:0", "amount": "abc"}, "abc"),
        ({"action": "rent", "square": "Les Halles", "payer": "0"}, "on ne se paie pas de loyer"),
        ({"action": "square", "square": "Les Halles", "op": "lift"}, "n'est pas hypothéqué"),
        ({"action": "square", "square": "Les Halles", "op": "explode"}, "inconnu"),
        ({"action": "player", "player": "7", "op": "salary"}, "Joueur inconnu"),
        ({"action": "undo", "count": "9", "confirm": "1"}, "impossible d'en annuler 9"),
    ):
        refused = phone.post(**form)
        assert refused.status_code == 400, form
        assert says in error_of(refused), (form, error_of(refused))
        assert path.read_bytes() == before


def test_a_refusal_on_the_page_says_what_to_tap_and_the_command_line_what_to_type(app, data):
    phone = Banker(app, "classique")
    phone.create("classic-fr", "Bob, Léa")
    phone.look()
    short = phone.post(action="transfer", player="1", to="to:0", amount="2000")  # Léa holds nothing to sell
    said = error_of(short)
    assert short.status_code == 400 and said.startswith("Léa n'a que 1500 pour payer 2000 (il manque 500)")
    assert "Léa est en faillite (le bouton « Faillite… » de Léa)" in said
    assert "monopoly-city" not in said and "--" not in said
    page = i18n.words("fr")
    from unit.web.bank_page import page_words

    exempt = page_words(page)("bank.can_exempt")
    assert "--" not in exempt and page("web.bank.exempt_rent", p="…") in exempt
    assert "(--exemption)" in page("bank.can_exempt") and "(monopoly-city out)" in page("bank.bankrupt", p="Léa")
    assert "--" not in page_words(i18n.words("en"))("bank.can_exempt")


def test_a_tap_needs_the_pages_token_and_origin(app, data):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.look()
    before = (data / "soiree.game.yaml").read_bytes()
    form = {"version": phone.version, "action": "player", "player": "0", "op": "salary"}
    assert phone.http.post("/games/soiree/bank", data=form).status_code == 403
    forged = phone.http.post(
        "/games/soiree/bank", data={**form, "csrf": phone.csrf}, headers={"origin": "http://evil.example"}
    )
    assert forged.status_code == 403 and (data / "soiree.game.yaml").read_bytes() == before


# --- asked first, undone exactly --------------------------------------------------------------------


def test_undoing_several_entries_asks_first_and_restores_the_file_byte_for_byte(app, data):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    start = path.read_bytes()
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="square", square="Les Halles", op="residential")
    phone.tap(action="square", square="Les Halles", op="mortgage")
    page = phone.look("/history")
    assert re.findall(r'id="undo-(\d+)">([^<]*)<', page.text) == [
        ("3", "Annuler"),
        ("2", "Annuler jusqu&#39;ici (2)"),
        ("1", "Annuler jusqu&#39;ici (3)"),
    ]
    ask = phone.post(action="undo", count="3")
    assert ask.status_code == 200 and path.read_bytes() != start  # only asked
    asked = html.unescape(ask.text)
    assert "Annuler les 3 dernières écritures ?" in asked and "Alice → banque · M 1M · achat des Halles" in asked
    yes = dict(
        re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)">', ask.text.split('id="ask"')[1].split("</form>")[0]
        )
    )
    assert yes["confirm"] == "1" and yes["count"] == "3" and yes["version"] == phone.version
    done = phone.http.post("/games/soiree/bank", data=yes, follow_redirects=False)
    assert done.status_code == 303 and "undone=3" in done.headers["location"]
    assert without_revision(path.read_bytes()) == without_revision(start)  # but the revision: a version never repeats


def test_a_player_leaves_only_after_the_question_and_a_bankruptcy_can_be_undone(app, data):
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno, Chloé")
    path = data / "soiree.game.yaml"
    phone.tap(action="buy", player="1", square="Port Sud")
    before = path.read_bytes()
    phone.look()
    ask = phone.post(action="drop", player="2")
    assert ask.status_code == 200 and "Retirer Chloé de la partie ?" in html.unescape(ask.text)
    assert path.read_bytes() == before
    # Chloé still has her M 20M: removing her would lose it (issue 28, 1,600 vanished): only a bankruptcy takes her out
    kept = phone.post(action="drop", player="2", confirm="1")
    assert kept.status_code == 400 and "seule une faillite" in error_of(kept) and path.read_bytes() == before
    phone.tap(action="out", player="2", creditor="bank", confirm="1")
    after_out = path.read_bytes()
    assert [p.name for p in game_of(path).players] == ["Alice", "Bruno"]
    phone.look()
    ask = phone.post(action="out", player="1", creditor="0")
    assert "Bruno fait faillite : son argent et ses biens vont à Alice" in html.unescape(ask.text)
    phone.tap(action="out", player="1", creditor="0", confirm="1")
    game = game_of(path)
    assert [p.name for p in game.players] == ["Alice"] and game.players[0].cash == 20_000_000 + 18_000_000
    assert [h.district for h in game.players[0].holdings] == ["Port Sud"]
    phone.tap(action="undo", count="1")
    assert without_revision(path.read_bytes()) == without_revision(after_out)
    phone.tap(action="undo", count="1")  # Chloé back, with her cash
    assert [(p.name, p.cash) for p in game_of(path).players][2] == ("Chloé", 20_000_000)


# --- the classic board ---------------------------------------------------------------------------------


def test_a_classic_evening_houses_a_hotel_sold_back_and_a_tax_square(app, data, capsys):
    phone = Banker(app, "classique")
    phone.create("classic-fr", "Bob, Léa")
    path = data / "classique.game.yaml"
    for square in ("Rue de la Paix", "Avenue des Champs-Élysées"):
        phone.tap(action="buy", player="0", square=square)
    phone.tap(action="transfer", player="0", to="from:bank", amount="3000")  # a Chance card, say
    for _ in range(4):
        for square in ("Rue de la Paix", "Avenue des Champs-Élysées"):
            phone.tap(action="square", square=square, op="house")
    for street in ("Rue de la Paix", "Avenue des Champs-Élysées"):  # 4 houses on each street: a hotel offered
        assert 'id="op-hotel">Hôtel <b>200</b>' in phone.look(f"/square/{street}").text
    phone.tap(action="square", square="Rue de la Paix", op="hotel")
    phone.tap(action="square", square="Rue de la Paix", op="sell_one")  # the hotel back to 4 houses
    phone.tap(action="player", player="1", op="tax:Taxe de luxe")
    rent = phone.look("/rent?square=paix")
    assert "Léa paie 1700 à Bob" in html.unescape(rent.text)  # 4 houses on Rue de la Paix
    short = phone.post(action="rent", back="rent", square="Rue de la Paix", payer="1", dice="")
    assert short.status_code == 400 and "Léa n'a que 1400 pour payer 1700" in error_of(short)
    assert "Léa paie 1700 à Bob" in html.unescape(short.text)  # the rent page again, its sentence on top
    phone.tap(action="transfer", player="1", to="from:bank", amount="500")
    phone.look("/rent?square=paix")
    assert phone.post(action="rent", back="rent", square="Rue de la Paix", payer="1", dice="").status_code == 303
    status, out, err = cli_json(capsys, "history", str(path))
    assert [e["what"] for e in out["history"]] == ["buy"] * 2 + ["pay"] + ["build"] * 9 + ["sell", "tax", "pay", "rent"]
    assert fortunes_shown(phone.look("/fortunes")) == cli_fortunes(capsys, path)


def test_dice_the_rules_refuse_are_said_on_the_rent_page_and_refused_by_the_bank(app, data):
    # The rent page asks the rules which dice they refuse (Rules.dice_refusal) and shows the dice buttons with the
    # rule's sentence; the bank's rent tap with the same dice is refused with the same sentence.
    phone = Banker(app, "classique")
    phone.create("classic-fr", "Bob, Léa")
    phone.tap(action="buy", player="0", square="Rue de la Paix")
    phone.tap(action="buy", player="0", square="Compagnie de distribution des eaux")
    cases = [
        ("Rue de la Paix", "7", "seul le loyer d'un service public dépend des dés, pas celui de Rue de la Paix"),
        ("Compagnie de distribution des eaux", "13", "attendu le total de deux dés (2 à 12), reçu 13"),
    ]
    for square, dice, sentence in cases:
        page = phone.look(f"/rent?square={square}&dice={dice}")
        assert error_of(page) == sentence and 'id="dice"' in page.text and 'id="rent-total"' not in page.text
        phone.look()  # the rent page offers no tap for dice refused: the version is the game page's
        tap = phone.post(action="rent", back="rent", square=square, payer="1", dice=dice)
        assert tap.status_code == 400 and error_of(tap) == sentence
    tax = phone.look("/rent?square=Taxe de luxe&dice=7")  # a tax square's rent is its tax, whatever the throw
    assert error_of(tax) == "" and 'id="rent-total"' in tax.text and 'id="dice"' not in tax.text
    thrown = phone.look("/rent?square=Compagnie de distribution des eaux&dice=7")
    assert error_of(thrown) == "" and 'id="rent-total"' in thrown.text and 'id="dice"' in thrown.text
    city = Banker(app)
    city.create("trois.edition.yaml", "Alice, Bruno")
    page = city.look("/rent?square=Les Halles&dice=7")
    assert error_of(page) == "les loyers de Monopoly City ne dépendent pas des dés" and 'id="dice"' in page.text


# --- the box's auction ---------------------------------------------------------------------------------


def records(*states: str, cancelled_at: float | None = None) -> list[dict]:
    out: list[dict] = [{"kind": "snapshot", "state": "ready"}]
    for t, state in enumerate(states, 1):
        out.append({"t": float(t), "kind": "state", "state": state})
        if cancelled_at == float(t):
            out.append({"t": float(t), "kind": "sound", "name": "cancelled"})
    return out


@pytest.mark.parametrize(
    ("seen", "sale"),
    [
        (records("countdown", "ready"), 1),  # sold
        (records("countdown", "warning", "ready"), 1),  # sold after the warning
        (records("countdown", "warning", "time_up"), 1),  # the game's end came during it
        (records("countdown", "ready", cancelled_at=2.0), None),  # a long press called it off
        (records("build", "ready"), None),  # not an auction
        (records("countdown", "ready", "countdown", "ready"), 2),  # the last one is offered
    ],
)
def test_an_auction_the_box_ends_is_a_sale_to_record(seen, sale):
    sales = Sales(clock=lambda: 100.0)
    for record in seen:
        sales.see(record)
    pending = sales.pending()
    assert (pending.number if pending else None) == sale
    if pending is not None:
        sales.settle(pending.number)
        assert sales.pending() is None


def test_the_paired_phone_is_offered_the_box_s_sale_and_records_it_in_one_tap(tmp_path):
    config = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}}
    data = tmp_path / "calculator"
    data.mkdir()
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with RunningUnit(tmp_path, config) as unit:
        app = create_app(tmp_path)
        with TestClient(app, base_url="http://box.local") as client:
            hub = app.state.web.hub
            wait_for(lambda: hub.connected and "settings" in hub.snapshot, what="the hub to hear the unit")
            phone, stranger = Banker(app), Banker(app)
            phone.http = client
            pair_client(client, unit)  # the box's service: money moves only from a paired phone
            phone.create("trois.edition.yaml", "Alice, Bruno")
            unit.press("power")
            wait_for(lambda: unit.runtime.unit.state == "ready")
            phone.look()
            assert client.get("/games/soiree/sale").status_code == 204  # no auction yet
            phone.tap(action="buy", player="0", square="Port Sud", op="auction")  # declined: to the box's auction
            assert game_of(data / "soiree.game.yaml").history == ()  # nothing recorded for that
            unit.press("auction")
            wait_for(lambda: app.state.sales.pending() is not None, 5, "the sale to be offered")
            page = phone.look()
            assert 'id="sale"' in page.text and "Enchère terminée sur le boîtier" in html.unescape(page.text)
            assert 'name="square" value="Port Sud"' in page.text  # the square put up for auction
            assert 'name="player"' in page.text and "selected" not in page.text.split('id="sale"')[1]  # no buyer preset
            assert 'id="sale"' not in stranger.look().text  # a phone not paired is not offered it
            fragment = client.get("/games/soiree/sale")
            assert fragment.status_code == 200 and fragment.text.lstrip().startswith('<section class="bank-sale"')
            number = re.search(r'data-sale="(\d+)"', page.text).group(1)
            answer = phone.post(action="auction", sale=number, square="Port Sud", player="1", price="2,4M")
            assert answer.status_code == 303
            game = game_of(data / "soiree.game.yaml")
            assert (
                bank.describe(game, game.history[-1]).say(i18n.words("fr"))
                == "Bruno → banque · M 2,4M · achat de Port Sud aux enchères"
            )
            assert game.players[1].cash == 20_000_000 - 2_400_000
            assert 'id="sale"' not in phone.look().text and app.state.sales.pending() is None


# --- whatever the phones send ---------------------------------------------------------------------------

FIELDS = st.fixed_dictionaries(
    {
        "action": st.sampled_from(("square", "player", "transfer", "buy", "rent", "undo", "out", "drop", "x")),
        "op": st.sampled_from(
            (
                "residential",
                "industrial",
                "skyscraper",
                "stadium",
                "tower",
                "hazard",
                "mortgage",
                "lift",
                "salary",
                "tax",
                "fine",
                "house",
                "x",
            )
        ),
        "player": st.sampled_from(("0", "1", "2", "", "-1", "²")),
        "square": st.sampled_from(("Les Halles", "Quai Nord", "Port Sud", "halles", "Nowhere", "")),
        "to": st.sampled_from(("to:0", "to:1", "from:bank", "to:bank", "x:1", "to:9")),
        "amount": st.sampled_from(("600k", "1,5M", "0", "-1", "50M", "x", "")),
        "count": st.sampled_from(("1", "2", "0", "x", "99")),
        "confirm": st.sampled_from(("1", "")),
    }
)


@settings(max_examples=40, deadline=None)
@given(taps=st.lists(FIELDS, max_size=12))
def test_whatever_the_phones_tap_the_cash_and_the_bank_stay_consistent(taps, tmp_path_factory):
    """Players' cash moves exactly by the bank's flows; a refused tap changes nothing; undoing all gives the start."""
    data = tmp_path_factory.mktemp("data")
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    app = create_app(None, "fr", data)
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    start = path.read_bytes()

    def base() -> int:  # what the players' cash is once the bank's flows are taken out
        game = game_of(path)
        return sum(p.cash for p in game.players) - bank_flow(game.history)

    expected = base()
    for form in taps:
        phone.look()
        before = path.read_bytes()
        answer = phone.post(**form)
        assert answer.status_code in (200, 303, 400), (form, answer.status_code)
        if answer.status_code != 303:
            assert path.read_bytes() == before
        assert base() == expected, form  # a player leaves only with nothing, or by a bankruptcy: no money vanishes
        assert path.read_text(encoding="utf-8") == positions.dumps(game_of(path), "trois.edition.yaml")
        assert ledger.differences(game_of(path)) == ()  # start + history = the position the page wrote
    game = game_of(path)
    if game.history:
        phone.look()
        assert phone.post(action="undo", count=str(len(game.history)), confirm="1").status_code == 303
        assert without_revision(path.read_bytes()) == without_revision(start)


@settings(max_examples=25, deadline=None)
@given(taps=st.lists(FIELDS, max_size=10))
def test_a_view_put_together_from_kept_lines_is_the_view_rendered_afresh(taps, tmp_path_factory):
    """Each history line in words is kept by its entry (unit/web/caches.py, PartCache): whatever the taps, the view
    served is the view rendered with nothing kept, refusals and questions included; and the players' names that
    look like the token, the version or the markup are only names."""
    data = tmp_path_factory.mktemp("data")
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    app = create_app(None, "fr", data)
    phone = Banker(app)
    phone.create("trois.edition.yaml", "<csrf>, <cards>")
    for player, square in (("0", "Les Halles"), ("0", "Quai Nord"), ("1", "Port Sud")):  # cards for the taps
        phone.tap(action="buy", player=player, square=square)
    for form in taps:
        phone.look()
        answer = phone.post(**form)
        if answer.status_code == 303:
            answer = phone.http.get(answer.headers["location"])
            app.state.web.parts.clear()
            again = phone.http.get(answer.headers.get("content-location", str(answer.url)))
        else:  # a refusal or a question changes nothing: the same form again is answered the same
            app.state.web.parts.clear()
            again = phone.post(**form)
        assert (again.status_code, again.text) == (answer.status_code, answer.text), form
        assert set(re.findall(r'name="csrf" value="([^"]*)"', answer.text)) == {phone.csrf}
        assert len(set(re.findall(r'name="version" value="([^"]*)"', answer.text))) == 1
        assert set(re.findall(r'data-player="([^"]*)"', answer.text)) <= {"&lt;csrf&gt;", "&lt;cards&gt;"}
        assert not any(mark in answer.text for mark in ("<csrf>", "<version>", "<cards>"))


# --- what the pages keep --------------------------------------------------------------------------------


def page_afresh(data, phone: Banker) -> str:
    """The game page as a service started now on the same folder renders it (nothing kept), the token aside."""
    other = Banker(create_app(None, "fr", data), phone.name)
    return other.look().text.replace(other.csrf, "")


def test_a_game_changed_on_disk_is_seen_and_a_tap_from_before_is_refused(app, data, capsys):
    """The page keeps the game the bank wrote, its board (cards, taps, problems), its history's words, and that its
    file is the bank's own text: the file changed since, by the command line or by hand, is read again, a tap from a
    page of before is refused, and a file changed by hand is written whole again (as the command line writes it)."""
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="transfer", player="1", to="to:0", amount="1M")
    phone.look()
    # the command line builds (the position: the board changes) and pays, on the same file
    assert cli_json(capsys, "build", str(path), "Les Halles", "--residential", "1")[0] == 0
    assert cli_json(capsys, "pay", str(path), "Bruno", "Alice", "500k")[0] == 0
    written = path.read_bytes()
    late = phone.post(action="transfer", player="1", to="to:0", amount="1M")  # from the page before
    assert late.status_code == 409 and path.read_bytes() == written
    page = phone.look()
    assert page.text.replace(phone.csrf, "") == page_afresh(data, phone)
    assert history_shown(phone.look("/history"))[0] == "Bruno → Alice · M 500k · virement"
    game = game_of(path)
    assert cash_shown(page) == [money.text("city", p.cash, "fr") for p in game.players]
    # by hand: the same game, written otherwise (a blank line before each entry and each player)
    path.write_text(path.read_text(encoding="utf-8").replace("\n- ", "\n\n- "), encoding="utf-8")
    late = phone.post(action="transfer", player="1", to="to:0", amount="1M")
    assert late.status_code == 409
    phone.tap(action="transfer", player="1", to="to:0", amount="1M")
    assert path.read_text(encoding="utf-8") == positions.dumps(game_of(path), "trois.edition.yaml")
    assert len(game_of(path).history) == 5
    assert phone.look().text.replace(phone.csrf, "") == page_afresh(data, phone)


def test_an_edition_changed_within_one_tick_and_of_the_same_size_is_read_again(app, data):
    """An edition's file changed twice within one tick of its clock, to the same size, keeps its size and time: the
    page still sees the change (its bytes are compared while its time is recent), in the taps' prices."""
    phone = Banker(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Les Halles")

    def residential_price() -> str:
        found = re.search(r'id="op-residential">[^<]*<b>([^<]*)</b>', phone.look("/square/Les Halles").text)
        return html.unescape(found.group(1))

    assert residential_price() == "M 200k"
    edition = data / "trois.edition.yaml"
    was = edition.stat()
    edition.write_text(THREE_DISTRICTS.replace("residential_cost: 200k", "residential_cost: 250k", 1), "utf-8")
    os.utime(edition, ns=(was.st_atime_ns, was.st_mtime_ns))  # the same size and the same time
    assert edition.stat().st_size == was.st_size
    assert residential_price() == "M 250k"
    long_ago = time.time_ns() - 60 * 10**9  # a time old enough to say the file is unchanged by itself
    os.utime(edition, ns=(long_ago, long_ago))
    assert residential_price() == "M 250k"
    kept = app.state.web.editions
    first = kept.load("trois.edition.yaml", data, "edition", "fr")
    assert kept.load("trois.edition.yaml", data, "edition", "fr") is first  # kept: its time alone says it now
