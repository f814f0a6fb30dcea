"""Where the engine's work runs: on its thread, or on the event loop itself when a document's
check is expected to be quick and the thread is idle, never two at once."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref

from jax_lsp.config import Settings
from jax_lsp.lsp import engine_thread
from jax_lsp.lsp.engine_thread import EngineThread
from jax_lsp.workspace import Workspace

URI = "file:///work/quick.py"
TEXT = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"


def _engine() -> EngineThread:
    return EngineThread(Workspace())


def test_a_document_never_checked_is_not_expected_quick() -> None:
    assert not _engine().quick(URI, TEXT)


def test_a_quick_check_makes_the_next_expected_quick_unless_the_text_grew_a_lot(
    monkeypatch,
) -> None:
    engine = _engine()
    monkeypatch.setattr(engine_thread, "INLINE_SECONDS", 60.0)  # quick on any machine
    engine.check(URI, TEXT, "/work/quick.py", Settings())
    assert engine.quick(URI, TEXT + "# more\n")
    assert not engine.quick(URI, TEXT * 400)  # a paste: run it on the thread
    assert not engine.quick("file:///work/other.py", TEXT)


def test_a_slow_check_is_not_expected_quick(monkeypatch) -> None:
    engine = _engine()
    monkeypatch.setattr(engine_thread, "INLINE_SECONDS", 0.0)
    engine.check(URI, TEXT, "/work/quick.py", Settings())
    assert not engine.quick(URI, TEXT)


def test_inline_work_runs_on_the_loop_when_the_engine_is_idle() -> None:
    engine = _engine()

    async def main() -> tuple[str, str]:
        inline = await engine.run(lambda: threading.current_thread().name, inline=True)
        threaded = await engine.run(lambda: threading.current_thread().name)
        return inline, threaded

    inline, threaded = asyncio.run(main())
    assert inline == threading.main_thread().name
    assert threaded.startswith("jax-lsp-engine")


def test_inline_work_waits_for_the_thread_while_it_is_busy() -> None:
    engine = _engine()
    started, release = threading.Event(), threading.Event()
    running: list[str] = []

    def slow() -> str:
        started.set()
        running.append("slow")
        release.wait(5)
        running.remove("slow")
        return "slow"

    def quick() -> str:
        assert not running, "two engine jobs at once"
        return threading.current_thread().name

    async def main() -> str:
        busy = asyncio.ensure_future(engine.run(slow))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        asyncio.get_running_loop().call_later(0.05, release.set)
        # The engine thread is busy: the quick job queues behind it instead of running now.
        name = await engine.run(quick, inline=True)
        assert await busy == "slow"
        return name

    assert asyncio.run(main()).startswith("jax-lsp-engine")


def test_one_analysis_per_state_however_many_ask_and_whoever_is_cancelled() -> None:
    """`once`: callers asking about the same state share one run; a caller cancelled (by a
    newer edit) leaves it to the others; an error reaches every caller; a new state runs anew."""
    engine = _engine()
    runs: list[str] = []

    async def analysis(name: str, fail: bool = False) -> str:
        runs.append(name)
        await asyncio.sleep(0.01)
        if fail:
            raise ValueError(name)
        return name

    async def main() -> None:
        first = asyncio.ensure_future(engine.once(URI, (1,), lambda: analysis("v1")))
        second = asyncio.ensure_future(engine.once(URI, (1,), lambda: analysis("again")))
        await asyncio.sleep(0)
        first.cancel()
        assert await second == "v1"
        assert first.cancelled() and runs == ["v1"]
        failing = [engine.once(URI, (2,), lambda: analysis("v2", fail=True)) for _ in range(2)]
        outcomes = await asyncio.gather(*failing, return_exceptions=True)
        assert [str(error) for error in outcomes] == ["v2", "v2"] and runs == ["v1", "v2"]
        assert await engine.once(URI, (2,), lambda: analysis("v2 again")) == "v2 again"

    asyncio.run(main())


def test_a_shared_analysis_is_freed_once_its_callers_have_it() -> None:
    """`once` keeps no cycle around an analysis: with the cycle collector off (as it is while
    diagnostics are pending, a burst of opened files), an analysis nobody holds any more is
    freed at once, not with every other one of the burst at the next collection."""
    engine = _engine()

    class Result:
        pass

    async def analysis() -> Result:
        await asyncio.sleep(0)
        return Result()

    async def main() -> weakref.ref:
        return weakref.ref(await engine.once(URI, (1,), analysis))

    gc.collect()
    gc.disable()
    try:
        result = asyncio.run(main())
        assert result() is None
    finally:
        gc.enable()
