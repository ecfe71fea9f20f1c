"""The replay provider and its bundled recordings: keyed by what the model reads, rebuilt exactly,
enough for every scenario to run with no key, and a plain "no recording" for anything else."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lib.logs.native import read_trace
from lib.live.launch import RunSetup, edited, run_headless, save_trace, start
from lib.live.rebuild import rebuild
from lib.live.replay import RECORDINGS_DIR, ReplayProvider, read_recordings, recordings_from_trace, request_key
from lib.live.runner import Teaching
from lib.live.scenarios import HENGXIN, SCENARIOS
from tests.conftest import ROOT


def test_the_key_is_what_the_model_reads_not_the_settings():
    body = {"model": "a", "messages": [{"role": "user", "content": "hi"}], "tools": [], "temperature": 0}
    assert request_key(body) == request_key({**body, "model": "b", "temperature": 1, "reasoning_effort": "none"})
    assert request_key(body) == request_key(dict(reversed(body.items())))
    assert request_key(body) != request_key({**body, "messages": [{"role": "user", "content": "hi!"}]})
    assert request_key(body) != request_key({**body, "system": "Be brief."})


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_runs_on_the_replay_provider_with_its_default_question(tmp_path, name):
    output = tmp_path / "run.jsonl"
    assert run_headless(RunSetup(SCENARIOS[name]), output) == 0
    trace, problems = read_trace(output.read_text(encoding="utf-8").splitlines())
    assert problems == []
    assert trace.rounds[-1].response.stop == "end"
    assert all(r.error is None for r in trace.rounds)
    assert trace.header["metadata"]["provider"] == "replay"


def test_one_changed_character_in_a_tool_description_gets_no_recording(tmp_path):
    changed = edited(HENGXIN, descriptions={"calcAmountOver": HENGXIN.tools[2].description + "!"})
    status = start(RunSetup(changed), None, tmp_path).run()
    assert status.outcome == "no-recording"  # nothing was sent, so no provider errored
    assert status.message == "Round 1: no call made (Replay has no recording of this request)."


def test_a_missing_recording_is_an_error_round_naming_the_key(tmp_path):
    runner = start(RunSetup(edited(HENGXIN, question="How much was my last claim?")), None, tmp_path)
    runner.run()
    (round_,) = runner.trace.read()[0].rounds
    assert round_.error.status is None
    assert round_.error.message.startswith("No recording for this request")
    assert round_.error.body["body"]["error"]["key"] == request_key(round_.request.raw)


def test_a_changed_model_name_still_replays(tmp_path):
    setup = RunSetup(HENGXIN, options=replace(HENGXIN.options, model="gpt-5-mini"))
    runner = start(setup, None, tmp_path)
    assert runner.run().state == "needs-approval"
    assert json.loads(runner.trace.lines[1])["request"]["model"] == "gpt-5-mini"


def test_a_recorded_error_replays_as_the_same_error_round(tmp_path):
    runner = start(RunSetup(HENGXIN, teaching=Teaching(drop_result=True)), None, tmp_path)
    status = runner.run()
    assert status.outcome == "error"
    assert "did not have response messages: call_q2" in status.message
    assert runner.trace.read()[0].rounds[1].error.status == 400


def test_the_bundled_recordings_are_exactly_what_the_rebuild_writes(tmp_path):
    for written in rebuild(tmp_path):
        assert written.read_text(encoding="utf-8") == (RECORDINGS_DIR / written.name).read_text(encoding="utf-8"), (
            f"{written.name} is stale: run python -m lib.live.rebuild")


def test_every_bundled_recording_is_keyed_by_its_own_request():
    for path in RECORDINGS_DIR.glob("*.jsonl"):
        for recording in read_recordings(path):
            assert recording.key == request_key(recording.request), path.name
            assert recording.note


def test_a_saved_live_trace_becomes_recordings_that_replay_it(tmp_path):
    (tmp_path / "first").mkdir(), (tmp_path / "second").mkdir()
    first = start(RunSetup(SCENARIOS["loan"]), None, tmp_path / "first")
    first.run()
    replayed = ReplayProvider(recordings_from_trace(first.trace.lines), "openai-chat")
    second = start(RunSetup(SCENARIOS["loan"]), None, tmp_path / "second", provider=replayed)
    assert second.run().outcome == "answered"
    assert [json.loads(line).get("response") for line in second.trace.lines[1:]] == [
        json.loads(line).get("response") for line in first.trace.lines[1:]]


def test_python_m_lib_run_writes_the_native_trace_headless(tmp_path):
    output = tmp_path / "run.jsonl"
    done = subprocess.run([sys.executable, "-m", "lib", "run", "hengxin", "--provider", "replay", "-o", str(output)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "approved createExpenseSupplement call_q4" in done.stdout
    assert f"{output}: 4 rounds. The model answered in round 4." in done.stdout
    trace, problems = read_trace(output.read_text(encoding="utf-8").splitlines())
    assert problems == [] and [len(r.request.messages) for r in trace.rounds] == [2, 5, 7, 9]
    check = subprocess.run([sys.executable, "-m", "lib", "check", str(output)], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    assert check.returncode == 0 and ": error " not in check.stdout


def test_python_m_lib_run_declines_on_request_and_exits_2_without_a_key(tmp_path):
    declined = subprocess.run([sys.executable, "-m", "lib", "run", "hengxin", "--decline", "-o",
                               str(tmp_path / "d.jsonl")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert declined.returncode == 0 and "declined createExpenseSupplement" in declined.stdout
    assert "Not executed" in (tmp_path / "d.jsonl").read_text(encoding="utf-8")
    no_key = subprocess.run([sys.executable, "-m", "lib", "run", "loan", "--provider", "openai", "-o",
                             str(tmp_path / "k.jsonl")], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert no_key.returncode == 2 and "No API key for OpenAI: set OPENAI_API_KEY" in no_key.stderr
    dropped = subprocess.run([sys.executable, "-m", "lib", "run", "hengxin", "--teach", "drop-result", "-o",
                              str(tmp_path / "t.jsonl")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert dropped.returncode == 1 and "HTTP 400" in dropped.stdout
    assert '"teaching": ["dropped-tool-result"]' in Path(tmp_path / "t.jsonl").read_text(encoding="utf-8")


def test_saving_a_run_into_a_folder_never_overwrites_another_file(tmp_path):
    first = save_trace("one\n", tmp_path, "loan")
    second = save_trace("two\n", tmp_path, "loan")
    assert first != second and first.name.startswith("live-loan-") and second.suffix == ".jsonl"
    assert (first.read_text(), second.read_text()) == ("one\n", "two\n")


def test_python_m_lib_run_sends_the_settings_it_is_given(tmp_path):
    output = tmp_path / "loan.jsonl"
    done = subprocess.run([sys.executable, "-m", "lib", "run", "loan", "-o", str(output), "--temperature", "0.2",
                           "--tool-choice", "calculate_loan_payment", "--parallel-tool-calls", "off",
                           "--model", "gpt-4.1-mini"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    first = json.loads(output.read_text(encoding="utf-8").splitlines()[1])["request"]
    assert first["model"] == "gpt-4.1-mini" and first["temperature"] == 0.2
    assert first["tool_choice"] == {"type": "function", "function": {"name": "calculate_loan_payment"}}
    assert first["parallel_tool_calls"] is False


def test_the_command_line_offers_exactly_the_scenarios_there_are():
    from lib import cli

    assert set(cli.SCENARIO_NAMES) == set(SCENARIOS)
