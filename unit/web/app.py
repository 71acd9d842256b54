"""The phone companion's web application (Starlette): the composition root.

:func:`create_app` builds the application's state (:class:`unit.web.common.Web`, on ``app.state.web``),
the one route table of every page, the one handler of refusals, the body limit and the hub's lifespan.
The endpoints are plain functions of a request, at module level, in :mod:`unit.web.live` (the unit's
pages: ``/``, ``/remote``, ``/settings``, ``/share``, ``/events``...), :mod:`unit.web.game` (``/games``),
:mod:`unit.web.table` (a game's views), :mod:`unit.web.cards` (``/games/NAME/card``), :mod:`unit.web.reports` (its
rent, fortunes, check), :mod:`unit.web.bank` (its writes) and :mod:`unit.web.editions` (``/editions``); what they
share is in :mod:`unit.web.common`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from unit.web import WIFI_STATUS_PATH, bank, bank_page, cards, editions, game, live, reports, table, unpaired
from unit.web.common import HERE, Web, not_saved, paired_endpoint, paired_form_endpoint, refused
from unit.web.security import BodyLimit
from unit.web.store import NotSaved

POST = ["POST"]
GET = ["GET"]


def routes() -> list[BaseRoute]:
    """Every URL the service answers, and the endpoint that answers it (docs/phone.en.md)."""
    return [
        # The unit's pages: the live view, the remote and its pairing, the settings, sharing.
        Route("/", live.live, name="live"),
        Route("/remote", live.remote),
        Route("/settings", live.settings_page, methods=GET),
        Route("/settings", live.settings_post, methods=POST),
        Route("/share", live.share),
        Route("/qr.svg", live.qr),
        Route("/wifi-qr.svg", live.wifi_qr),
        Route("/manifest.{lang}.webmanifest", live.manifest),
        Route("/events", live.events),
        Route("/press", live.press, methods=POST),
        Route("/pair/request", live.pair_request, methods=POST),
        Route("/pair", live.pair, methods=POST),
        # The calculator: the games. Reading is open to every phone; each POST writes, and is a paired phone's
        # where there is a unit to pair with (paired_form_endpoint), else its page says how to pair (unpaired).
        Route("/games", game.games_page, methods=GET),
        Route("/games", paired_form_endpoint(game.create, unpaired.new_game), methods=POST),
        # The game at the table: one screen per action (unit/web/table.py); its corrections (unit/web/bank.py).
        Route("/games/{name}", table.table_page, methods=GET),
        Route("/games/{name}", paired_form_endpoint(bank.edit, unpaired.game_form), methods=POST),
        Route("/games/{name}/player/{i}", table.player_page, methods=GET),
        Route("/games/{name}/player/{i}/buy", table.buy_page, methods=GET),
        Route("/games/{name}/square/{square}", table.square_page, methods=GET),
        Route("/games/{name}/trade/{square}", table.trade_page, methods=GET),
        Route("/games/{name}/history", table.history_page, methods=GET),
        # The game's reports (unit/web/reports.py).
        Route("/games/{name}/rent", reports.rent_page, methods=GET),
        Route("/games/{name}/fortunes", reports.fortunes_page, methods=GET),
        Route("/games/{name}/check", reports.check_page, methods=GET),
        Route("/games/{name}/file", reports.game_file, methods=GET),
        # The table's bank: every payment in one tap, the history with undo, the box's auction sale.
        Route("/games/{name}/bank", paired_form_endpoint(bank.act, unpaired.game_form), methods=POST),
        Route("/games/{name}/sale", bank.sale_fragment, methods=GET),
        # A City card asked the first time the bank needs it (issue 27 item 4): the form, then the bank's tap.
        Route("/games/{name}/card", cards.card_page, methods=GET),
        Route("/games/{name}/card", paired_form_endpoint(cards.save, unpaired.game_card), methods=POST),
        # The calculator: the editions.
        Route("/editions", editions.index, methods=GET),
        Route("/editions/new", paired_form_endpoint(editions.new, unpaired.new_edition), methods=POST),
        Route(editions.UPLOAD_PATH, paired_endpoint(editions.upload, unpaired.upload), methods=POST),
        Route("/editions/{name}", editions.show, methods=GET),
        Route("/editions/{name}/card", editions.card, methods=GET),
        Route("/editions/{name}/card", paired_form_endpoint(editions.save_card, unpaired.card), methods=POST),
        Route("/editions/{name}/values", paired_form_endpoint(editions.save_values, unpaired.values), methods=POST),
        Route(
            "/editions/{name}/card/delete",
            paired_form_endpoint(editions.delete_card, unpaired.delete_card),
            methods=POST,
        ),
        Route("/editions/{name}/download", editions.download, methods=GET),
        Route("/editions/{kind}/template", editions.template, methods=GET),
        # The pages' own files.
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """The hub's connection to the unit, and the watch on its auctions for the bank, for as long as the service runs."""
    web: Web = app.state.web
    await web.hub.start()
    try:
        async with bank_page.watching(web.hub, app.state.sales):
            yield
    finally:
        await web.hub.stop()


def create_app(
    state_dir: str | Path | None,
    language: str = "fr",
    data_dir: str | Path | None = None,
    box: bool | None = None,
    wifi_status: str | Path | None = WIFI_STATUS_PATH,
) -> Starlette:
    """The application for a unit whose state folder is ``state_dir`` (None: no unit), its pages in
    ``language`` by default, the calculator's files in ``data_dir`` (None: beside the state); ``box``: whether
    the service is a box's, whose calculator is written from paired phones only even while the unit is away
    (None: when there is a state folder; :attr:`unit.web.common.Web.box`); ``wifi_status``: the file where the
    box's Wi-Fi helper says whether its own access point is up (:func:`unit.web.address.read_wifi_status`; None:
    no Wi-Fi to show)."""
    body_limit = Middleware(BodyLimit, larger={editions.UPLOAD_PATH: editions.MAX_UPLOAD}, explain=editions.too_large)
    app = Starlette(
        routes=routes(),
        middleware=[body_limit],
        # one handler per refusal type: a request's line, a full disk's, a tap's (the page again, with why)
        exception_handlers={HTTPException: refused, NotSaved: not_saved, bank.TapRefused: bank.refusal_page},
        lifespan=lifespan,
    )
    app.state.web = Web(state_dir, language, data_dir, box, wifi_status)
    app.state.sales = bank_page.Sales()  # the auctions the box ended, offered to the bank (unit/web/bank_page.py)
    return app
