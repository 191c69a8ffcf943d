"""Use the running demo through Home Assistant's frontend, as a person would.

Headless Chromium (Debian's), driven by Playwright:
1. log in with the demo's user;
2. add Chatterbox for the model server through the integration's config flow
   (URL), then add an agent to it through its subentry flow, picking the
   model from the dropdown the server's model list fills;
3. open the Assist dialog, type "turn on the kitchen light", wait for the reply;
4. check that the kitchen light is on.

A screenshot of each step goes to the folder given. What step 2 added is
removed at the end, so the demo home stays as scripts/demo made it.
"""

import argparse
import asyncio
from collections.abc import Awaitable, Callable
import json
from pathlib import Path
import re
import sys
import time
from typing import Any

import aiohttp
from playwright.async_api import Browser, Page, async_playwright

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps calling Google's
# hosts, which this machine's closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REQUEST = "turn on the kitchen light"
LIGHT = "light.kitchen_light"
BROWSER_AGENT = "Browser agent"
MINUTE_MS = 60_000
# On a busy 2-core machine the model's first answer can take minutes.
ANSWER_TIMEOUT = 900
# The text of the last Assist message: its tool calls are folded under "Show
# details", its answer is in an ha-markdown that holds "…" while it streams.
ANSWER_JS = """() => {
  const messages = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches('.message.hass')) { messages.push(el); }
      if (el.shadowRoot) { walk(el.shadowRoot); }
    }
  };
  const deepText = (node) => {
    let text = node.shadowRoot ? deepText(node.shadowRoot) : '';
    for (const child of node.childNodes) {
      text += child.nodeType === 3 ? child.textContent : deepText(child);
    }
    return text;
  };
  walk(document);
  const last = messages[messages.length - 1];
  const answer = messages.length > 1 && last.querySelector('ha-markdown');
  return answer ? deepText(answer) : '';
}"""


def log(message: str) -> None:
    """Print a line of progress."""
    print(f"e2e: {message}", flush=True)


class E2EError(Exception):
    """A step failed; the message says what was expected."""


