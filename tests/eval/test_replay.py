"""The recorded runs' reader, the replayed model and the false positives.

On a small report of our own, in the leaderboard's format: one home (a stone
cottage with a porch lamp), and a tiny model's runs on it. No Home Assistant
runs here: the replay itself is tests/scenarios/test_replayed_models.py.
"""

from pathlib import Path

import pytest

from tests.helpers.llm_server import Text, ToolCalls

from .dataset import flat, load_home
from .replay import (
    RecordedCall,
    RecordedMessage,
    RecordedRun,
    Replay,
    find_dataset,
    load_report,
    match,
    task_of,
)
from .replay_play import CHATTERBOX, CORE, Replayed, ReplayedModel, offered_name
from .replay_report import false_positives, report, said

FIXTURES = """\
areas:
  - {name: Porch, id: porch}
devices:
  - {name: Porch Lamp, id: porch_lamp, area: porch}
entities:
  - name: Porch Lamp
    id: light.porch_lamp
    area: porch
    device: porch_lamp
    state: "off"
"""
CASES = """\
category: porch
tests:
  - sentences:
      - Light up the porch
      - Porch lamp on, please
    expect_changes:
      light.porch_lamp:
        state: "on"
"""
# A run as the collector writes it: the trace's last agent_detail holds the
# whole chat log, the tool results between the model's messages.
RUN = """\
---
task_id: stone_cottage_porch_lamp-{slug}-0
model_id: {model}
task:
  input_text: "{sentence}"
response: "{answer}"
context:
  conversation_trace:
  - event_type: async_process
    data: {{text: "{sentence}"}}
  - event_type: agent_detail
    data:
      messages:
      - {{role: system, content: You are a voice assistant.}}
      - {{role: user, content: "{sentence}"}}
      - role: assistant
        content: null
        tool_calls:
        - tool_name: HassTurnOn
          tool_args: {{name: Porch Lamp, domain: [light]}}
      - {{role: tool_result, tool_name: HassTurnOn, tool_result: {{success: true}}}}
{last}
"""
LAST = """\
      - role: assistant
        content: "{answer}"
        tool_calls: null
"""
LABELS = """\
task_id,model_id,category,text,tool_call,response,task_name,label,details
stone_cottage_porch_lamp-light_up_the_porch-0,tiny,porch,x,x,x,t,Good,
stone_cottage_porch_lamp-porch_lamp_on_please-0,tiny,porch,x,x,x,t,Bad,"no"
"""


