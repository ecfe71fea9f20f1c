"""A trace as one self-contained HTML file, and a printable handout, from Jinja2 templates.

The templates live in lib/templates/. The environment escapes every value by default, so a trace
string (a title, a tool name, an HTTP status that is not a number) always shows as the text it is
and can never become a tag, an attribute or a meta refresh. The files work offline and load
nothing: the CSS is inline, there is no script and no URL of any kind, a Content-Security-Policy
would refuse a script or a remote load even if one slipped in, and no referrer would be sent. No
Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from lib.annotations import Note, Rubric, note_heading, round_of
from lib.checks import (EXPLANATION_HEADING, NONE_FOUND, NONE_FOUND_IN_LOG, SEVERITIES, SEVERITY_NAMES, Finding,
                        counts_words, explanation_paragraphs, run_checks, skipped_words, unread_requests)
from lib.dialects import DIALECTS
from lib.failures import (EMPTY_BODY, NO_RESPONSE, PART_CAME_BACK, TRIES_KEPT, failure_heading, odd_status,
                          round_tries, sent_again_words, tries_listed, undecoded_words, wordless)
from lib.growth import (CHANGED_WORDS, REFERENCE_WORDS, SUMMARY_CALL_WORDS, against_words, changed_words,
                         left_out_words, matched_words, origin_words, places_words, program_sent, referred_words, round_heading,
                         round_name, sends, system_words)
from lib.logs.record import Problem
from lib.model import HEADERS_NAME, HEADERS_SAID, NO_HEADERS, Round, Trace, headers_text
from lib.money import MONEY_TITLE, MONEY_WHY, worked_money
from lib.predict import nothing_to_predict_words
from lib.round_view import RoundView, round_view
from lib.summary import (NOT_IN_THE_LOG, OUTPUT_MISSING, REQUEST_NOT_COUNTED, RoundSummary, billing_words,
                         log_ends_words, missing_output, other_models_named, output_left_out_words, reported_extras_words,
                         said_parts, stop_inferred, stop_unrecorded_words, tokens_words, tool_list_kept,
                         tool_list_missing, tool_list_words)
from lib.steps import (STEP_COLORS, STEP_MARKS, STEP_TITLES, command_unproven, text_commands, written_arguments,
                       written_call)
from lib.text import as_code, as_sentence, figure, milliseconds, plural, show_controls
from lib.provenance import ANSWER_NOT_CAPTURED, notice_heading, origin_line, provenance_detail
from lib.tokens import OUTPUT_SCHEMA_SAID, split_words
from lib.usage_gap import figure_note

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'"
"""The file's own Content-Security-Policy: inline styles, and nothing else at all."""

_STEP_CSS = "\n".join(f".s{n} {{ border-left: 6px solid {color.hex}; }} .s{n} .mark {{ color: {color.hex}; }}"
                      for n, color in STEP_COLORS.items())
CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2330; margin: 0 auto;
       max-width: 1200px; padding: 24px; }
