"""The table's bank (issue 22, section 1): each action against the rule text it follows, quoted from
the user's French rule texts (regles-monopoly-city.txt, fiche-monopoly-classique.txt,
regles-monopoly-classique-suite.txt), on the documented example positions, and the command line's verbs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import cli_json, without_revision

from unit import i18n
from unit.calculator import bank, position, rules
from unit.calculator.bank import ActionRefused
from unit.cli import main
from unit.errors import Text, UserError

EXAMPLES = Path(__file__).resolve().parent.parent / "docs/examples"


def city() -> position.Game:
    return position.load(str(EXAMPLES / "city-game.yaml"))


def classic() -> position.Game:
    return position.load(str(EXAMPLES / "classic-game.yaml"))


def cash(game: position.Game) -> dict[str, int]:
    return {p.name: p.cash for p in game.players}


def holding(game: position.Game, name: str):
    return game.held(name)[1]


def refused(game: position.Game, action: bank.Action) -> ActionRefused:
    with pytest.raises(ActionRefused) as caught:
        bank.apply(game, action)
    return caught.value


def said(words: ActionRefused | Text, language: str = "fr") -> str:
    """A refusal or a history line as the reader of ``language`` reads it (the command line, the page)."""
    return words.say(i18n.words(language))


# --- Monopoly City ----------------------------------------------------------------------------------


def test_rent_paid_to_the_owner_is_the_calculators_rent():
    # « Quartier qui appartient à un autre joueur : Vous devez lui payer le loyer. » Docks: M 600k
    # (docs/calculator.md: 2 industrial blocks under a prison, doubled once by skyscraper and tower).
    game = city()
    after, entry = bank.apply(game, bank.PayRent("bruno", "docks"))
    assert entry.payment == bank.Payment("Bruno", "Alice", 600_000)
    assert cash(after)["Bruno"] == cash(game)["Bruno"] - 600_000
    assert cash(after)["Alice"] == cash(game)["Alice"] + 600_000
    assert said(bank.describe(after, entry)) == "Bruno → Alice · M 600k · loyer de Docks"
    assert said(bank.describe(after, entry), "en") == "Bruno → Alice · M 600k · rent of Docks"


def test_rent_exemption_card_is_honoured_and_goes_back_to_free_parking():
    # « La carte exonération de loyer vous permet de ne pas payer un loyer qui vous est demandé par un autre
    # joueur ! » « Une fois utilisée, replacez cette carte à côté de la case PARC GRATUIT. »
    game = city()
    chloe = next(p for p in game.players if p.name == "Chloé")
    game = position.Game(
        game.source,
        game.edition,
        tuple(
            p if p is not chloe else position.Player("Chloé", chloe.cash, chloe.holdings, None, True)
            for p in game.players
        ),
    )
    after, entry = bank.apply(game, bank.PayRent("chloé", "docks", exemption=True))
    assert cash(after) == cash(game)
    assert not next(p for p in after.players if p.name == "Chloé").exemption_card
    assert "carte exonération" in said(bank.describe(after, entry))
    assert refused(after, bank.PayRent("chloé", "docks", exemption=True)).key == "bank.no_exemption_card"


def test_no_rent_on_a_mortgaged_district():
    # « Vous ne pouvez percevoir aucun loyer pour un quartier hypothéqué. »
    error = refused(city(), bank.PayRent("bruno", "tanneries"))
    assert error.key == "bank.rent_mortgaged"
    assert "Vous ne pouvez percevoir aucun loyer pour un quartier hypothéqué." in said(error)


def test_short_of_cash_says_what_the_player_can_mortgage():
    # « Si vous ne pouvez pas payer un loyer ou une taxe qui vous est réclamé, vous pouvez hypothéquer un ou
    # plusieurs de vos quartiers pour récupérer de l'argent. »
    game = city()
    error = refused(game, bank.Pay("Chloé", "Alice", 100_000_000))
    assert error.key == "bank.short"
    assert "Chloé n'a que M 21,3M pour payer M 100M (il manque M 78,7M)" in said(error)
    assert "hypothéquer Front de Mer (M 480k)" in said(error)
    assert "vous pouvez hypothéquer un ou plusieurs de vos quartiers" in said(error)


def test_salary_with_the_stadium_income():
    # « Vous recevez M 1M par stade possédé chaque fois que vous passez par la case DÉPART (en plus de votre
    # salaire) ! » Bruno has one stadium; the example board's salary is M 2M.
    after, entry = bank.apply(city(), bank.Salary("bruno"))
    assert entry.payment == bank.Payment(None, "Bruno", 3_000_000)
    assert said(bank.describe(after, entry)) == "banque → Bruno · M 3M · salaire de la case DÉPART"


def test_industry_tax_only_with_an_industrial_building():
    # « Si vous possédez un bâtiment industriel, vous devez payer le montant indiqué sur la case du plateau.
    # Si vous n'en possédez pas, vous n'avez rien à payer. »
    after, entry = bank.apply(city(), bank.PayTax("alice"))
    assert entry.payment == bank.Payment("Alice", None, 1_000_000)
    error = refused(city(), bank.PayTax("chloé"))
    assert "Si vous n'en possédez pas, vous n'avez rien à payer." in said(error)


def test_buy_at_the_printed_price_or_the_auction_price():
    # « Vous pouvez l'acheter au prix indiqué sur la case du plateau. Versez alors la somme demandée au
    # banquier. » « Les enchères commencent au montant fixé [...] avec un minimum de M 10k. »
    game = city()
    after, entry = bank.apply(game, bank.Buy("chloé", "halles"))
    assert entry.payment == bank.Payment("Chloé", None, 1_400_000)
    assert holding(after, "Les Halles") == position.CityHolding(
        "Les Halles", 0, 0, None, None, False, False, False, False
    )
    after, entry = bank.apply(game, bank.Buy("chloé", "halles", price=900_000))
    assert entry.what == "auction" and entry.payment.amount == 900_000
    assert refused(game, bank.Buy("chloé", "halles", price=5_000)).key == "bank.auction_minimum"
    assert refused(game, bank.Buy("chloé", "docks")).key == "bank.already_owned"


def test_build_blocks_at_the_cards_costs_and_the_8_blocks():
    # « Vous devez alors les acheter auprès de la banque au prix indiqué sur la/les carte(s) de propriété. »
    # « construisez jusqu'à 8 bâtiments par quartiers » (Docks: 3 residential + 2 industrial already).
    game = city()
    after, entry = bank.apply(game, bank.Build("docks", residential=1, industrial=1))
    assert entry.payment == bank.Payment("Alice", None, 250_000 + 500_000)
    assert (holding(after, "Docks").residential, holding(after, "Docks").industrial) == (4, 3)
    assert [said(line) for line in bank.describe_changes(entry)] == ["Docks : résidentiels 3 → 4, industriels 2 → 3"]
    error = refused(after, bank.Build("docks", industrial=2))
    assert error.key == "calculator.check.max_blocks"


def test_stadium_and_tower_costs_and_limits():
    # « Coût : M 2M » (stade), « Il n'existe que 2 stades dans le jeu », « Vous pouvez construire 1 stade par
    # groupe de couleur. » ; la tour Monopoly « Coût : M 7M », one in the game.
    game = city()
    after, entry = bank.apply(game, bank.Build("plein ouest", stadium=True))
    assert entry.payment.amount == 2_000_000
    assert refused(after, bank.Build("gare", stadium=True)).key == "calculator.check.max_stadiums"  # Bruno has one
    assert refused(game, bank.Build("gare", tower=True)).key == "bank.one_tower"


def test_hazard_removal_costs_500k_per_block():
    # « Pour enlever une prison (qui vaut 4 bâtiments) d'un de vos quartiers, payez M 2M (4 x M 500k) »
    after, entry = bank.apply(city(), bank.RemoveHazard("docks"))
    assert entry.payment == bank.Payment("Alice", None, 2_000_000)
    assert holding(after, "Docks").hazard is None


def test_city_mortgage_is_the_rent_value_and_lifting_repays_what_the_bank_paid():
    # « La valeur de l'hypothèque correspond à la valeur du loyer au moment de l'hypothèque » ; « Vous pouvez
    # lever une hypothèque en payant la valeur de l'hypothèque à la banque, soit le montant que la banque vous a
    # versé auparavant. »
    game = city()
    after, entry = bank.apply(game, bank.Mortgage("docks"))
    assert entry.payment == bank.Payment(None, "Alice", 600_000)
    after, _ = bank.apply(after, bank.RemoveHazard("docks"))  # the rent value changes meanwhile...
    after, lift = bank.apply(after, bank.Lift("docks"))
    assert lift.payment == bank.Payment("Alice", None, 600_000)  # ...the lift is what the bank paid


def test_the_city_bank_does_not_buy_buildings_back():
    assert refused(city(), bank.SellBack("docks")).key == "bank.city_no_buy_back"


def test_out_to_a_player_gives_cash_and_districts():
    # « Dette envers un autre joueur : Dans ce cas, ce joueur reçoit vos billets, vos cartes de propriété »
    game = city()
    after, entry = bank.apply(game, bank.Out("bruno", "alice"))
    assert [p.name for p in after.players] == ["Alice", "Chloé"]
    assert cash(after)["Alice"] == cash(game)["Alice"] + cash(game)["Bruno"]
    assert {h.district for h in after.players[0].holdings} >= {"Opéra", "Beaux-Arts", "Port Sud"}
    back, _ = bank.undo(after)
    assert back.players == game.players and back.history == ()


def test_out_to_the_bank_returns_the_cards():
    # « Dette envers la banque : Dans ce cas, rendez vos cartes de propriété à la banque »
    game = city()
    after, entry = bank.apply(game, bank.Out("alice"))
    assert entry.payment == bank.Payment("Alice", None, 12_500_000)
    assert game.holding("Docks") is not None and after.holding("Docks") is None


def test_the_last_player_left_cannot_go_out():
    # « Le dernier joueur restant en jeu est le vainqueur. »: a game with nobody in it would not read again
    game = city()
    game, _ = bank.apply(game, bank.Out("alice"))
    game, _ = bank.apply(game, bank.Out("bruno"))
    with pytest.raises(ActionRefused) as refused:
        bank.apply(game, bank.Out("chloé"))
    assert refused.value.say(i18n.words("fr")).endswith(
        "Chloé est le dernier joueur : la partie est finie, et Chloé l'a gagnée"
    )


# --- classic ----------------------------------------------------------------------------------------


def test_classic_rent_and_tax_squares():
    # « payez-lui le montant du loyer indiqué sur la carte Propriété » ; « Impôts sur le revenu/Taxe de luxe:
    # Payez le montant indiqué sur la case à la banque. »
    game = classic()
    after, entry = bank.apply(game, bank.PayRent("malik", "paix"))
    assert entry.payment == bank.Payment("Malik", "Bob", 1700)
    after, entry = bank.apply(game, bank.PayRent("léa", "luxe"))
    assert entry.payment == bank.Payment("Léa", None, 100) and entry.what == "tax"


def test_classic_houses_build_evenly():
    # « Construisez de façon équilibrée. Vous ne pouvez pas construire de deuxième maison sur une rue avant d'en
    # avoir construite une sur chaque rue du groupe. » Malik: Vaugirard 2, Courcelles 2, République 1.
    game = classic()
    assert refused(game, bank.Build("vaugirard", houses=1)).key == "calculator.check.even_building"
    after, entry = bank.apply(game, bank.Build("république", houses=1))
    assert entry.payment == bank.Payment("Malik", None, 50)
    assert (holding(after, "Avenue de la République").houses, after.players[2].cash) == (2, 1890 - 50)


def test_classic_build_says_the_missing_group_before_the_mortgage():
    # « Vous ne pouvez pas construire avant d'avoir complété un groupe de couleur! » comes first: Bob holds Rue
    # Lecourbe (mortgaged) without Boulevard de Belleville. « Vous ne pouvez pas construire sur une rue si une des
    # rues de son groupe de couleur est hypothéquée. » : Léa holds the whole red group, Henri-Martin mortgaged.
    game = classic()
    error = refused(game, bank.Build("lecourbe", houses=1))
    assert error.key == "bank.build_needs_group"
    assert said(error) == (
        "Bob ne possède pas tout le groupe de Rue Lecourbe (il manque Boulevard de Belleville) : « Vous ne pouvez "
        "pas construire avant d'avoir complété un groupe de couleur ! »"
    )
    assert refused(game, bank.Build("lecourbe", hotel=True)).key == "bank.build_needs_group"
    for square in ("matignon", "henri"):
        error = refused(game, bank.Build(square, houses=1))
        assert error.key == "bank.build_on_mortgaged_group"
    assert said(error) == (
        "Avenue Henri-Martin est hypothéquée : « Vous ne pouvez pas construire sur une rue si une des rues de son "
        "groupe de couleur est hypothéquée. »"
    )
    assert said(error, "en").startswith("Avenue Henri-Martin is mortgaged: ")


def test_classic_hotel_needs_four_houses_and_sells_back_at_half():
    # « Vous devez avoir quatre maisons sur chaque site d'un groupe avant de pouvoir acheter un hôtel. »
    # « Pour les hôtels, la banque paiera la moitié du prix de l'hôtel, plus la moitié du prix des quatre
    # maisons » : Champs-Élysées 100 + 4 × 100 = 500.
    game = classic()
    assert refused(game, bank.SellBack("champs")).key == "calculator.check.even_building"  # not beside 4 houses
    # « Vendez les hôtels à la banque pour la moitié de leur coût d'achat et échangez-les immédiatement contre 4
    # maisons. »
    after, entry = bank.apply(game, bank.SellBack("champs", houses=1))
    assert entry.payment == bank.Payment(None, "Bob", 100)
    assert (holding(after, "Avenue des Champs-Élysées").houses, holding(after, "Avenue des Champs-Élysées").hotel) == (
        4,
        False,
    )
    assert refused(game, bank.Build("paix", hotel=True, variant="quick")).key == "bank.hotel_needs_houses"


def test_classic_mortgage_needs_the_groups_buildings_sold_and_lifts_at_10_percent():
    # « Pour hypothéquer une propriété, vous devez d'abord vendre tous les bâtiments de son groupe de couleur »
    # « Quand vous voulez lever l'hypothèque, vous devez payer cette valeur additionnée de 10% d'intérêts. »
    game = classic()
    error = refused(game, bank.Mortgage("paix"))
    assert error.key == "bank.mortgage_sell_first"
    after, entry = bank.apply(game, bank.Lift("henri"))
    assert entry.payment == bank.Payment("Léa", None, 132)


def test_classic_trade_of_a_mortgaged_deed_pays_the_interest_at_once():
    # « Le nouveau propriétaire doit immédiatement: [...] maintenir l'hypothèque (payer uniquement 10% de la
    # valeur de l'hypothèque à la banque pour l'instant). »
    game = classic()
    after, entry = bank.apply(game, bank.Trade("bob", "malik", ("lecourbe",), 20))
    assert entry.payments == (bank.Payment("Malik", "Bob", 20), bank.Payment("Malik", None, 3))
    # « aucun terrain ne peut être vendu à un autre joueur s'il y a des bâtiments construits sur un des
    # terrains du même groupe »
    assert refused(game, bank.Trade("bob", "malik", ("paix",), 20)).key == "bank.trade_with_buildings"


def test_classic_out_to_a_player_sells_the_buildings_at_half():
    # « vos maisons et hôtels sont vendus à la banque à la moitié de leur valeur initiale, et ce joueur récupère
    # votre argent, vos cartes de propriété » ; « il doit immédiatement payer 10% »
    game = classic()
    after, entry = bank.apply(game, bank.Out("bob", "léa"))
    assert entry.payment == bank.Payment("Bob", "Léa", 1200 + 400 + 500)
    assert bank.Payment("Léa", None, 3) in entry.also  # Rue Lecourbe, mortgaged (30)
    assert all(not h.houses and not h.hotel for h in after.players[0].holdings)


# --- refusals change nothing; undo ------------------------------------------------------------------


def test_undo_of_n_entries_last_first():
    game = city()
    after = game
    for action in (bank.Salary("bruno"), bank.PayRent("bruno", "docks"), bank.Build("docks", residential=1)):
        after, _ = bank.apply(after, action)
    back, undone = bank.undo(after, 2)
    assert [e.what for e in undone] == ["build", "rent"]
    assert len(back.history) == 1
    assert refused(back, bank.Pay(None, None, 5)).key == "bank.bank_to_bank"
    with pytest.raises(ActionRefused):
        bank.undo(back, 2)


def test_the_rules_say_which_dice_they_refuse():
    # « les loyers de Monopoly City ne dépendent pas des dés »; classic: only a utility's rent is by the throw.
    city_rules, game = rules.of(city()), city()
    assert city_rules.dice_refusal(game, "Docks", None) is None
    assert city_rules.dice_refusal(game, "Docks", 7) == Text("calculator.args.city_no_dice")
    classic_rules, game = rules.of(classic()), classic()
    assert classic_rules.dice_refusal(game, "paix", 7) == Text("calculator.args.dice_not_utility", s="Rue de la Paix")
    assert classic_rules.dice_refusal(game, "eaux", 13) == Text("calculator.args.dice_range", n=13)
    for typed, dice in (("eaux", 7), ("eaux", None), ("paix", None), ("Taxe de luxe", 7), ("nulle part", 7)):
        assert classic_rules.dice_refusal(game, typed, dice) is None, typed  # a name not found: its look-up says so
    with pytest.raises(UserError) as caught:
        bank.apply(game, bank.PayRent("léa", "paix", dice=7))
    assert caught.value.message == classic_rules.dice_refusal(game, "paix", 7)


def test_an_unknown_player_lists_the_players():
    with pytest.raises(Exception) as caught:
        bank.apply(city(), bank.Salary("zoé"))
    assert "Alice, Bruno, Chloé" in str(caught.value)


# --- the command line -------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    for name in ("city-game.yaml", "city-example.yaml", "classic-game.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def test_cli_pay_history_and_undo_keep_the_same_file(files, capsys):
    game = str(files / "city-game.yaml")
    start = position.dumps(position.load(game), "city-example.yaml")
    (files / "city-game.yaml").write_text(start, encoding="utf-8")
    assert main(["pay", game, "Bruno", "Alice", "600k", "--for", "loyer de Docks"]) == 0
    assert main(["pay", game, "bruno", "--rent", "docks"]) == 0
    assert main(["salary", game, "bruno", "--pay"]) == 0
    assert main(["build", game, "docks", "--residential", "1"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == "Bruno → Alice · M 600k · loyer de Docks"
    status, obj, _ = cli_json(capsys, "history", game)
    assert [e["what"] for e in obj["history"]] == ["pay", "rent", "salary", "build"]
    assert obj["history"][0]["for"] == "loyer de Docks"
    text = (files / "city-game.yaml").read_text(encoding="utf-8")
    assert "- {what: rent, square: Docks, from: Bruno, to: Alice, amount: 600k}" in text
    assert main(["undo", game, "4"]) == 0
    undone = (files / "city-game.yaml").read_text(encoding="utf-8")
    assert without_revision(undone) == start and "\nrevision: 5\n" in undone  # a version never repeats


def test_cli_refusal_is_one_line_and_writes_nothing(files, capsys):
    game = files / "classic-game.yaml"
    before = game.read_bytes()
    assert main(["pay", str(game), "léa", "malik", "5000"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Léa n'a que 640 pour payer 5000" in err
    assert "essayez de récupérer des fonds en vendant des bâtiments" in err
    assert game.read_bytes() == before


def test_cli_existing_commands_unchanged_without_pay(files, capsys):
    status, obj, _ = cli_json(capsys, "mortgage", str(files / "city-game.yaml"), "docks")
    assert obj["amount"] == 600_000 and status == 0
    assert "history" not in (files / "city-game.yaml").read_text(encoding="utf-8")
    status, obj, _ = cli_json(capsys, "fortune", str(files / "classic-game.yaml"), "--variant", "rapide")
    assert obj["variant"] == "quick"


def test_a_refusal_is_the_rules_sentence_said_where_it_is_shown():
    # The bank computes no words: a refusal carries a Text, said in the reader's language by whoever shows it
    # (the command line, the page); str(), as for every UserError, is English.
    error = refused(city(), bank.PayRent("bruno", "tanneries"))
    assert isinstance(error.message, Text) and error.message.key == "bank.rent_mortgaged"
    assert error.say(i18n.words("en")).startswith("Les Tanneries is mortgaged: no rent")
    assert said(error).startswith("Les Tanneries est hypothéqué : pas de loyer")
    assert str(error).startswith("Les Tanneries is mortgaged")
    short = refused(city(), bank.Pay("Chloé", "Alice", 100_000_000))
    assert "Chloé has only M 21.3M to pay M 100M (M 78.7M short): mortgage Front de Mer (M 480k)" in short.say(
        i18n.words("en")
    )
