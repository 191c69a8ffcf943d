"""Set up the demo home through Home Assistant's own APIs, and talk to it.

`prepare` does what a person would do in the UI of a new Home Assistant:
onboarding (so a user exists), areas for the demo devices, exposing them to
Assist, adding Chatterbox through its config flow, and making Chatterbox the
conversation agent of the preferred Assist pipeline. Each step checks first,
so a second run changes nothing that is already right.

`say` runs one turn through the preferred Assist pipeline (websocket
assist_pipeline/run) and prints the answer, the tool calls made and the states
that changed.
"""

import argparse
import asyncio
from collections.abc import Iterator
import contextlib
import itertools
import json
from pathlib import Path
import secrets
import sys
import time
from typing import Any

import aiohttp

USERNAME = "demo"
DISPLAY_NAME = "Demo"
PIPELINE_NAME = "Chatterbox demo"
SERVER_HANDLER = "chatterbox"
AGENT_SUBENTRY = "conversation"
# Integrations that onboarding's core-config step starts by itself. They need
# the internet or add entities the demo does not want, so the demo removes them.
ONBOARDING_EXTRAS = ("google_translate", "met", "radio_browser", "shopping_list")

# entity id -> area; all of them are exposed to Assist but the heater's switch,
# which only the thermostat drives.
AREAS = {
    "Kitchen": ["light.kitchen_light"],
    "Living Room": [
        "light.living_room_lamp",
        "fan.living_room_fan",
        "climate.thermostat",
        "sensor.living_room_temperature",
        "switch.heater",
    ],
    "Bedroom": ["light.bedroom_light"],
    "Hallway": ["lock.front_door"],
}
EXPOSED = [
    *(entity for entities in AREAS.values() for entity in entities),
    "weather.home",
]
HIDDEN = ["switch.heater"]
# How every run starts: all lights off, the door locked, the fan off, 20 °C.
START_STATES = [
    ("light", "turn_off", {"entity_id": "light.kitchen_light"}),
    ("light", "turn_off", {"entity_id": "light.living_room_lamp"}),
    ("light", "turn_off", {"entity_id": "light.bedroom_light"}),
    ("lock", "lock", {"entity_id": "lock.front_door"}),
    ("fan", "turn_off", {"entity_id": "fan.living_room_fan"}),
    (
        "climate",
        "set_temperature",
        {"entity_id": "climate.thermostat", "temperature": 20, "hvac_mode": "heat"},
    ),
]
# Attributes worth showing when they change in a turn.
WATCHED_ATTRIBUTES = ("brightness", "percentage", "temperature", "hvac_mode")
TRY_THESE = (
    "Turn on the kitchen light",
    "Is the front door locked?",
    "Set the thermostat to 21 degrees",
)


def log(message: str) -> None:
    """Print a line of progress."""
    print(f"home: {message}", file=sys.stderr, flush=True)


class DemoError(Exception):
    """A step of the demo went wrong; the message says which and why."""


