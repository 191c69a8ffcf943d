"""The embedded model server of the demo (demo/llm_server.py), run for the eval.

It runs in the demo's environment (.venv-demo: llama.cpp's server and the
model's part packages) as a child process, with the chat template of the
columns being measured, and is stopped before the next template.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
import os
from pathlib import Path
import signal
import time
from typing import BinaryIO

ROOT = Path(__file__).parents[2]
LAUNCHER = ROOT / "demo" / "llm_server.py"
FENCED_TEMPLATE = ROOT / "demo" / "qwen25-fencedjson.jinja"
STOCK = "stock"
# Each column's prompt cache, saved as it ends; --quick starts from it.
SLOTS = ROOT / ".cache" / "eval" / "slots"
# llama.cpp's server built for this CPU by scripts/build-llama-server.
BUILT_SERVER = ROOT / ".cache" / "llama.cpp" / "llama-server"
READY = "llm: READY "
START_TIMEOUT = 180.0


@asynccontextmanager
async def model_server(
    python: Path,
    model: str,
    template: str,
    port: int,
    cache: Path,
    log: Path,
    threads: int = 2,
    server: Path | None = None,
) -> AsyncIterator[str]:
    """Serve the model with a template until the block ends; yield its base URL.

    The cache directory holds the joined weights. The server saves and
    restores no prompt cache by itself: the eval does, per column, in SLOTS.
    With a server binary (scripts/build-llama-server), that one serves
    instead of the wheel's.
    """
    log_file = await asyncio.to_thread(_fresh_start, log)
    with log_file:
        process = await asyncio.create_subprocess_exec(
            str(python),
            str(LAUNCHER),
            f"--model={model}",
            f"--port={port}",
            f"--threads={threads}",
            "--ctx=8192",
            f"--cache={cache}",
            f"--slot-dir={SLOTS}",
            f"--template={template}",
            "--no-prompt-cache",
            *([f"--server={server}"] if server else []),
            stdout=log_file,
            stderr=asyncio.subprocess.STDOUT,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )
        try:
            await _wait_ready(process, log)
            yield f"http://127.0.0.1:{port}"
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(process.wait(), 15)
                except TimeoutError:
                    process.kill()
                    await process.wait()


def _fresh_start(log: Path) -> BinaryIO:
    """Open an empty log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    return log.open("wb")


async def _wait_ready(process: asyncio.subprocess.Process, log: Path) -> None:
    """Wait for the launcher's READY line in its log."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.returncode is not None:
            msg = f"the model server stopped: see {log}"
            raise RuntimeError(msg)
        text = await asyncio.to_thread(log.read_text, "utf-8", "replace")
        if READY in text:
            return
        await asyncio.sleep(0.5)
    msg = f"the model server was not ready in {START_TIMEOUT:.0f} s: see {log}"
    raise RuntimeError(msg)