def write_run(
    folder: Path,
    sentence: str,
    answer: str = "The porch is lit.",
    model: str = "tiny",
    *,
    finished: bool = True,
) -> None:
    """Write one recorded run of a sentence; unfinished: cut short after its call."""
    slug = sentence.lower().replace(",", "").replace(" ", "_")
    last = LAST.format(answer=answer) if finished else ""
    text = RUN.format(
        slug=slug, model=model, sentence=sentence, answer=answer, last=last
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{slug}-0.yaml").write_text(text, "utf-8")


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """Write the report: tiny's two runs, the verdicts, the collector's notes."""
    folder = tmp_path / "reports" / "cottage-set" / "1.0"
    write_run(folder / "tiny", "Light up the porch")
    write_run(folder / "tiny", "Porch lamp on, please", "Done.", finished=False)
    (folder / "tiny" / "_scrape_context.yaml").write_text("notes: ''\n", "utf-8")
    (folder / "report.csv").write_text(LABELS, "utf-8")
    return folder


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Write the dataset upstream keeps beside its reports: the stone cottage."""
    home = tmp_path / "datasets" / "cottage-set" / "stone-cottage"
    home.mkdir(parents=True)
    (home / "_fixtures.yaml").write_text(FIXTURES, "utf-8")
    (home / "porch-lamp.yaml").write_text(CASES, "utf-8")
    return home.parent


def test_a_report_is_read_run_by_run_with_its_verdicts(reports: Path) -> None:
    """Each assistant message is a round; the run suffix is not the task's."""
    ((model, (light_up, lamp_on)),) = load_report(reports).items()

    assert model == "tiny"
    assert light_up.task == "stone_cottage_porch_lamp-light_up_the_porch"
    assert light_up.sentence == "Light up the porch"
    call = RecordedCall("HassTurnOn", {"name": "Porch Lamp", "domain": ["light"]})
    assert light_up.messages == (
        RecordedMessage((call,)),
        RecordedMessage(content="The porch is lit."),
    )
    assert (light_up.answer, light_up.rounds) == ("The porch is lit.", 2)
    assert (light_up.label, light_up.good) == ("Good", True)
    assert (lamp_on.label, lamp_on.good) == ("Bad", False)


def test_a_run_cut_short_after_a_call_ends_with_its_response(reports: Path) -> None:
    """With no last word of the model's, the recorded response is what was heard."""
    lamp_on = load_report(reports)["tiny"][1]

    assert lamp_on.messages[-1] == RecordedMessage(content="Done.")
    assert lamp_on.rounds == 2


def test_one_models_folder_reads_the_verdicts_beside_it(reports: Path) -> None:
    """A folder of case files alone is one model's; report.csv is one level up."""
    report = load_report(reports / "tiny")

    assert [run.label for run in report["tiny"]] == ["Good", "Bad"]


def test_a_folder_without_runs_is_refused(tmp_path: Path) -> None:
    """A path that holds no recorded run says so, rather than replaying nothing."""
    (tmp_path / "notes.yaml").write_text("notes: ''\n", "utf-8")

    with pytest.raises(ValueError, match="no recorded case"):
        load_report(tmp_path)


def test_each_run_finds_its_home_and_case(reports: Path, dataset: Path) -> None:
    """The task names the home's folder, the case file and the sentence, as slugs."""
    home = load_home(dataset / "stone-cottage")
    runs = load_report(reports)["tiny"]
    other = RecordedRun("tiny", "stone_cottage_porch_lamp-open_the_gate", "x", ())
    reworded = RecordedRun("tiny", runs[0].task, "Light the porch up", ())

    found, lost = match([*runs, other, reworded], [home])

    assert [task_of(case) for case in home.cases] == [run.task for run in runs]
    assert [(r.case.id, r.run) for r in found] == [
        ("stone-cottage/porch-lamp-1.1", runs[0]),
        ("stone-cottage/porch-lamp-1.2", runs[1]),
    ]
    assert lost == [other, reworded]


def test_the_dataset_is_found_beside_the_reports(
    reports: Path, dataset: Path, tmp_path: Path
) -> None:
    """Upstream's layout, or the dataset beside reports/ itself; else none."""
    assert find_dataset(reports / "tiny") == dataset
    moved = tmp_path / "cottage-set"
    dataset.rename(moved)
    assert find_dataset(reports) == moved
    moved.rename(tmp_path / "elsewhere")
    assert find_dataset(reports) is None


def test_the_replayed_model_names_tools_as_offered_and_stands_by_its_answer(
    reports: Path,
) -> None:
    """A bare intent name is the one offered tool with a prefix before it.

    A request beyond the recording is answered with the recorded answer again.
    """
    run = load_report(reports)["tiny"][0]
    model = ReplayedModel(run)
    body = {
        "tools": [
            {"type": "function", "function": {"name": "intent__HassTurnOn"}},
            {"type": "function", "function": {"name": "intent__HassTurnOff"}},
        ]
    }

    first, second, third = model(body), model(body), model({})

    assert isinstance(first, ToolCalls)
    assert [call.name for call in first.calls] == ["intent__HassTurnOn"]
    assert first.calls[0].arguments == {"name": "Porch Lamp", "domain": ["light"]}
    assert isinstance(second, Text)
    assert isinstance(third, Text)
    assert second.content == third.content == "The porch is lit."
    assert model.requests == 3
    assert offered_name("HassTurnOn", ["HassTurnOn", "x__HassTurnOn"]) == "HassTurnOn"
    assert offered_name("HassTurnOn", ["a__HassTurnOn", "b__HassTurnOn"]) == (
        "HassTurnOn"
    )
    assert offered_name("GetLiveContext", []) == "GetLiveContext"


def record(
    agent: str,
    replay: Replay,
    answers: list[str],
    requests: int = 2,
    state: str = "on",
    keys: tuple[str, ...] = (),
) -> Replayed:
    """Return an agent's replay of a run, the lamp left in a state."""
    reasons = [] if state == "on" else [f"light.porch_lamp state is {state!r}"]
    after = {"light.porch_lamp": flat(state, {})}
    return Replayed(agent, replay, reasons, answers, [], requests, list(keys), after)


def test_false_positives_are_right_runs_replaced_extended_or_ending_otherwise(
    reports: Path, dataset: Path
) -> None:
    """A "yes" to the agent's question is no false positive; a Bad run is none.

    Unless core's replay shows the calls were right after all.
    """
    home = load_home(dataset / "stone-cottage")
    (light_up, lamp_on), _ = match(load_report(reports)["tiny"], [home])
    heard = light_up.run.answer
    keys = ("chatterbox_claim_without_action",)
    records = [
        record(CHATTERBOX, light_up, ["Do you want me to?", heard]),
        record(CORE, light_up, [heard]),
        record(CHATTERBOX, lamp_on, ["Sorry."], requests=3, state="off", keys=keys),
        record(CORE, lamp_on, ["Done."]),
    ]

    assert false_positives(records[:1]) == []
    (fault,) = false_positives(records)
    assert fault.record is records[2]
    assert fault.why == (
        "replaced",
        "extended: 3 requests for 2 recorded",
        "states unlike core's: light.porch_lamp state is 'off', not 'on'",
    )
    assert said(fault) == (
        "stone_cottage_porch_lamp-porch_lamp_on_please (replaced, extended: 3 "
        "requests for 2 recorded, states unlike core's: light.porch_lamp state is "
        "'off', not 'on'): recorded 'Done.'; heard 'Sorry.'; trace keys: "
        "chatterbox_claim_without_action"
    )
    assert false_positives(records[2:3]) == []  # Bad, and no core to say otherwise


def test_the_report_gives_each_agents_counts_per_model(
    reports: Path, dataset: Path
) -> None:
    """One table per model, then its false positives and its cases that failed."""
    home = load_home(dataset / "stone-cottage")
    (light_up, lamp_on), _ = match(load_report(reports)["tiny"], [home])
    heard = light_up.run.answer
    records = [
        record(CHATTERBOX, light_up, ["Do you want me to?", heard]),
        record(CORE, light_up, [heard]),
        record(CHATTERBOX, lamp_on, ["Sorry."], requests=3, state="off"),
        record(CORE, lamp_on, ["Done."]),
    ]
    lost = RecordedRun("tiny", "stone_cottage_porch_lamp-open_the_gate", "x", ())

    text = report(records, [lost])

    assert "### tiny: 2 recorded runs, 1 judged Good upstream" in text
    assert "| Measure | Chatterbox | core llama_cpp |" in text
    assert "| States as expected | 1 | 2 |" in text
    assert "| … of the runs upstream judged Good | 1/1 | 1/1 |" in text
    assert "| Answers heard untouched | 1 | 2 |" in text
    assert "| Extra rounds (cases) | 1 (1) | 0 (0) |" in text
    assert '| Questions for a "yes" | 1 | 0 |' in text
    assert "| False positives | 1 | - |" in text
    assert "States not as expected, Chatterbox: 1" in text
    assert "- tiny: stone_cottage_porch_lamp-open_the_gate" in text
