"""Runs the server reports finished to a page: Streamlit's "script finished" messages on its
websocket, counted by Playwright as they arrive.

The page's ``data-test-script-state`` attribute can miss a short run entirely (React may render
"running" and "notRunning" in one commit), so a harness that waits for a rerun by watching it
alone can wait for a run that already happened. The browser tests (``conftest.expect_rerun``)
and the browser benchmark (``tests/benchmarks/bench_browser.py``) both count these messages.

:func:`record_deltas` records where a run's elements go (main area or sidebar, which block):
the tests of the pages' fragments check that a choice sends its part of the page alone.
"""

from __future__ import annotations


def is_script_finished(payload: object) -> bool:
    """Whether a websocket frame from the server is Streamlit's "script finished" message."""
    if not isinstance(payload, (bytes, bytearray)):
        return False
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    try:
        return ForwardMsg.FromString(bytes(payload)).WhichOneof("type") == "script_finished"
    except Exception:  # not a ForwardMsg: not ours to judge
        return False


def count_runs(pg) -> None:
    """Count, on ``pg.runs_finished``, the runs the server reports finished to the Playwright
    page ``pg`` (call before the page opens its websocket)."""
    pg.runs_finished = 0

    def on_websocket(ws) -> None:
        def on_frame(payload) -> None:
            if is_script_finished(payload):
                pg.runs_finished += 1

        ws.on("framereceived", on_frame)

    pg.on("websocket", on_websocket)


#: The first index of a delta's path: the root container it writes to (Streamlit's
#: ``RootContainer``: 0 the main area, 1 the sidebar).
SIDEBAR = 1


def record_deltas(pg) -> list[list[int] | None]:
    """The delta paths the server sends to the Playwright page ``pg`` from now on (filled as
    frames arrive), with None for the start of each script run (its ``new_session`` message):
    what a run sent again, and where (call before the page opens its websocket)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    paths: list[list[int] | None] = []

    def on_websocket(ws) -> None:
        def on_frame(payload) -> None:
            if not isinstance(payload, (bytes, bytearray)):
                return
            try:
                msg = ForwardMsg.FromString(bytes(payload))
            except Exception:  # not a ForwardMsg
                return
            kind = msg.WhichOneof("type")
            if kind == "delta":
                paths.append(list(msg.metadata.delta_path))
            elif kind == "new_session":
                paths.append(None)

        ws.on("framereceived", on_frame)

    pg.on("websocket", on_websocket)
    return paths