class Run:
    """One pass through the steps, with numbered screenshots."""

    def __init__(self, page: Page, state: dict[str, Any], shots: Path) -> None:
        """Remember where the demo is and where the screenshots go."""
        self.page = page
        self.state = state
        self.shots = shots
        self.count = 0
        self.started = time.monotonic()

    @property
    def server_url(self) -> str:
        """Return the model server's URL as the person types it in the UI.

        localhost, not 127.0.0.1: the demo's own entry has that URL already.
        """
        return str(self.state["llm_url"]).replace("127.0.0.1", "localhost")

    @property
    def server_title(self) -> str:
        """Return the title Chatterbox gives that entry (host and port)."""
        return self.server_url.split("//", 1)[1].split("/", 1)[0]

    async def shot(self, name: str) -> None:
        """Save a numbered screenshot of the page."""
        self.count += 1
        path = self.shots / f"{self.count:02d}-{name}.png"
        await self.page.screenshot(path=path)
        log(f"[{time.monotonic() - self.started:5.1f}s] screenshot {path}")

    async def api(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> Any:
        """Call Home Assistant's REST API with the demo's token."""
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                method,
                f"{self.state['url']}{path}",
                json=body,
                headers={"Authorization": f"Bearer {self.state['token']}"},
            ) as response,
        ):
            response.raise_for_status()
            return await response.json()

    async def log_in(self) -> None:
        """Step 1: the login page, then the overview."""
        page = self.page
        await page.goto(self.state["url"])
        await page.locator('input[autocomplete="username"]').fill(
            self.state["username"]
        )
        await page.locator('input[autocomplete="current-password"]').fill(
            self.state["password"]
        )
        await self.shot("login")
        await page.keyboard.press("Enter")
        await page.wait_for_url(lambda url: "/auth/" not in url, timeout=MINUTE_MS)
        await page.get_by_text("Kitchen", exact=True).first.wait_for(timeout=MINUTE_MS)
        await self.shot("overview")

    async def add_server(self) -> str:
        """Step 2a: Add integration, Chatterbox, the URL form; return the entry."""
        page = self.page
        url = self.server_url
        title = self.server_title
        await self.remove_entries(title)  # left by an interrupted run
        await page.goto(f"{self.state['url']}/config/integrations/dashboard")
        await page.get_by_role("button", name="Add integration").click()
        await page.get_by_placeholder("Search").first.fill("Chatterbox")
        await page.get_by_text("Chatterbox", exact=True).last.click()
        field = page.locator('dialog-data-entry-flow input[type="url"]')
        await field.wait_for(timeout=MINUTE_MS)
        await field.fill(url)
        await self.shot("config-flow-url")
        await page.get_by_role("button", name="Submit").click()
        await self.finish_flow("config-flow-created")
        added = await self.chatterbox_entries(title)
        if len(added) != 1:
            msg = f"expected one Chatterbox entry titled {title}, found {added}"
            raise E2EError(msg)
        log(f"added the server entry {added[0]} for {url}")
        return added[0]

    async def add_agent(self, entry_id: str) -> None:
        """Step 2b: the entry's Add conversation agent form, model from the list."""
        page = self.page
        await page.goto(
            f"{self.state['url']}/config/integrations/integration/chatterbox"
            f"#config_entry={entry_id}"
        )
        await page.get_by_role("button", name="Add conversation agent").first.click()
        # With two servers, the dialog first asks which one gets the agent.
        await page.get_by_text(self.server_title, exact=True).last.click()
        # The form's first field is the agent's name.
        name = page.locator("dialog-data-entry-flow input").first
        await name.wait_for(timeout=MINUTE_MS)
        await name.fill(BROWSER_AGENT)
        await page.get_by_label("Model").first.click()
        option = page.get_by_role("option", name=self.state["model"])
        await option.wait_for(timeout=MINUTE_MS)
        await self.shot("agent-model-dropdown")
        await option.click()
        await self.shot("agent-form")
        await page.get_by_role("button", name="Submit").click()
        await self.finish_flow("agent-created")
        agents = [
            entity
            for entity in await self.api("GET", "/api/states")
            if entity["entity_id"].startswith("conversation.")
            and entity["attributes"].get("friendly_name") == BROWSER_AGENT
        ]
        if not agents:
            msg = f"no conversation entity named {BROWSER_AGENT!r} appeared"
            raise E2EError(msg)
        log(f"the new agent is {agents[0]['entity_id']}")

    async def ask_assist(self) -> str:
        """Step 3: the Assist dialog on the overview; return Chatterbox's reply."""
        page = self.page
        # The light starts off, so that step 4 proves this turn switched it on.
        await self.api("POST", "/api/services/light/turn_off", {"entity_id": LIGHT})
        if (await self.api("GET", f"/api/states/{LIGHT}"))["state"] != "off":
            msg = f"{LIGHT} could not be switched off before asking"
            raise E2EError(msg)
        await page.goto(self.state["url"])
        await page.get_by_text("Kitchen", exact=True).first.wait_for(timeout=MINUTE_MS)
        await page.get_by_role("button", name=re.compile(r"^Assist\b")).first.click()
        field = page.locator("ha-assist-chat input").first
        await field.wait_for(timeout=MINUTE_MS)
        await field.fill(REQUEST)
        await self.shot("assist-typed")
        await field.press("Enter")
        log("asked; the first answer takes minutes on a busy 2-core machine")
        text = await self.wait_for_answer()
        await self.shot("assist-answer")
        log(f"Chatterbox answered: {text!r}")
        return text

    async def wait_for_answer(self) -> str:
        """Return the answer once it has finished streaming in."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        previous = ""
        while time.monotonic() < deadline:
            text = str(await self.page.evaluate(ANSWER_JS)).strip()
            if text and text == previous and not text.endswith(("…", "...")):
                return text
            previous = text
            await asyncio.sleep(2)
        msg = f"no complete answer within {ANSWER_TIMEOUT} s (last: {previous!r})"
        raise E2EError(msg)

    async def check_light(self) -> None:
        """Step 4: the light is on, in the state machine and on the dashboard."""
        state = await self.api("GET", f"/api/states/{LIGHT}")
        page = self.page
        await page.keyboard.press("Escape")
        await page.locator("ha-voice-command-dialog ha-assist-chat").wait_for(
            state="detached", timeout=MINUTE_MS
        )
        lights_on = page.get_by_text("1 on", exact=True).filter(visible=True)
        await lights_on.first.wait_for(timeout=MINUTE_MS)
        await self.shot("overview-light-on")
        # Where a person clicks: the area's tile, which covers its label.
        box = await page.get_by_text("Kitchen", exact=True).first.bounding_box()
        if box is None:
            msg = "the Kitchen area is not on the overview"
            raise E2EError(msg)
        await page.mouse.click(
            box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        )
        await page.get_by_text("Kitchen light").first.wait_for(timeout=MINUTE_MS)
        await self.shot("kitchen-area")
        if state["state"] != "on":
            msg = f"{LIGHT} is {state['state']!r}, expected 'on'"
            raise E2EError(msg)
        log(f"{LIGHT} is on")

    async def finish_flow(self, shot: str) -> None:
        """Wait for the flow's last page, keep it, and close it."""
        page = self.page
        done = (
            page.get_by_role("button", name="Skip and finish")
            .or_(page.get_by_role("button", name="Finish"))
            .first
        )
        await done.wait_for(timeout=MINUTE_MS)
        await self.shot(shot)
        await done.click()

    async def chatterbox_entries(self, title: str) -> list[str]:
        """Return the ids of Chatterbox's config entries with this title."""
        entries = await self.api(
            "GET", "/api/config/config_entries/entry?domain=chatterbox"
        )
        return [entry["entry_id"] for entry in entries if entry["title"] == title]

    async def remove_entries(self, title: str) -> None:
        """Remove Chatterbox's config entries with this title."""
        for entry_id in await self.chatterbox_entries(title):
            await self.api("DELETE", f"/api/config/config_entries/entry/{entry_id}")
            log(f"removed the entry {entry_id} ({title})")