class Home:
    """Home Assistant's REST and websocket APIs, as one logged-in user."""

    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        """Talk to the Home Assistant at url."""
        self.session = session
        self.url = url
        self.token = ""
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)

    @property
    def client_id(self) -> str:
        """Return the OAuth client id the frontend would use."""
        return f"{self.url}/"

    async def rest(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> Any:
        """Call the REST API and return its JSON answer."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        async with self.session.request(
            method, f"{self.url}{path}", json=body, headers=headers
        ) as response:
            text = await response.text()
            if response.status >= 400:  # noqa: PLR2004
                msg = f"{method} {path}: HTTP {response.status}: {text[:500]}"
                raise DemoError(msg)
            return json.loads(text) if text else None

    async def connect(self) -> None:
        """Open and authenticate the websocket."""
        self._ws = await self.session.ws_connect(
            f"{self.url}/api/websocket", max_msg_size=0
        )
        await self._ws.receive_json()  # auth_required
        await self._ws.send_json({"type": "auth", "access_token": self.token})
        answer = await self._ws.receive_json()
        if answer.get("type") != "auth_ok":
            msg = f"websocket authentication failed: {answer}"
            raise DemoError(msg)

    async def send(self, message_type: str, **fields: Any) -> int:
        """Send a websocket command and return its id."""
        if self._ws is None:
            await self.connect()
        assert self._ws is not None  # noqa: S101  # for the type checker
        message_id = next(self._ids)
        await self._ws.send_json({"id": message_id, "type": message_type, **fields})
        return message_id

    async def receive(self, message_id: int, timeout: float = 60) -> dict[str, Any]:  # noqa: ASYNC109
        """Return the next message for a command."""
        assert self._ws is not None  # noqa: S101  # for the type checker
        while True:
            frame = await self._ws.receive(timeout=timeout)
            if frame.type is not aiohttp.WSMsgType.TEXT:
                msg = f"Home Assistant closed the websocket ({frame.type.name})"
                raise DemoError(msg)
            message: dict[str, Any] = json.loads(frame.data)
            if message.get("id") == message_id:
                return message

    async def ws(self, message_type: str, **fields: Any) -> Any:
        """Run a websocket command and return its result."""
        message_id = await self.send(message_type, **fields)
        answer = await self.receive(message_id)
        if not answer.get("success"):
            msg = f"{message_type}: {answer.get('error')}"
            raise DemoError(msg)
        return answer.get("result")

    async def close(self) -> None:
        """Close the websocket."""
        if self._ws is not None:
            await self._ws.close()

    async def login_with_code(self, code: str) -> dict[str, Any]:
        """Trade an authorization code for tokens, as the frontend does."""
        async with self.session.post(
            f"{self.url}/auth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "client_id": self.client_id,
            },
        ) as response:
            if response.status != 200:  # noqa: PLR2004
                msg = f"/auth/token: HTTP {response.status}: {await response.text()}"
                raise DemoError(msg)
            tokens: dict[str, Any] = await response.json()
        self.token = tokens["access_token"]
        return tokens


async def wait_for(
    what: str, probe: Any, seconds: float, process_alive: Any = None
) -> Any:
    """Call probe until it returns something other than None."""
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(aiohttp.ClientError, DemoError, OSError):
            if (result := await probe()) is not None:
                return result
        if process_alive is not None and not process_alive():
            msg = f"{what}: the process stopped"
            raise DemoError(msg)
        if time.monotonic() > deadline:
            msg = f"{what}: not ready after {seconds:.0f} s"
            raise DemoError(msg)
        await asyncio.sleep(1)


async def served_model(session: aiohttp.ClientSession, llm_url: str) -> str | None:
    """Return the model the local server serves, once it answers."""
    async with session.get(f"{llm_url}/models") as response:
        if response.status != 200:  # noqa: PLR2004
            return None
        return str((await response.json())["data"][0]["id"])


async def model_idle(session: aiohttp.ClientSession, llm_url: str) -> bool | None:
    """Return True when the model server has nothing to do (llama.cpp's /slots)."""
    base = llm_url.removesuffix("/v1")
    for _ in range(3):  # idle for three seconds in a row
        async with session.get(f"{base}/slots") as response:
            if response.status != 200:  # noqa: PLR2004
                return True  # a server without /slots: nothing to wait for
            if any(slot.get("is_processing") for slot in await response.json()):
                return None
        await asyncio.sleep(1)
    return True


async def onboarded_steps(home: Home) -> dict[str, bool] | None:
    """Return the onboarding steps and whether each is done, once HA answers."""
    async with home.session.get(f"{home.url}/api/onboarding") as response:
        if response.status == 404:  # noqa: PLR2004  # onboarded: the API is gone
            return {}
        if response.status != 200:  # noqa: PLR2004
            return None
        return {step["step"]: step["done"] for step in await response.json()}


async def onboard(home: Home, state: dict[str, Any], steps: dict[str, bool]) -> None:
    """Create the user and finish onboarding, through its API."""
    if steps and not steps.get("user"):
        password = secrets.token_urlsafe(9)
        answer = await home.rest(
            "POST",
            "/api/onboarding/users",
            {
                "client_id": home.client_id,
                "name": DISPLAY_NAME,
                "username": USERNAME,
                "password": password,
                "language": "en",
            },
        )
        await home.login_with_code(answer["auth_code"])
        state["username"] = USERNAME
        state["password"] = password
        log(f"onboarding: created the user {USERNAME!r}")
    elif not state.get("token"):
        msg = (
            "this Home Assistant was onboarded by another run whose login is lost; "
            "delete .demo/config to start afresh"
        )
        raise DemoError(msg)
    else:
        home.token = state["token"]
    if steps and not steps.get("core_config"):
        await home.rest("POST", "/api/onboarding/core_config")
    if steps and not steps.get("analytics"):
        await home.rest("POST", "/api/onboarding/analytics")
    if steps and not steps.get("integration"):
        await home.rest(
            "POST",
            "/api/onboarding/integration",
            {
                "client_id": home.client_id,
                "redirect_uri": f"{home.url}/?auth_callback=1",
            },
        )
    if not state.get("token"):
        state["token"] = await home.ws(
            "auth/long_lived_access_token", client_name="Chatterbox demo", lifespan=3650
        )
        home.token = state["token"]
        await home.close()
        home._ws = None  # noqa: SLF001  # reconnect with the long-lived token
    if not all(steps.values()):
        log("onboarding: done")


async def confirm_http_config(home: Home) -> None:
    """Confirm the HTTP settings read from YAML, as the UI asks a person to.

    Home Assistant 2026.11 moves the http: block into storage on first start
    and reverts it five minutes later unless someone confirms it works.
    """
    with contextlib.suppress(DemoError):  # releases without the command
        config = await home.ws("http/config")
        if config.get("pending") and config.get("active_config_type") == "pending":
            await home.ws("http/config/promote")
            log("confirmed the HTTP settings (127.0.0.1 only)")


async def remove_onboarding_extras(home: Home) -> None:
    """Remove what onboarding set up by itself, keeping the demo home small."""
    for entry in await home.rest("GET", "/api/config/config_entries/entry"):
        if entry["domain"] in ONBOARDING_EXTRAS:
            await home.rest(
                "DELETE", f"/api/config/config_entries/entry/{entry['entry_id']}"
            )
            log(f"removed {entry['domain']}, which onboarding added")


async def set_up_areas(home: Home) -> None:
    """Put each demo device in its area, creating the areas that are missing."""
    areas = {
        area["name"].casefold(): area["area_id"]
        for area in await home.ws("config/area_registry/list")
    }
    registry = {
        entity["entity_id"]: entity
        for entity in await home.ws("config/entity_registry/list")
    }
    missing = [entity for entity in EXPOSED if entity not in registry]
    if missing:
        msg = f"the demo entities {missing} are missing: see .demo/logs/hass.log"
        raise DemoError(msg)
    for name, entities in AREAS.items():
        if (area_id := areas.get(name.casefold())) is None:
            area_id = (await home.ws("config/area_registry/create", name=name))[
                "area_id"
            ]
        for entity_id in entities:
            if registry[entity_id].get("area_id") != area_id:
                await home.ws(
                    "config/entity_registry/update",
                    entity_id=entity_id,
                    area_id=area_id,
                )
    await home.ws(
        "homeassistant/expose_entity",
        assistants=["conversation"],
        entity_ids=[entity for entity in EXPOSED if entity not in HIDDEN],
        should_expose=True,
    )
    await home.ws(
        "homeassistant/expose_entity",
        assistants=["conversation"],
        entity_ids=HIDDEN,
        should_expose=False,
    )


async def reset_states(home: Home) -> None:
    """Put the demo devices in their starting states."""
    for domain, service, data in START_STATES:
        await home.rest("POST", f"/api/services/{domain}/{service}", data)


async def run_flow(home: Home, path: str, start: dict[str, Any], fill: Any) -> Any:
    """Drive a data entry flow: fill(step) returns the answer to each form."""
    result = await home.rest("POST", path, start)
    for _ in range(5):
        if result["type"] != "form":
            return result
        if result.get("errors"):
            msg = f"{path}: the form says {result['errors']}"
            raise DemoError(msg)
        result = await home.rest("POST", f"{path}/{result['flow_id']}", fill(result))
    msg = f"{path}: the flow did not finish"
    raise DemoError(msg)


def suggested_values(step: dict[str, Any]) -> dict[str, Any]:
    """Read the values a form shows, as the frontend would submit them."""
    values: dict[str, Any] = {}
    for field in step["data_schema"]:
        suggested = (field.get("description") or {}).get("suggested_value")
        if field.get("type") == "expandable":
            values[field["name"]] = suggested_values({"data_schema": field["schema"]})
            continue
        if suggested is None:
            suggested = field.get("default")
        if suggested is not None:
            values[field["name"]] = suggested
    return values


async def add_chatterbox(home: Home, llm_url: str, model: str) -> dict[str, Any]:
    """Add the local server through Chatterbox's config flow; return the entry."""
    title = llm_url.split("//", 1)[1].split("/", 1)[0]
    for entry in await home.rest(
        "GET", "/api/config/config_entries/entry?domain=chatterbox"
    ):
        if entry["title"] == title:
            return dict(entry)
    result = await run_flow(
        home,
        "/api/config/config_entries/flow",
        {"handler": SERVER_HANDLER, "show_advanced_options": False},
        lambda _step: {"url": llm_url},
    )
    if result["type"] != "create_entry":
        msg = f"adding Chatterbox ended with {result}"
        raise DemoError(msg)
    log(f"added Chatterbox for {llm_url} with an agent for {model}")
    return dict(result["result"])


# Temperature 0: the small model answers the same way each time. Tool calls:
# the 1.5B writes them as a ```json block, which the server's template turns
# into real tool_calls ("native"; Chatterbox's probe asks for 8 tokens only,
# which cuts that block short, so it would choose text mode). The 0.5B writes
# bare JSON, which only Chatterbox's text mode reads.
AGENT_ADVANCED = {"temperature": 0, "tool_mode": "native"}
TEXT_TOOL_MODELS = ("qwen2.5-coder-0.5b-instruct",)
# A 1.5B model copies enum lists and invents areas and floors into tool
# arguments, and treats a question as an order: plain rules help it.
AGENT_PROMPT = """You are a voice assistant for Home Assistant.
Answer questions about the world truthfully.
Respond simply and to the point in plain text.
When the user asks how something is (a device, the weather), call GetLiveContext \
and answer from its result. Never switch, lock or unlock anything unless the user \
asks for exactly that.
To control a device, pass its name exactly as listed and its domain. Leave out \
area, floor and device_class unless the user said them. Never invent a value.
"""
# A small model that failed twice seldom succeeds later: stop it sooner.
AGENT_MAX_ITERATIONS = 4


def agent_settings(step: dict[str, Any], model: str) -> dict[str, Any] | None:
    """Return the form's answer that gives the agent the demo's settings.

    None when the agent has them already.
    """
    values = suggested_values(step)
    advanced = values.get("advanced") or {}
    wanted = {
        "model": model,
        "prompt": AGENT_PROMPT,
        "max_iterations": AGENT_MAX_ITERATIONS,
    }
    wanted_advanced = AGENT_ADVANCED | (
        {"tool_mode": "text"} if model in TEXT_TOOL_MODELS else {}
    )
    if wanted.items() <= values.items() and wanted_advanced.items() <= advanced.items():
        return None
    return {**values, **wanted, "advanced": {**advanced, **wanted_advanced}}


async def set_up_agent(home: Home, entry_id: str, model: str) -> str:
    """Give the entry's first agent the demo's settings (its subentry flow).

    Returns the agent's subentry id.
    """
    subentries = [
        subentry
        for subentry in await home.ws(
            "config_entries/subentries/list", entry_id=entry_id
        )
        if subentry["subentry_type"] == AGENT_SUBENTRY
    ]
    if not subentries:
        await run_flow(
            home,
            "/api/config/config_entries/subentries/flow",
            {"handler": [entry_id, AGENT_SUBENTRY]},
            lambda step: agent_settings(step, model) or suggested_values(step),
        )
        log(f"added an agent for {model}")
        return await set_up_agent(home, entry_id, model)
    subentry_id = str(subentries[0]["subentry_id"])
    step = await home.rest(
        "POST",
        "/api/config/config_entries/subentries/flow",
        {"handler": [entry_id, AGENT_SUBENTRY], "subentry_id": subentry_id},
    )
    if step["type"] != "form":
        msg = f"the agent's settings could not be opened: {step}"
        raise DemoError(msg)
    flow = f"/api/config/config_entries/subentries/flow/{step['flow_id']}"
    if (answer := agent_settings(step, model)) is None:
        await home.rest("DELETE", flow)
    else:
        result = await home.rest("POST", flow, answer)
        log(
            f"agent settings: {model}, the demo's instructions ({result.get('reason')})"
        )
    return subentry_id


async def agent_entity(home: Home, entry_id: str, subentry_id: str) -> str:
    """Return the conversation entity of the agent, once it is set up."""

    async def probe() -> str | None:
        for entity in await home.ws("config/entity_registry/list"):
            if (
                entity["config_entry_id"] == entry_id
                and entity.get("config_subentry_id") == subentry_id
                and entity["entity_id"].startswith("conversation.")
            ):
                return str(entity["entity_id"])
        return None

    return str(await wait_for("the Chatterbox agent", probe, 60))


async def use_agent(home: Home, agent: str) -> str:
    """Make agent the conversation agent of the preferred pipeline; return its id."""
    pipelines = await home.ws("assist_pipeline/pipeline/list")
    preferred = next(
        pipeline
        for pipeline in pipelines["pipelines"]
        if pipeline["id"] == pipelines["preferred_pipeline"]
    )
    wanted = {"conversation_engine": agent, "name": PIPELINE_NAME}
    # Home Assistant's own sentences would answer "turn on the kitchen light"
    # before the LLM sees it: the demo is about the LLM.
    wanted["prefer_local_intents"] = False
    if any(preferred.get(key) != value for key, value in wanted.items()):
        fields = {
            key: preferred.get(key)
            for key in (
                "conversation_language",
                "language",
                "stt_engine",
                "stt_language",
                "tts_engine",
                "tts_language",
                "tts_voice",
                "wake_word_entity",
                "wake_word_id",
            )
        }
        await home.ws(
            "assist_pipeline/pipeline/update",
            pipeline_id=preferred["id"],
            **fields,
            **wanted,
        )
        log(f"the preferred Assist pipeline now uses {agent}")
    return str(preferred["id"])


def read_state(path: Path) -> dict[str, Any]:
    """Read what earlier runs saved (login, ids)."""
    return dict(json.loads(path.read_text())) if path.exists() else {}


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Save the login and ids for the next run and scripts/e2e (owner only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(json.dumps(state, indent=2) + "\n")


async def prepare(args: argparse.Namespace) -> None:
    """Bring the demo home to its starting point."""
    state = read_state(args.state)
    if state.get("url", args.ha) != args.ha:
        msg = (
            f"this demo home listens on {state['url']}, not {args.ha}: "
            "set the port back, or delete .demo/config to start afresh"
        )
        raise DemoError(msg)
    async with aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=120)
    ) as session:
        home = Home(session, args.ha)
        alive = (lambda: Path(f"/proc/{args.ha_pid}").exists()) if args.ha_pid else None
        llm_alive = (
            (lambda: Path(f"/proc/{args.llm_pid}").exists()) if args.llm_pid else None
        )
        model = await wait_for(
            "the model server",
            lambda: served_model(session, args.llm),
            args.timeout,
            llm_alive,
        )
        steps = await wait_for(
            "Home Assistant", lambda: onboarded_steps(home), args.timeout, alive
        )
        await onboard(home, state, steps)
        write_state(args.state, state)
        await wait_for("Home Assistant's start", lambda: started(home), args.timeout)
        await confirm_http_config(home)
        await remove_onboarding_extras(home)
        await set_up_areas(home)
        await reset_states(home)
        entry = await add_chatterbox(home, args.llm, model)
        subentry_id = await set_up_agent(home, entry["entry_id"], model)
        agent = await agent_entity(home, entry["entry_id"], subentry_id)
        state |= {
            "url": args.ha,
            "llm_url": args.llm,
            "model": model,
            "entry_id": entry["entry_id"],
            "agent": agent,
            "pipeline_id": await use_agent(home, agent),
        }
        write_state(args.state, state)
        await home.close()
        # Chatterbox probes the model when it sets up; the turn should not queue.
        await wait_for("the model's probe", lambda: model_idle(session, args.llm), 300)


async def started(home: Home) -> bool | None:
    """Return True once Home Assistant runs (all integrations set up)."""
    config = await home.ws("get_config")
    return True if config.get("state") == "RUNNING" else None


def describe_call(call: dict[str, Any]) -> str:
    """Show a tool call as name(arguments)."""
    arguments = ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}"
        for key, value in (call.get("tool_args") or {}).items()
    )
    return f"{call.get('tool_name')}({arguments})"