h1 { font-size: 1.8em; margin: 0 0 .2em; } h2 { margin: 1.6em 0 .4em; border-bottom: 2px solid #e6e8ef; }
h3 { font-size: 1.05em; margin: 1em 0 .3em; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f7fa; border: 1px solid #e6e8ef;
      border-radius: 4px; padding: 8px; margin: 4px 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
code { font: 13px ui-monospace, Menlo, Consolas, monospace; background: #f0f2f6; padding: 0 3px; border-radius: 3px; }
table { border-collapse: collapse; margin: 8px 0; } td, th { border: 1px solid #dde1ea; padding: 3px 8px; text-align: left; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.msg, .exec, .note { border: 1px solid #dde1ea; border-radius: 6px; padding: 8px 10px; margin: 8px 0; }
.lesson { background: #fff8ec; border: 1px solid #f0c987; border-radius: 6px; padding: 4px 12px; margin: 8px 0; }
.lesson > div { padding-left: 8px; margin: 6px 0; }
.meta { color: #5b6172; font-size: .92em; }
.steps { list-style: none; padding: 0; } .steps li { padding: 3px 8px; margin: 3px 0; background: #fafbfd; }
.mark { font-weight: bold; }
.muted { color: #6b7080; } .error { color: #b00020; }
.finding { border: 1px solid #dde1ea; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
.finding.error { border-left: 6px solid #b00020; color: inherit; } .finding.warning { border-left: 6px solid #e0a100; }
.finding.info { border-left: 6px solid #8a93a6; } .money { padding-left: 8px; margin: 8px 0; }
.predict p { margin: 14px 0; border-bottom: 1px solid #9aa0ad; padding-bottom: 2px; }
@media print {
  body { max-width: none; padding: 0; font-size: 12px; }
  .page { break-after: page; }
  details > summary { list-style: none; }
  /* Printed, a closed <details> would hide what the model reads: the tool definitions print open. */
  details::details-content { content-visibility: visible; display: block; }
  .cols { grid-template-columns: 1fr 1fr; }
}
""" + _STEP_CSS


def _code_text(value) -> str:
    return as_code(value)[0]


def _shown(value):
    # Every value a template writes: bidi controls written out, so none reorders the text after it; our own
    # constants (the policy, the stylesheet) as they are.
    return value if isinstance(value, Markup) or not isinstance(value, str) else show_controls(value)


def _estimated_input(row: RoundSummary) -> str:
    """An estimated round's input as the file's round heading says it: `≈ 1,234 in`, or that the log did not keep the
    request, which nothing then estimates (the Tokens page's NOT_IN_THE_LOG)."""
    tokens_in = tokens_words(row)[0]
    return f"input {tokens_in}" if row.input_if_known is None else f"{tokens_in} in"


def _table_counts(view: RoundView) -> tuple[int | str, int | str]:
    """The messages the program sent and the response's tool calls, as the Tokens page's table writes them
    (RoundSummary.sent_if_known, calls_if_known): held messages are not sent, and what the log lacks is named."""
    round_, row = view.round, view.row
    if row is not None:
        sent, calls = row.sent_if_known, row.calls_if_known
    else:  # a file without token figures: the same rules, read off the round
        sent = program_sent(round_) if round_.request_recorded else None
        calls = len(round_.tool_calls) if round_.response is not None or round_.error is not None else None
    return (NOT_IN_THE_LOG if sent is None else sent), (NOT_IN_THE_LOG if calls is None else calls)


def tools_sent_words(trace: Trace, round_: Round) -> str:
    """What the handout says of the tool list a round's program sent: how many tools, or that the log keeps none
    (lib.summary.tool_list_kept), never a count of 0 for a list that was sent and not logged."""
    if not tool_list_kept(trace):
        return "; the log keeps no tool list"
    if round_.tools_held:  # not in this request (previous_interaction_id): "and 1 tool" said the program sent it
        return f"; no tools: the provider holds the {plural(len(round_.request.tools), 'tool')} sent earlier"
    return " and " + plural(len(round_.request.tools), "tool")


def _finish_field(dialect: str) -> str:
    """The column of the stop signal, named after the dialect's own field: finish reason, stop reason."""
    return DIALECTS[dialect].FINISH_FIELD.replace("_", " ")


@dataclass(frozen=True, slots=True)
class WrittenRun:
    """A command the model wrote in its text, not as a tool call, as the file's program lane shows it: the lane a tool
    call's execution has, for what its steps 2 and 3 label (lib.steps.text_commands, command_unproven)."""

    name: str
    """The command."""
    arguments: str | None
    """Its arguments exactly as the model wrote them in the text (the command's `args`, lib.steps.written_arguments; a
    ReAct action's input, lib.steps.TextCommand.action_input); None where it wrote none."""
    returned: str | None
    """What it returned, as the next request in the log carries it (lib.steps.TextCommand.result_round); None where no
    request carries it (the log ends first, or the next request holds none)."""
    said: str
    """The round's step 3 label for it: where its result is, or that nothing shows it ran (one set of words)."""
    unknown: str = ""
    """Where `returned` is None, what is known of it as a sentence (lib.steps.command_unproven's words)."""
    answer: str | None = None
    """Where a person answered it in place of its result, their words as the next request carries them."""


def written_runs(trace: Trace, view: RoundView) -> tuple[WrittenRun, ...]:
    """The commands round `view` wrote in its text that its step 3 labels: those the next request carries the result
    of, or the one no request carries the result of (the log ends on it, or the next request holds none); none for a
    round with a tool call or no such command."""
    round_ = view.round
    if round_.tool_calls:
        return ()
    ran, unseen = text_commands(trace, round_.index), command_unproven(trace, round_.index)
    if not ran and unseen is None:
        return ()
    found, exact = written_call(round_), written_arguments(round_)
    said = [label.detail for label in view.steps if label.step == 3 and not label.path]

    def arguments(name: str) -> str | None:
        return exact if found and found[0] == name else None

    if unseen is not None:
        return (WrittenRun(unseen.name, arguments(unseen.name), None, said[0] if said else "",
                           as_sentence(unseen.words), unseen.answer),)
    return tuple(WrittenRun(c.name, c.action_input if c.action_input is not None else arguments(c.name),
                            trace.rounds[c.result_round - 1].request.messages[c.result_at].text,
                            said[n] if n < len(said) else "") for n, c in enumerate(ran))


TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True,
                        finalize=_shown, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                        keep_trailing_newline=True)
"""Every file is built here; `autoescape` is what keeps trace text text."""
TEMPLATES.filters.update(plural=plural, figure=figure, milliseconds=milliseconds, code_text=_code_text,
                        failure_heading=failure_heading, odd_status=odd_status)
# The policy and the stylesheet are our own constants, written as they are (entities mean nothing in <style>).
TEMPLATES.globals.update(policy=Markup(POLICY), css=Markup(CSS), step_marks=STEP_MARKS, step_titles=STEP_TITLES,
                         origin_words=origin_words, changed_words=changed_words, reference_words=REFERENCE_WORDS,
                         changed_said=CHANGED_WORDS, round_heading=round_heading, round_name=round_name,
                         summary_call_words=SUMMARY_CALL_WORDS,
                         referred_words=referred_words, finish_field=_finish_field, said_parts=said_parts,
                         billing_words=billing_words,
                         split_words=split_words, figure_note=figure_note,
                         origin_line=origin_line, provenance_detail=provenance_detail, sends=sends, program_sent=program_sent,
                         note_heading=note_heading, notice_heading=notice_heading, request_not_counted=REQUEST_NOT_COUNTED,
                         against_words=against_words, system_words=system_words,
                         sent_again_words=sent_again_words, undecoded_words=undecoded_words, round_tries=round_tries,
                         tries_listed=tries_listed, tries_kept=TRIES_KEPT,
                         wordless=wordless, empty_body=EMPTY_BODY,
                         matched_words=matched_words, places_words=places_words, left_out_words=left_out_words,
                         no_response=NO_RESPONSE, part_came_back=PART_CAME_BACK, log_ends_words=log_ends_words,
                         answer_not_captured=ANSWER_NOT_CAPTURED, missing_output=missing_output, output_missing=OUTPUT_MISSING,
                         not_in_the_log=NOT_IN_THE_LOG, estimated_input=_estimated_input,
                         output_left_out_words=output_left_out_words,
                         table_counts=_table_counts, tools_sent_words=tools_sent_words,
                         stop_inferred=stop_inferred, stop_unrecorded_words=stop_unrecorded_words,
                         tool_list_words=tool_list_words, reported_extras_words=reported_extras_words,
                         other_models_named=other_models_named,
                         output_schema_said=OUTPUT_SCHEMA_SAID,
                         nothing_to_predict_words=nothing_to_predict_words,
                         severities=SEVERITIES, severity_names=SEVERITY_NAMES, counts_words=counts_words,
                         none_found=NONE_FOUND, none_found_in_log=NONE_FOUND_IN_LOG,
                         explanation_heading=EXPLANATION_HEADING, explanation_paragraphs=explanation_paragraphs,
                         worked_money=worked_money, money_title=MONEY_TITLE, money_why=MONEY_WHY,
                         headers_name=HEADERS_NAME, headers_said=HEADERS_SAID, no_headers=NO_HEADERS,
                         headers_text=headers_text, written_runs=written_runs)


def trace_html(trace: Trace, rows: tuple[RoundSummary, ...] | None = None, notes: Iterable[Note] = (),
               rubrics: Iterable[Rubric] = (), findings: Iterable[Finding] | None = None,
               problems: Iterable[Problem] = (), skipped: int | None = None) -> str:
    """The whole trace as one HTML page: what the checks found (`findings`, the Checks page's: run here when not
    given), with what the Checks page says beside them of the requests the log lacked and of the file's parts that
    could not be read (`problems` and `skipped`, the LoadedTrace's), then every round's steps, request, response,
    program lane with the money worked out, tokens and notes (their scores read on `rubrics`)."""
    found = tuple(run_checks(trace) if findings is None else findings)
    by_round: dict[int | None, list[Note]] = {}
    for note in notes:
        by_round.setdefault(round_of(note.target), []).append(note)
    views = [round_view(trace, r.index, notes=by_round.get(r.index, ()), row=rows[r.index - 1] if rows else None)
             for r in trace.rounds]
    return TEMPLATES.get_template("trace.html.j2").render(trace=trace, rows=bool(rows), rounds=views,
                                                          trace_notes=by_round.get(None, []), rubrics=tuple(rubrics),
                                                          findings=found, unread=unread_requests(trace),
                                                          skipped=skipped_words(problems, skipped))


def handout_html(trace: Trace, rounds: Iterable[int] | None = None) -> str:
    """A printable worksheet: one page per round with what the program sends and room to predict; answers last."""
    chosen = list(rounds) if rounds is not None else [r.index for r in trace.rounds]
    return TEMPLATES.get_template("handout.html.j2").render(trace=trace, rounds=[round_view(trace, k) for k in chosen])
