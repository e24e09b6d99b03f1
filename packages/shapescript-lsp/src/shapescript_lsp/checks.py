"""Checks off the event loop: the server reads the editor's messages and answers
requests on its event loop while documents are checked on worker threads.

* A document has at most one check running; a newer text that arrives meanwhile waits
  (only the latest: the texts in between are never checked), and a large file's running
  check is cancelled, its result stale before it ends. A check whose text was replaced
  while it ran is not published.
* Large files have a worker of their own, so that their long checks never hold up an
  ordinary file's.
* The results are applied on the event loop (``done``), so a request never sees a
  document half-updated.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from shapescript import api

log = logging.getLogger("shapescript_lsp")


@dataclass
class Want:
    """A text of a document to check: its version, whether to check it afresh (a save),
    whether it is a large file, and the files an importer chain has checked already."""

    version: int | None
    text: str
    fresh: bool = False
    large: bool = False
    seen: frozenset[str] = frozenset()
    cancel: threading.Event = field(default_factory=threading.Event)


# done(uri, document, want, checked or None, stale)
Done = Callable[[str, Any, Want, Any, bool], None]


class CheckQueue:
    """The documents waiting for a check and the ones being checked."""

    def __init__(self, done: Done) -> None:
        self.done = done
        self.waiting: dict[str, tuple[Any, Want]] = {}
        self.running: dict[str, Want] = {}
        self._workers = {False: ThreadPoolExecutor(1, "shapescript-check"),
                         True: ThreadPoolExecutor(1, "shapescript-check-large")}
        self._idle: asyncio.Event | None = None

    # -- on the event loop -------------------------------------------------------------
    def want(self, uri: str, doc: Any, want: Want) -> None:
        """Checks ``want``'s text of ``uri`` once the document's running check, if any,
        ends; replaces any text still waiting."""
        old = self.waiting.get(uri)
        if old is not None:
            want.fresh |= old[1].fresh
        self.waiting[uri] = (doc, want)
        running = self.running.get(uri)
        if running is None:
            self._start(uri)
        elif running.large:
            running.cancel.set()
        self._update_idle()

    def forget(self, uri: str) -> None:
        """The document was closed: nothing of it is checked any more."""
        self.waiting.pop(uri, None)
        running = self.running.get(uri)
        if running is not None:
            running.cancel.set()
        self._update_idle()

    def close(self) -> None:
        """Stops every check (the server is exiting): a running one at its next
        declaration, so that the process doesn't wait for a long check to end."""
        self.waiting.clear()
        for want in self.running.values():
            want.cancel.set()
        for worker in self._workers.values():
            worker.shutdown(wait=False, cancel_futures=True)

    async def settled(self, timeout: float) -> None:
        """Returns once no ordinary file is waiting for or in a check, or after
        ``timeout`` seconds."""
        idle = self._idle_event()
        if idle.is_set():
            return
        try:
            await asyncio.wait_for(idle.wait(), timeout)
        except asyncio.TimeoutError:
            log.warning("answering from the last check: the current one took over %.0f s",
                        timeout)

    def busy(self) -> bool:
        """Whether an ordinary file is waiting for or in a check."""
        return any(not w.large for _, w in self.waiting.values()) or \
            any(not w.large for w in self.running.values())

    def _start(self, uri: str) -> None:
        doc, want = self.waiting.pop(uri)
        self.running[uri] = want
        loop = asyncio.get_running_loop()
        self._workers[want.large].submit(self._run, loop, uri, doc, want)

    def _finish(self, uri: str, doc: Any, want: Want, checked: Any) -> None:
        if self.running.get(uri) is want:
            del self.running[uri]
        try:
            if not want.cancel.is_set():
                self.done(uri, doc, want, checked, uri in self.waiting)
        except Exception:  # noqa: BLE001 - a failed publication must not stop the queue
            log.error("publishing %s failed:\n%s", uri, traceback.format_exc())
        finally:
            if uri in self.waiting and uri not in self.running:
                self._start(uri)
            self._update_idle()

    def _idle_event(self) -> asyncio.Event:
        if self._idle is None:
            self._idle = asyncio.Event()
            self._update_idle()
        return self._idle

    def _update_idle(self) -> None:
        if self._idle is None:
            return
        if self.busy():
            self._idle.clear()
        else:
            self._idle.set()

    # -- on a worker thread ------------------------------------------------------------
    def _run(self, loop: asyncio.AbstractEventLoop, uri: str, doc: Any, want: Want) -> None:
        checked = None
        try:
            checked = doc.check(want.text, fresh=want.fresh, incremental=not want.large,
                                cancelled=want.cancel.is_set)
        except api.CheckCancelled:
            pass
        except Exception:  # noqa: BLE001 - a failed check must not stop the server
            log.error("checking %s failed:\n%s", uri, traceback.format_exc())
        try:
            loop.call_soon_threadsafe(self._finish, uri, doc, want, checked)
        except RuntimeError:  # the loop is closed: the server is exiting
            pass