def changes(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
) -> Iterator[str]:
    """Describe what changed in the demo's entities."""
    for entity_id in EXPOSED:
        old, new = before.get(entity_id), after.get(entity_id)
        if old is None or new is None:
            continue
        name = new["attributes"].get("friendly_name", entity_id)
        if old["state"] != new["state"]:
            yield f"{name} ({entity_id}): {old['state']} -> {new['state']}"
        for attribute in WATCHED_ATTRIBUTES:
            was, now = (
                old["attributes"].get(attribute),
                new["attributes"].get(attribute),
            )
            if was != now:
                yield f"{name} ({entity_id}) {attribute}: {was} -> {now}"


async def states(home: Home) -> dict[str, dict[str, Any]]:
    """Return the current state of every entity."""
    return {
        state["entity_id"]: state for state in await home.rest("GET", "/api/states")
    }


def show_progress(delta: dict[str, Any], elapsed: float) -> None:
    """Print the tool calls and results in a piece of the chat log."""
    for call in delta.get("tool_calls") or []:
        print(f"tool:  {describe_call(call)}   [{elapsed:.1f} s]")
    if delta.get("role") == "tool_result":
        result = json.dumps(delta.get("tool_result"), ensure_ascii=False)
        print(f"  ->   {result[:300]}")


