"""The players' pages, served by the umpire's laptop on the local network (aiohttp).

Each side has its own link, ``/s/<secret>``, whose secret is 192 random bits
(:class:`Links`); a wrong or missing secret gets a refusal and nothing else, and the bare address
shows no side. :meth:`Links.renew` issues new links, which ends the old ones.

The server follows the save as it is played, from the window or the command line, in any process:
it looks at the save's change counter a few times a second (:class:`SaveFollower`), and when it
moved, opens the game afresh, builds each side's page (:func:`serve.side_state.side_state`) and
sends the fragments that changed to the side's devices as server-sent events (``/s/<secret>/events``).
The first response of a page already carries the side's view as it stands.

The umpire's window talks to it through ``/u/<umpire secret>/``: it shows a side the Trigger Window
its dialog shows (``window``), and reads what the side's players answered from the table
(``answers``); the dialog never waits on a device. Requests are small and bounded, each side has a
bounded number of live connections, and a device that reads slowly is sent only the latest page.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from serve.page import PARTS, back_html, fragments, page, reaction_html

#: How often the save is looked at for a change, in seconds (``PRAGMA data_version`` on a
#: connection kept open: a few microseconds a look, so a step reaches the devices at once).
POLL_S = 0.01
#: Live connections a side may have at once (its players' phones and tablets), and in all.
MAX_PER_SIDE = 16
MAX_ALL = 48
#: The largest request body accepted (an answer to a Trigger Window is a few hundred bytes).
MAX_BODY = 16 * 1024
#: Seconds between the comments that keep an idle live connection open.
HEARTBEAT_S = 15.0

BARE_PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
    "<meta name='viewport' content='width=device-width,initial-scale=1'><title>Brigadier</title></head>"
    "<body><h1>Brigadier</h1><p>This is the umpire's laptop. Ask the umpire for your side's link.</p></body></html>"
)
REFUSED = "This link is not valid: ask the umpire for your side's link (new links end the old ones)."


class Links:
    """Each side's secret (192 random bits), and the umpire's."""

    def __init__(self, sides: list[str]):
        self.sides = list(sides)
        self.umpire = secrets.token_urlsafe(24)
        self.renew()

    def renew(self) -> None:
        self._of = {s: secrets.token_urlsafe(24) for s in self.sides}

    def secret(self, side: str) -> str:
        return self._of[side]

    def side_of(self, secret: str) -> str | None:
        """The side whose secret this is (compared in constant time), or None."""
        found = None
        for side, mine in self._of.items():
            if hmac.compare_digest(mine.encode(), secret.encode()):
                found = side
        return found

    def is_umpire(self, secret: str) -> bool:
        return hmac.compare_digest(self.umpire.encode(), secret.encode())


class SaveFollower:
    """Notices when the save changes, and reads each side's page of it. A read-only connection is
    kept open: SQLite's ``PRAGMA data_version`` on it changes when another connection (the window,
    the command line) commits, and only then is the change counter read."""

    def __init__(self, path: Path, build: Callable[[Any, str], dict[str, Any]]):
        self.path = Path(path)
        self.build = build
        self._count: str | None = None
        self._conn: sqlite3.Connection | None = None
        self._version: int | None = None

    def counter(self) -> str | None:
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0, check_same_thread=False
                )
                self._version = None
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._version and self._count is not None:
                return self._count
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'change_count'").fetchone()
            self._version = version
        except sqlite3.Error:
            self.close()
            return None
        return None if row is None else str(row[0])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        if self._game is not None:
            self._game.close()
        self._game = None

    def changed(self) -> bool:
        now = self.counter()
        if now is None or now == self._count:
            return False
        self._count = now
        return True

    _game: Any = None

    def read(self, sides: list[str]) -> dict[str, dict[str, Any]]:
        """Each side's page of the save as it now stands: the game kept open follows the entries
        added since (:meth:`storage.game.Game.follow`), and is opened again after an Undo."""
        from storage.game import Game

        game = self._game
        if game is None or not game.follow():
            if game is not None:
                game.close()
            game = self._game = Game.open(self.path)
        return {s: self.build(game, s) for s in sides}

    def read_at(self, side: str, k: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """The page of ``side`` at the end of the ``k``-th phase played (0: as the game began; the
        last: now), with where it stands among them (:class:`storage.timeline.PhaseStops`: told by
        turn and phase, never by journal entry)."""
        from serve.side_state import side_state
        from storage.timeline import PhaseStops, Timeline

        self.read([])  # the game kept open, brought up to the save
        game = self._game
        stops = PhaseStops(Timeline.of(game))
        if not 0 <= k <= stops.last:
            raise LookupError(f"there is no such moment: the phases played are 0 to {stops.last}")
        state = side_state(game, side, stops.seq_of(k))
        label = stops.label(k, game.battle.oob.side_name)
        return state, {"k": k, "last": stops.last, "label": label}


@dataclass
class _Side:
    state: dict[str, Any] | None = None
    parts: dict[str, str] = field(default_factory=dict)
    version: int = 0  # one more for every change of its page
    window: dict[str, Any] | None = None
    queues: set[asyncio.Queue] = field(default_factory=set)


class PlayersServer:
    """The pages of every side of the game saved at ``path``."""

    def __init__(
        self, path: Path, sides: list[str], build: Callable[[Any, str], dict[str, Any]] | None = None
    ):
        if build is None:
            from serve.side_state import side_state as build
        self.follower = SaveFollower(path, build)
        self.links = Links(sides)
        self.sides = {s: _Side() for s in sides}
        self.answers: list[dict[str, Any]] = []
        self.updates = 0  # how many times the pages were brought up to date
        self._ready = asyncio.Event()
        self.app = web.Application(client_max_size=MAX_BODY)
        self.app.add_routes(
            [
                web.get("/", self._bare),
                web.get("/s/{secret}", self._page),
                web.get("/s/{secret}/events", self._events),
                web.get("/s/{secret}/at", self._at),
                web.post("/s/{secret}", self._answer),  # the page's own form, script or not
                web.post("/s/{secret}/answer", self._answer),
                web.get("/u/{secret}/links", self._links),
                web.post("/u/{secret}/renew", self._renew),
                web.post("/u/{secret}/window", self._window),
                web.get("/u/{secret}/answers", self._answers),
            ]
        )
        self.app.on_startup.append(self._start_following)
        self.app.on_shutdown.append(self._end_live)
        self.app.on_cleanup.append(self._stop_following)
        self._task: asyncio.Task | None = None
        # one thread of its own reads the save: its connections are used in the thread that made them
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="save-follower")

    # -- following the save ------------------------------------------------------------------
    async def _start_following(self, _app: web.Application) -> None:
        self._task = asyncio.get_running_loop().create_task(self._follow())

    async def _end_live(self, _app: web.Application) -> None:
        """Every live connection ends now (the devices say they have lost the laptop)."""
        for s in self.sides.values():
            for q in list(s.queues):
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
                q.put_nowait(_CLOSE)

    async def _stop_following(self, _app: web.Application) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await asyncio.get_running_loop().run_in_executor(self._pool, self.follower.close)
        self._pool.shutdown(wait=False)

    async def _follow(self) -> None:
        loop = asyncio.get_running_loop()
        pool = self._pool
        while True:
            try:
                if await loop.run_in_executor(pool, self.follower.changed):
                    states = await loop.run_in_executor(pool, self.follower.read, list(self.sides))
                    for side, state in states.items():
                        self._publish(side, state)
                    self.updates += 1
                    self._ready.set()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 (a save being written, or gone: looked at again)
                self.follower._count = None
            await asyncio.sleep(POLL_S)

    def _publish(self, side: str, state: dict[str, Any] | None = None) -> None:
        s = self.sides[side]
        if state is not None:
            s.state = state
        if s.state is None:
            return
        parts = fragments(s.state, s.window)
        changed = {k: v for k, v in parts.items() if s.parts.get(k) != v}
        s.parts = parts
        if not changed:
            return
        s.version += 1
        message = json.dumps({"v": s.version, "parts": changed}, ensure_ascii=False)
        for q in list(s.queues):
            with contextlib.suppress(asyncio.QueueEmpty):
                q.get_nowait()  # a device still reading the last update gets only the latest
            q.put_nowait(message)

    async def ready(self) -> None:
        """Wait until the pages have been read once."""
        await self._ready.wait()

    # -- the players' pages ------------------------------------------------------------------------
    def _side(self, request: web.Request) -> str:
        side = self.links.side_of(request.match_info["secret"])
        if side is None:
            raise web.HTTPForbidden(text=REFUSED)
        return side

    async def _bare(self, _request: web.Request) -> web.Response:
        return web.Response(text=BARE_PAGE, content_type="text/html")

    async def _page(self, request: web.Request) -> web.Response:
        side = self._side(request)
        await asyncio.wait_for(self.ready(), 30)
        s = self.sides[side]
        secret = request.match_info["secret"]
        html = page(
            s.state, s.window, live=f"/s/{secret}/events", version=s.version, look_back=f"/s/{secret}/at"
        )
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _at(self, request: web.Request) -> web.Response:
        """A side's page as it knew the game at the end of an earlier phase (``?k=N``; without
        it, the end of the phase before this one), with the steps back and on."""
        side = self._side(request)
        await asyncio.wait_for(self.ready(), 30)
        raw = request.query.get("k")
        try:
            k = None if raw is None else int(raw)
        except ValueError:
            raise web.HTTPBadRequest(text="Which moment? k is a whole number.") from None
        loop = asyncio.get_running_loop()
        try:
            if k is None:
                _, where = await loop.run_in_executor(self._pool, self.follower.read_at, side, 0)
                k = max(0, where["last"] - 1)
            state, where = await loop.run_in_executor(self._pool, self.follower.read_at, side, k)
        except LookupError as exc:
            raise web.HTTPNotFound(text=str(exc)) from None
        secret = request.match_info["secret"]
        strip = back_html(f"/s/{secret}", where["k"], where["last"], where["label"], state["side_name"])
        html = page(state, back=strip)
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        side = self._side(request)
        s = self.sides[side]
        if len(s.queues) >= MAX_PER_SIDE or sum(len(x.queues) for x in self.sides.values()) >= MAX_ALL:
            raise web.HTTPServiceUnavailable(text="Too many devices are following this game.")
        resp = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await resp.prepare(request)
        q: asyncio.Queue = asyncio.Queue(maxsize=1)
        s.queues.add(q)
        try:
            if s.parts:
                # the page as it stands: a page that already shows this version keeps what it has
                whole = {"v": s.version, "parts": {k: s.parts[k] for k in PARTS}}
                await resp.write(_event(json.dumps(whole, ensure_ascii=False)))
            while True:
                try:
                    message = await asyncio.wait_for(q.get(), HEARTBEAT_S)
                except TimeoutError:
                    await resp.write(b": still here\n\n")
                    continue
                await resp.write(_event(message))
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            s.queues.discard(q)
        return resp

    async def _answer(self, request: web.Request) -> web.Response:
        side = self._side(request)
        form = await request.post()
        window = self.sides[side].window
        if window is None or form.get("window") != window["id"]:
            return web.Response(status=409, text="That Trigger Window is closed: nothing was sent.")
        choices: dict[str, str] = {}
        for d in window["defenders"]:
            key = form.get(d["id"])
            if key is None:
                continue
            allowed = {o["key"] for o in d["options"] if o["allowed"]}
            if key not in allowed:
                return web.Response(
                    status=400, text=f"{d['name']} cannot take that reaction now: nothing was sent."
                )
            choices[d["id"]] = str(key)
        if not choices:
            return web.Response(status=400, text="Choose a reaction first.")
        self.answers.append(
            {"n": len(self.answers) + 1, "side": side, "window": window["id"], "choices": choices}
        )
        return web.Response(text="Sent to the umpire, who decides.")

    # -- the umpire's window -------------------------------------------------------------------------
    def _umpire(self, request: web.Request) -> None:
        if not self.links.is_umpire(request.match_info["secret"]):
            raise web.HTTPForbidden(text=REFUSED)

    def link_map(self, base: str) -> dict[str, str]:
        return {s: f"{base}/s/{self.links.secret(s)}" for s in self.sides}

    async def _links(self, request: web.Request) -> web.Response:
        self._umpire(request)
        base = f"{request.scheme}://{request.host}"
        return web.json_response(self.link_map(base))

    async def _renew(self, request: web.Request) -> web.Response:
        self._umpire(request)
        self.links.renew()
        await self._end_live(self.app)  # the old links' live connections end
        return await self._links(request)

    async def _window(self, request: web.Request) -> web.Response:
        self._umpire(request)
        data = await request.json()
        side = data.get("side")
        if side not in self.sides:
            raise web.HTTPBadRequest(text="no such side")
        window = data.get("window")
        if window is not None:
            reaction_html(window)  # refused here if it is not a window the page can show
        for other, s in self.sides.items():
            s.window = window if other == side else (None if window is None else s.window)
            self._publish(other)
        return web.json_response({"ok": True})

    async def _answers(self, request: web.Request) -> web.Response:
        self._umpire(request)
        since = int(request.query.get("since", "0") or 0)
        return web.json_response([a for a in self.answers if a["n"] > since])


_CLOSE = "__close__"


def _event(message: str) -> bytes:
    if message == _CLOSE:
        raise ConnectionResetError("the link was renewed")
    return ("event: update\ndata: " + message.replace("\n", "\ndata: ") + "\n\n").encode("utf-8")


async def serve(
    path: Path, host: str, port: int, sides: list[str], started: Callable[[PlayersServer, str], None]
) -> None:
    """Serve the pages of the game at ``path`` on ``host``:``port`` until cancelled; ``started``
    is told the server and its address once it listens."""
    server = PlayersServer(path, sides)
    runner = web.AppRunner(server.app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=64)
    await site.start()
    sock = site._server.sockets[0]  # the port chosen, when 0 was asked for
    real_port = sock.getsockname()[1]
    shown = host if host not in ("0.0.0.0", "") else _lan_address()
    await server.ready()
    started(server, f"http://{shown}:{real_port}")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def _lan_address() -> str:
    """This machine's address on the local network (nothing is sent to find it)."""
    import socket

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()
