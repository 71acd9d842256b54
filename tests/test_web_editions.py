"""The Editions pages (unit/web/editions.py): the built-in editions, a City edition entered card by card.

No unit runs: the calculator works without one. Every field's message is compared
with what the edition loader says about the same value in the same file; every
saved file is read back by the loader. Browser tests: test_web_editions_browser.py.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import JSON, card, csrf, full_card, version  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.calculator import edition, edition_file  # noqa: E402
from unit.errors import UserError  # noqa: E402
from unit.web import editions  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.security import MAX_BODY  # noqa: E402


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(None, "fr", tmp_path / "data"), base_url="http://box.local") as test_client:
        test_client.data = tmp_path / "data"
        yield test_client


def new_edition(client, name: str = "ma-ville") -> str:
    token = csrf(client)
    response = client.post("/editions/new", data={"csrf": token, "name": name})
    assert response.status_code == 200 and response.url.path == f"/editions/{name}"
    return token


def loader_message(tmp_path: Path, place: str, value: str, language: str) -> str:
    """What the loader says, in ``language``, of ``value`` at ``place`` of a one-card edition file."""
    card_values = {"price": "null", "residential_cost": "null", "industrial_cost": "null", "rents": "null"}
    card_values[place.split("[")[0]] = value
    rents = card_values.pop("rents")
    line = ", ".join(f"{k}: {v}" for k, v in card_values.items())
    text = (
        "game: city\nname: x\nhazards: {prison: 4}\ngroups:\n  - name: rouge\n    districts:\n"
        f"      - {{name: A, {line}, rents: {rents}}}\n"
    )
    path = tmp_path / "ma-ville.edition.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        edition.load(str(path), language=language)
    error = caught.value
    assert error.where.endswith(f"groups[0].districts[0].{place}"), error.where
    message = error.message
    return message if isinstance(message, str) else message.say(i18n.words(language))


# --- the built-in editions ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_built_in_editions_are_listed_and_downloadable_as_shipped(client, lang):
    page = client.get(f"/editions?lang={lang}")
    assert page.status_code == 200
    for name in edition.SHIPPED:
        assert f'data-edition="{name}"' in page.text and f"/editions/{name}/download" in page.text
        download = client.get(f"/editions/{name}/download")
        shipped = resources.files("unit.calculator").joinpath(f"editions/{name}.yaml").read_text(encoding="utf-8")
        assert download.status_code == 200 and download.text == shipped
        assert download.headers["content-disposition"] == f'attachment; filename="{name}.yaml"'
        assert client.get(f"/editions/{name}").status_code == 200
    assert ("Éditions" if lang == "fr" else "Editions") in page.text


# --- checking as it is typed --------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_field_gets_the_loaders_own_message_in_the_pages_language(client, tmp_path, lang):
    token = new_edition(client)
    form = card(token, version(client), **full_card("Rue A", "rouge") | {"rent3": "-5", "price": "1.5"})
    answer = client.post(f"/editions/ma-ville/card?lang={lang}", data=form | {"check": "1"}, headers=JSON).json()
    assert answer["ok"] is False
    assert answer["errors"] == {
        "rent3": loader_message(tmp_path, "rents[3]", "[0, 0, 0, '-5', 0, 0, 0, 0, 0]", lang),
        "price": loader_message(tmp_path, "price", "'1.5'", lang),
    }
    assert ("au moins 0, reçu -5" if lang == "fr" else "at least 0") in answer["errors"]["rent3"]


def test_every_wrong_field_is_named_at_once_and_a_right_card_checks_clean(client):
    token = new_edition(client)
    ver = version(client)
    wrong = {"name": "", "price": "douze", "residential_cost": "-1", "rent0": "1M", "skyscraper_cost": "1.5"}
    answer = client.post("/editions/ma-ville/card", data=card(token, ver, **wrong) | {"check": "1"}, headers=JSON)
    errors = answer.json()["errors"]
    rents_left = {f"rent{j}" for j in range(1, 9)}  # typed one rent: the eight others are missing
    assert set(errors) == {"name", "price", "residential_cost", "skyscraper_cost", "group"} | rents_left
    right = card(token, ver, **full_card("A", "rouge")) | {"check": "1"}
    right = client.post("/editions/ma-ville/card", data=right, headers=JSON)
    assert right.status_code == 200
    assert right.json() == {"ok": True, "errors": {}}
    assert client.get("/editions/ma-ville").text.count('data-card="') == 0  # a check saves nothing


def test_an_empty_field_is_a_value_still_to_copy(client):
    token = new_edition(client)
    answer = client.post("/editions/ma-ville/card", data=card(token, version(client), name="A", group="rouge"))
    assert answer.status_code == 200 and answer.url.path == "/editions/ma-ville/card"
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert loaded.districts["A"].price is None and loaded.districts["A"].rents is None


# --- saving: the same file the command line reads -----------------------------------------------------


def test_three_cards_entered_make_the_edition_file_the_loader_reads_with_the_same_values(client):
    token = new_edition(client)
    for values in (
        full_card("Rue Alpha", "rouge", "2,5M"),
        full_card("Rue Bêta", "rouge", "2,6M"),
        full_card("Quai Gamma", "bleu", "12,5M", [f"{j + 1}00k" for j in range(9)], "8M"),
    ):
        answer = client.post("/editions/ma-ville/card", data=card(token, version(client), **values), headers=JSON)
        assert answer.status_code == 200 and answer.json()["ok"], answer.text
    assert answer.json()["progress"] == "3 quartiers sur 22"
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert list(loaded.groups) == ["rouge", "bleu"]
    assert (
        loaded.groups["rouge"].districts == ("Rue Alpha", "Rue Bêta") and loaded.groups["bleu"].skyscraper_cost == 8e6
    )
    gamma = loaded.districts["Quai Gamma"]
    assert (gamma.price, gamma.residential_cost, gamma.industrial_cost) == (12_500_000, 500_000, 1_000_000)
    assert gamma.rents == tuple((j + 1) * 100_000 for j in range(9))
    assert loaded.districts["Rue Alpha"].rents == (100_000, 300_000, 600_000, 1e6, 1.5e6, 2e6, 2.5e6, 3e6, 4e6)
    page = client.get("/editions?lang=en")
    assert "3 of 22 districts" in page.text
    assert "3 quartiers sur 22" in client.get("/editions/ma-ville?lang=fr").text


def test_a_card_changed_keeps_its_place_or_moves_to_its_new_group(client):
    token = new_edition(client)
    for values in (full_card("A", "rouge"), full_card("B", "rouge"), full_card("C", "bleu")):
        client.post("/editions/ma-ville/card", data=card(token, version(client), **values))
    client.post("/editions/ma-ville/card", data=card(token, version(client), "0", **full_card("A2", "rouge", "3M")))
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert loaded.groups["rouge"].districts == ("A2", "B") and loaded.districts["A2"].price == 3_000_000
    client.post("/editions/ma-ville/card", data=card(token, version(client), "1", **full_card("B", "Bleu ")))
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert loaded.groups["rouge"].districts == ("A2",) and loaded.groups["bleu"].districts == ("C", "B")
    assert list(loaded.groups) == ["rouge", "bleu"]  # "Bleu " is the group "bleu", as names compare
    form = client.get("/editions/ma-ville/card?n=0").text
    assert 'value="A2"' in form and 'value="3M"' in form and 'value="2,5M"' in form  # as the table writes them


def test_the_editions_own_values_are_checked_and_saved(client, tmp_path):
    token = new_edition(client)
    ver = re.search(r'name="version" value="([^"]*)"', client.get("/editions/ma-ville").text).group(1)
    values = {"csrf": token, "version": ver, "name": "Ma boîte", "starting_cash": "37,7M", "go_salary": "2M"}
    values |= {"industry_tax": "1,5M", "prison": "4", "dump": "9", "sewage_plant": "x", "power_station": ""}
    answer = client.post("/editions/ma-ville/values?lang=en", data=values, headers=JSON)
    assert answer.status_code == 400
    assert answer.json()["errors"] == {
        "dump": "expected a whole number from 1 to 8, got 9",
        "sewage_plant": "expected a whole number, got text 'x'",
    }
    answer = client.post("/editions/ma-ville/values", data=values | {"dump": "3", "sewage_plant": "2"}, headers=JSON)
    assert answer.json()["ok"]
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert (loaded.name, loaded.go_salary, loaded.industry_tax) == ("Ma boîte", 2_000_000, 1_500_000)
    assert loaded.hazards == {"prison": 4, "dump": 3, "sewage_plant": 2, "power_station": None}


def test_without_the_script_a_wrong_card_comes_back_with_its_messages_and_a_right_one_redirects(client):
    token = new_edition(client)
    wrong = client.post("/editions/ma-ville/card", data=card(token, version(client), name="A", price="-2M"))
    assert wrong.status_code == 400 and 'value="-2M"' in wrong.text and 'aria-invalid="true"' in wrong.text
    assert "au moins 0" in wrong.text
    right = client.post("/editions/ma-ville/card", data=card(token, version(client), name="A", group="r", price="2M"))
    assert right.url.path == "/editions/ma-ville/card" and right.url.query == b"saved=0"
    assert "Carte enregistrée : A." in right.text
    assert 'id="f-group" name="group" value="r"' in re.sub(r"\s+", " ", right.text)  # the next card: same group


def test_a_card_saved_from_a_stale_page_is_refused_and_changes_nothing(client):
    token = new_edition(client)
    stale = version(client)
    client.post("/editions/ma-ville/card", data=card(token, stale, name="A", group="rouge"))
    before = (client.data / "ma-ville.edition.yaml").read_bytes()
    answer = client.post("/editions/ma-ville/card", data=card(token, stale, name="B", group="rouge"), headers=JSON)
    assert answer.status_code == 409
    assert (
        answer.json()["errors"]["_"]
        == "ma-ville.edition.yaml: l'édition a changé entre-temps (un autre téléphone ?) : rechargez la page"
    )
    assert (client.data / "ma-ville.edition.yaml").read_bytes() == before


# --- upload and download ------------------------------------------------------------------------------


def upload(client, token: str, name: str, body: bytes, lang: str = "fr"):
    headers = {"x-csrf-token": token, "content-type": "application/yaml"}
    return client.post(f"/editions/upload?name={name}&lang={lang}", content=body, headers=headers)


def test_an_uploaded_edition_is_kept_as_sent_and_downloaded_the_same(client):
    token = csrf(client)
    text = resources.files("unit.calculator").joinpath("editions/city-template.yaml").read_bytes()
    answer = upload(client, token, "mon-modele", text)
    assert answer.status_code == 200 and answer.json() == {"ok": True, "location": "/editions/mon-modele"}
    assert (client.data / "mon-modele.edition.yaml").read_bytes() == text
    download = client.get("/editions/mon-modele/download")
    assert download.content == text
    assert download.headers["content-disposition"] == 'attachment; filename="mon-modele.edition.yaml"'
    assert "0 quartier sur 22" in client.get("/editions").text  # its 22 cards are all still to copy
    again = upload(client, token, "mon-modele", text)
    assert again.status_code == 400 and "existe déjà" in again.json()["error"]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_bad_upload_gets_the_loaders_line_and_changes_nothing(client, tmp_path, lang, monkeypatch):
    monkeypatch.chdir(tmp_path)
    token = new_edition(client, "ma-ville")
    before = sorted((p.name, p.read_bytes()) for p in client.data.iterdir())
    wrong_field = (
        b"game: city\nname: x\nhazards: {prison: 4}\ngroups:\n  - {name: r, districts: [{name: A, price: -5}]}\n"
    )
    cases = {
        b"game: city\nname: [\n": "syntax",
        b"\x89PNG\r\n\x1a\n\0\0": "binary",
        wrong_field: "price",
        b"game: chess\n": "game",
    }
    for body, _what in cases.items():
        answer = upload(client, token, "autre", body, lang)
        path = tmp_path / "autre.edition.yaml"
        path.write_bytes(body)
        with pytest.raises(UserError) as caught:
            edition.load(path.name, language=lang)  # as the command line in that folder says it
        assert answer.status_code == 400
        assert answer.json()["error"] == caught.value.say(i18n.words(lang)), _what
    big = upload(client, token, "autre", b"# " + b"x" * (10 * 1024 * 1024) + b"\n", lang)
    assert big.status_code == 413
    limit = editions.MAX_UPLOAD
    expected = {"fr": f"trop grand (plus de {limit} octets) pour une édition", "en": "too large"}[lang]
    assert big.text.startswith("autre.edition.yaml: ") and expected in big.text
    assert sorted((p.name, p.read_bytes()) for p in client.data.iterdir()) == before


def test_the_upload_is_bounded_and_every_other_body_stays_at_4_kib(client):
    token = new_edition(client)
    valid = b"game: city\nname: x\nhazards: {prison: 4}\ngroups: []\n"
    padded = valid + b"#" * (editions.MAX_UPLOAD - len(valid) - 1) + b"\n"
    assert len(padded) == editions.MAX_UPLOAD and upload(client, token, "juste", padded).status_code == 200
    assert upload(client, token, "trop", padded + b"\n").status_code == 413

    def chunks():
        for _ in range(300):
            yield b"#" * 1024

    headers = {"x-csrf-token": token}
    assert client.post("/editions/upload?name=trop", content=chunks(), headers=headers).status_code == 413
    assert client.post("/editions/upload?name=trop", headers={"content-length": "99999999"}).status_code == 413
    big_form = card(token, version(client), name="A" * MAX_BODY)
    assert client.post("/editions/ma-ville/card", data=big_form).status_code == 413
    assert not (client.data / "trop.edition.yaml").exists()


# --- who may do what ----------------------------------------------------------------------------------

POSTS = (
    "/editions/new",
    "/editions/ma-ville/card",
    "/editions/ma-ville/values",
    "/editions/ma-ville/card/delete",
    "/editions/upload?name=autre",
)


def test_every_state_changing_route_needs_the_same_origin_and_the_sessions_token(client):
    token = new_edition(client)
    before = sorted((p.name, p.read_bytes()) for p in client.data.iterdir())
    form = card(token, version(client), **full_card("A", "rouge")) | {"name": "autre"}
    evil = {"origin": "http://evil.example", "sec-fetch-site": "cross-site"}
    for path in POSTS:
        for headers in (evil, {"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
            assert client.post(path, data=form, headers=headers | {"x-csrf-token": token}).status_code == 403, path
        without = {key: value for key, value in form.items() if key != "csrf"}
        assert client.post(path, data=without).status_code == 403, path
        assert client.post(path, data=form | {"csrf": "x" * 43}, headers={"x-csrf-token": "x" * 43}).status_code == 403
    stranger = TestClient(client.app, base_url="http://box.local")  # no session: never loaded a page
    for path in POSTS:
        assert stranger.post(path, data=form, headers={"x-csrf-token": token}).status_code == 403, path
    assert sorted((p.name, p.read_bytes()) for p in client.data.iterdir()) == before


def test_reading_is_open_and_editing_needs_no_pairing(client):
    token = new_edition(client)  # no unit runs, nobody paired: a session and its token are enough
    answer = client.post(
        "/editions/ma-ville/card", data=card(token, version(client), name="A", group="r"), headers=JSON
    )
    assert answer.json()["ok"]
    assert TestClient(client.app, base_url="http://box.local").get("/editions/ma-ville/download").status_code == 200


def test_names_never_become_paths(client, tmp_path):
    token = csrf(client)
    for name in ("../evil", "..", "a/b", "A", "-x", ".hidden", "x" * 41, "ma ville", "%2e%2e"):
        answer = client.post("/editions/new", data={"csrf": token, "name": name})
        assert answer.status_code == 400 and 'id="new-error"' in answer.text, name
        assert upload(client, token, name, b"game: city\nname: x\nhazards: {}\ngroups: []\n").status_code == 400
    for name in edition.SHIPPED:  # a built-in edition's name stays the built-in one
        assert client.post("/editions/new", data={"csrf": token, "name": name}).status_code == 400
    for path in ("/editions/..%2f..%2fetc%2fpasswd/download", "/editions/../app.py", "/editions/%2e%2e/download"):
        assert client.get(path).status_code == 404, path
    assert client.get("/editions/nothing").status_code == 404
    assert client.get("/editions/ma-ville/card?n=../../x").status_code == 404
    assert not any(tmp_path.glob("evil*")) and not (client.data.parent / "evil.edition.yaml").exists()


# --- the file ------------------------------------------------------------------------------------------

money = st.integers(0, edition.money.MAX_AMOUNT)
amounts = st.none() | money
names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20).filter(
    lambda s: s.strip()
)


@settings(max_examples=60, deadline=None)
@given(
    title=names,
    district_names=st.lists(names, min_size=1, max_size=5, unique_by=edition.fields.name_key),
    values=st.lists(
        st.tuples(amounts, amounts, amounts, st.none() | st.lists(st.integers(0, 10**12), min_size=9, max_size=9)),
        min_size=5,
        max_size=5,
    ),
    sky=amounts,
    hazard=st.none() | st.integers(1, 8),
)
def test_the_file_written_reads_back_to_the_same_edition(title, district_names, values, sky, hazard):
    data = {"game": "city", "name": title, "hazards": {"dump": hazard}, "go_salary": sky, "groups": []}
    data["groups"] = [
        {
            "name": "g" + str(i % 2),
            "skyscraper_cost": sky,
            "districts": [
                {"name": n, "price": p, "residential_cost": r, "industrial_cost": ind, "rents": rents}
                for n, (p, r, ind, rents) in zip(district_names[i::2], values[i::2], strict=False)
            ],
        }
        for i in range(2)
        if district_names[i::2]
    ]
    written = edition.parse(data, "x")
    again = edition.parse(edition.yamlfile.parse(edition_file.render(written), "x"), "x")
    assert edition_file.document(again) == edition_file.document(written)  # type: ignore[arg-type]


def test_a_file_broken_by_hand_is_listed_with_the_loaders_line_and_still_downloadable(client):
    client.data.mkdir(parents=True, exist_ok=True)
    (client.data / "cassee.edition.yaml").write_text("game: city\nname: x\nhazards: {}\ngroups: [{name: r}]\n")
    line = "cassee.edition.yaml: groups[0]: missing `districts`"
    assert line in client.get("/editions?lang=en").text
    page = client.get("/editions/cassee?lang=en")
    assert page.status_code == 200 and line in page.text
    assert client.get("/editions/cassee/card").status_code == 404  # no card form on a file that does not read
    assert client.get("/editions/cassee/download").status_code == 200


def test_a_card_taken_out_leaves_the_others_and_its_group_goes_with_its_last_card(client):
    token = new_edition(client)
    for values in (full_card("A", "rouge"), full_card("B", "bleu"), full_card("C", "bleu")):
        client.post("/editions/ma-ville/card", data=card(token, version(client), **values))
    page = client.get("/editions/ma-ville/card?n=0")
    assert "Retirer la carte A" in page.text
    stale = version(client)
    taken = client.post("/editions/ma-ville/card/delete", data={"csrf": token, "version": stale, "n": "0"})
    assert taken.status_code == 200 and taken.url.query == b"m=deleted" and "Carte retirée." in taken.text
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert list(loaded.groups) == ["bleu"] and loaded.groups["bleu"].districts == ("B", "C")
    again = client.post("/editions/ma-ville/card/delete", data={"csrf": token, "version": stale, "n": "0"})
    assert again.status_code == 409
    assert set(edition.load(str(client.data / "ma-ville.edition.yaml")).districts) == {"B", "C"}
    assert client.post("/editions/ma-ville/card/delete", data={"csrf": token, "n": "7"}).status_code == 400
    evil = {"origin": "http://evil.example"}
    form = {"csrf": token, "version": version(client), "n": "0"}
    assert client.post("/editions/ma-ville/card/delete", data=form, headers=evil).status_code == 403


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_templates_to_fill_in_are_the_command_lines(client, lang, capsys):
    from unit.cli import main

    for kind in ("city", "europe-1991"):
        download = client.get(f"/editions/{kind}/template?lang={lang}")
        assert download.status_code == 200
        assert main(["edition", "template", kind, "--lang", lang]) == 0
        assert download.text == capsys.readouterr().out
    assert client.get("/editions/chess/template").status_code == 404


@settings(max_examples=200, deadline=None)
@given(
    field=st.sampled_from([*editions.CARD_AMOUNTS, *editions.RENT_FIELDS, "skyscraper_cost"]),
    typed=st.text(alphabet="0123456789kKmM,. -\u202f", min_size=1, max_size=9).filter(str.strip),
    lang=st.sampled_from(["fr", "en"]),
)
def test_a_typed_amount_gets_the_loaders_verdict_and_message(field, typed, lang):
    ed = edition_file.empty("x")
    values = editions.card_values(full_card("A", "rouge") | {field: typed})
    errors, result = editions.checked(editions.card_builder(ed, None), values, "x.edition.yaml", lang)
    place = {"skyscraper_cost": "skyscraper_cost"}.get(field) or (
        f"districts[0].rents[{field.removeprefix('rent')}]" if field.startswith("rent") else f"districts[0].{field}"
    )
    try:
        amount = edition.money.parse(typed.strip(), f"x.edition.yaml: groups[0].{place}", lang, typed=False)
    except UserError as error:
        assert errors == {field: error.message} and result is None
    else:  # a City amount under M 10k typed bare (« 500 ») is asked back as the command line asks it (issue 27)
        slip = edition.money.slip(typed.strip(), amount)
        asked = {} if slip is None else {field: slip.say(i18n.words(lang))}
        assert errors == asked and (result is None) == bool(asked)


def test_a_card_typed_is_saved_at_each_pause_when_right_and_replaces_itself(client):
    token = new_edition(client)
    typed = card(token, version(client), name="Rue", group="rouge", price="-1") | {"auto": "1"}
    wrong = client.post("/editions/ma-ville/card", data=typed, headers=JSON)
    assert wrong.status_code == 200 and set(wrong.json()["errors"]) == {"price"}
    assert edition.load(str(client.data / "ma-ville.edition.yaml")).districts == {}
    right = client.post("/editions/ma-ville/card", data=typed | {"price": "1M"}, headers=JSON).json()
    assert right["ok"] and right["n"] == 0 and "location" not in right and right["progress"] == "0 quartier sur 22"
    more = typed | {"name": "Rue des Lilas", "price": "1M", "n": "0", "version": right["version"]}
    assert client.post("/editions/ma-ville/card", data=more, headers=JSON).json()["n"] == 0
    loaded = edition.load(str(client.data / "ma-ville.edition.yaml"))
    assert list(loaded.districts) == ["Rue des Lilas"] and loaded.districts["Rue des Lilas"].price == 1_000_000