async def follow_turn(
    home: Home, message_id: int, started_at: float, limit: float
) -> tuple[str | None, Any]:
    """Print the turn's tool calls as they come; return the speech and any error."""
    speech, failed = None, None
    while True:
        message = await home.receive(message_id, timeout=limit)
        if message["type"] == "result":
            if not message["success"]:
                return speech, message["error"]
            continue
        event = message["event"]
        data = event.get("data") or {}
        if event["type"] == "intent-progress":
            show_progress(
                data.get("chat_log_delta") or {}, time.monotonic() - started_at
            )
        elif event["type"] == "intent-end":
            response = data["intent_output"]["response"]
            speech = response["speech"].get("plain", {}).get("speech")
            if response.get("response_type") == "error":
                failed = response.get("data")
        elif event["type"] == "error":
            failed = data
        if event["type"] in {"run-end", "error"}:
            return speech, failed


async def say(args: argparse.Namespace) -> int:
    """Run one turn through the preferred pipeline and print what happened."""
    state = read_state(args.state)
    async with aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=args.timeout)
    ) as session:
        home = Home(session, state["url"])
        home.token = state["token"]
        before = await states(home)
        print(f"you:   {args.text}")
        started_at = time.monotonic()
        message_id = await home.send(
            "assist_pipeline/run",
            start_stage="intent",
            end_stage="intent",
            input={"text": args.text},
            pipeline=state["pipeline_id"],
            timeout=args.timeout,
        )
        speech, failed = await follow_turn(home, message_id, started_at, args.timeout)
        elapsed = time.monotonic() - started_at
        print(f"agent: {speech}   [{elapsed:.1f} s, {state['agent']}]")
        await asyncio.sleep(0.5)  # optimistic entities write their state next
        changed = list(changes(before, await states(home)))
        for line in changed or ["(no state changed)"]:
            print(f"state: {line}")
        await home.close()
    if failed is not None:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    return 0


def info(args: argparse.Namespace) -> None:
    """Print how to use the running demo."""
    state = read_state(args.state)
    print(f"""
  Home Assistant  {state["url"]}
  Login           {state["username"]} / {state["password"]}
  Agent           {state["agent"]} on {state["model"]} ({state["llm_url"]})
  Try, in the Assist dialog (the speech-bubble button at the top right):""")
    for example in TRY_THESE:
        print(f"    - {example}")


def main() -> None:
    """Run the command given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=600)
    commands = parser.add_subparsers(dest="command", required=True)
    prepare_parser = commands.add_parser("prepare")
    prepare_parser.add_argument("--ha", required=True)
    prepare_parser.add_argument("--llm", required=True)
    prepare_parser.add_argument("--ha-pid", type=int)
    prepare_parser.add_argument("--llm-pid", type=int)
    say_parser = commands.add_parser("say")
    say_parser.add_argument("text")
    commands.add_parser("info")
    args = parser.parse_args()
    try:
        if args.command == "prepare":
            asyncio.run(prepare(args))
        elif args.command == "info":
            info(args)
        else:
            sys.exit(asyncio.run(say(args)))
    except DemoError as err:
        sys.exit(f"home: {err}")


if __name__ == "__main__":
    main()