async def step(run: Run, name: str, action: Callable[[], Awaitable[Any]]) -> Any:
    """Run a step; on failure keep a screenshot and say which step failed."""
    log(f"step: {name}")
    try:
        return await action()
    except Exception as err:
        await run.shot(f"failed-{name.replace(' ', '-')}")
        msg = f"{name}: {err}"
        raise E2EError(msg) from err


async def main(state: dict[str, Any], shots: Path) -> None:
    """Run the steps in a fresh headless Chromium."""
    async with async_playwright() as playwright:
        browser: Browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        page = await browser.new_page(viewport={"width": 1280, "height": 860})
        page.set_default_timeout(MINUTE_MS)
        run = Run(page, state, shots)
        added = None
        try:
            await step(run, "log in", run.log_in)
            added = await step(run, "add the server", run.add_server)
            await step(run, "add an agent", lambda: run.add_agent(added))
            await step(run, "ask Assist", run.ask_assist)
            await step(run, "check the light", run.check_light)
        finally:
            if added is not None:
                await run.api("DELETE", f"/api/config/config_entries/entry/{added}")
                log(f"removed the entry {added} again")
            await browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--screenshots", type=Path, required=True)
    args = parser.parse_args()
    args.screenshots.mkdir(parents=True, exist_ok=True)
    for old_shot in args.screenshots.glob("*.png"):
        old_shot.unlink()
    try:
        asyncio.run(main(json.loads(args.state.read_text()), args.screenshots))
    except E2EError as err:
        sys.exit(f"e2e: FAILED at {err}")
    log("PASSED")
