"""The markup rule, read off the code: every Streamlit call that makes markup gets only our own words.

Streamlit renders markdown (links, remote images, colors, HTML where allowed) in st.markdown,
st.caption, st.write, headings, alerts, toasts, st.html, and in the labels, tooltips and captions of
widgets, expanders, tabs, metrics and column configs. Trace text must never reach those: it goes
through lib/ui/plain.py's `text` (st.text), st.code, st.json or a dataframe, which make no markup.

This test reads lib/ui, pages and app.py and checks every text argument of those calls. A value is
ours when it is made only of:
- literals, and module constants (UPPER_CASE names: our own words, written in the code);
- numbers: a value formatted as one (`{x:,}`, `{x:.0%}`), `len(...)`, a name annotated int, float or
  bool, or a field that every dataclass of lib/ declares int, float or bool;
- closed vocabularies: a field every dataclass of lib/ declares as a `Literal[...]`;
- calls of the helpers in WORDS (each returns words of ours, whatever it is given), and of the
  formatters in FORMATTERS (ours when what they are given is ours);
- local names whose every assignment is ours, and loop variables over something ours;
- the expressions in VOUCHED, each with why it is ours.
Anything else is reported with its file, line and the expression: route it through `plain.text`,
st.code or a dataframe, or, when it truly is ours, vouch for it here with the reason.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "lib" / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])

MARKUP_FIRST = {
    "markdown", "caption", "write", "title", "header", "subheader", "info", "warning", "error", "success",
    "toast", "html", "latex", "badge", "exception", "metric", "expander", "popover", "button", "download_button",
    "link_button", "page_link", "checkbox", "toggle", "radio", "selectbox", "multiselect", "number_input",
    "text_input", "text_area", "slider", "select_slider", "date_input", "time_input", "file_uploader",
    "color_picker", "pills", "segmented_control", "feedback", "chat_input", "form_submit_button",
    "TextColumn", "NumberColumn", "CheckboxColumn", "SelectboxColumn", "LinkColumn", "ListColumn",
    "DatetimeColumn", "DateColumn", "TimeColumn", "ProgressColumn", "LineChartColumn", "BarChartColumn",
    "AreaChartColumn", "ImageColumn", "JSONColumn", "MultiselectColumn", "Column",
}
"""Calls whose first argument (the body, or the label) Streamlit renders as markdown."""
MARKUP_KEYWORDS = {"body", "label", "help", "captions", "title"}
"""Keyword arguments rendered as markdown wherever they appear (tooltips, radio captions, labels)."""
OPTIONS_RENDERED = {"radio", "pills", "segmented_control"}
"""Widgets whose options render as markdown too (a selectbox's do not)."""
WHOLE_LIST = {"tabs"}
"""Calls whose first argument is a list of labels, each rendered as markdown."""

WORDS = {
    "plural": "a count and our noun, made plural (lib/text.py)",
    "capture_keeps_words": "our sentence naming the header names of lib.model.KEPT_HEADERS, a constant of ours "
                           "(lib/ui/watch.py)",
    "failure_heading": "our sentence for a failed call from its HTTP status number (lib/failures.py)",
    "tries_said": "a count and HTTP status numbers, checked to be ints, in our sentence on the SDK's tries "
                  "(lib/failures.py)",
    "sends": "our sentence counting a round's messages (lib/round_view.py)",
    "round_heading": "a round's number, our name of a summary call, and sends (lib/growth.py)",
    "round_tries": "tries_said of a round's own attempts (lib/failures.py)",
    "try_heading": "two counts and an HTTP status checked to be an int (failed_tries), in our sentence "
                   "(lib/failures.py)",
    "tool_list_missing": "one of three constants saying the log kept no tool list (lib/summary.py)",
    "tool_list_words": "tool_list_missing for a row's or the totals' flags (lib/summary.py)",
    "cost_words": "a price in dollars or 'not known' (lib/prices.py)",
    "money_words": "an amount in dollars or 'no price' (lib/prices.py)",
    "about": "a token count, ≈ when estimated (lib/ui/accounting.py)",
    "tokens_words": "a round's input and output tokens: digits, ≈ when estimated, or why none (lib/summary.py)",
    "missing_output": "'not known' or 'not in the log': why a round has no output figure (lib/summary.py)",
    "_nothing_ran": "our sentence for a round whose calls did not run (lib/ui/cards.py)",
    "origin_line": "where a trace came from, in our words and numbers (lib/provenance.py)",
    "tools_line": "our words for how many tools a request sent (lib/presenter.py)",
    "ours": "the value only when it is one of the words given, else None (lib/ui/plain.py)",
    "nothing_to_keep": "one of two constant sentences, or None: why a live run has nothing to keep yet "
                       "(lib/live/runner.py)",
    "step_lead": "a step slide's one sentence: constants (lib.steps.cut_off_short's among them), or a count of the "
                 "calls (lib/slide_words.py)",
    "knows_words": "one of two constant sentences on what the model knows (lib/slide_words.py)",
    "no_bar_words": "the rounds that have no bar, by number, in our words (lib/summary.py)",
    "output_estimate_words": "our sentences on what an estimated output counts and leaves out (lib/summary.py)",
    "output_left_out_words": "our words for the kinds of parts an output estimate leaves out, never the log's "
                             "(lib/summary.py)",
    "reported_extras_words": "token counts and our words: the prompt cache read and written, the reasoning tokens, "
                             "inside a reported usage (lib/summary.py)",
    "other_model_calls_words": "token counts and our words: the calls to other models inside a round, never their "
                               "models' names (lib/summary.py)",
    "cache_written": "token counts and our words: what was written to the prompt cache, for how long, or that the "
                     "API reports none (lib/summary.py)",
    "predicted_only_words": "round numbers and our sentence: which rounds a slide leaves out (lib/slide_words.py)",
    "held_chain_words": "our sentence on a chain the provider kept, with kept_by_provider's constant words "
                        "(lib/slide_words.py)",
    "gallery_words": "round and finding counts in our sentence for a slide of no gallery trace (lib/slide_words.py)",
    "every_call_words": "one of two sentence openings, with kept_by_provider's constant words (lib/slide_words.py)",
    "sent_again_words": "one of two clauses on what each call sent, with kept_by_provider's constant words "
                        "(lib/slide_words.py)",
    "predict_first_words": "a round number and our sentence: which round to predict first (lib/slide_words.py)",
    "held_words": "round numbers and our sentence: why a later round was not opened (lib/presenter.py)",
    "lost_between_words": "round numbers and our clause: which requests the log lost before the one carrying a round's "
                          "results (lib/steps.py)",
    "kept_later_words": "round numbers and our sentence: which later kept request carries a round's results, with "
                        "lost_between_words (lib/presenter.py)",
    "none_kept_words": "round numbers and our sentence: no request after a round is kept (lib/presenter.py)",
    "no_result_words": "round numbers and our sentence: the next request carries no result for a round's calls, and "
                       "why in our clauses (lib/presenter.py, lib.checks.no_result_why)",
    "held_back_words": "a round number and our sentence: why predict mode opened it (lib/presenter.py)",
    "round_words": "'round N', with its total where predict mode may tell it (lib/ui/predict.py)",
    "waits_words": "a round number and our sentence: why Next waits for a prediction (lib/presenter.py)",
    "no_chart_words": "a constant sentence saying why no input or message chart is drawn (lib/summary.py)",
    "log_ends_words": "one of six constant sentences on what the log holds after its last round, no name of the trace's (lib/summary.py)",
    "unrecorded_words": "which run's request the log did not keep: left, right or neither (lib/compare.py)",
    "unlisted_words": "which run's log kept no tool list: left, right or neither (lib/compare.py)",
    "uninstructed_words": "which run's log keeps no instructions: left, right or neither, our words (lib/compare.py)",
    "unanswered_words": "why a run's answer is not known: left or right, constants of ANSWER_MISSING (lib/compare.py)",
    "parts_not_logged_words": "what a log's format never keeps, constants of lib.summary.not_logged_words "
                              "(lib/ui/accounting.py)",
    "tool_list_unkept_words": "a constant sentence of lib.summary.tool_list_missing, or nothing (lib/ui/accounting.py)",
    "unread_requests": "the rounds whose request the log did not keep, by number, in our words (lib/checks.py)",
    "skipped_words": "how many parts of a file could not be read, in our words (lib/checks.py)",
    "matched_words": "message places (messages[3]), counts and our sentences on a request placed by matching "
                     "(lib/growth.py)",
    "counts_words": "how many findings of each severity, then unread_requests' sentence of round numbers, in our "
                    "words (lib/checks.py)",
    "size_words": "a request's message count, or 'not in the log' (lib/slide_words.py)",
    "input_line": "a round's input figure and its parts, in our words and numbers (lib/slide_words.py)",
    "carried": "what a request is made of, in counts of messages (lib/presenter.py)",
    "stop_switch": "a dialect's stop field and its two values, constants of lib/dialects (lib/slide_words.py)",
    "billing_unknown_rounds_words": "round numbers and our sentences: which failed or unanswered calls the input "
                                    "billed leaves out (lib/summary.py)",
    "round_cost_left_out_words": "round numbers and counts of calls in our words: which rounds' cost leaves out an "
                                 "unpriced call inside them, never the models' names (lib/summary.py)",
    "billing_words": "a constant sentence, BILLING_NOT_KNOWN or UNANSWERED_BILLING_NOT_KNOWN, or nothing "
                     "(lib/summary.py)",
    "input_parts": "the parts of a round's input by our names, each with its token count (lib/tokens.py)",
    "input_words": "the parts of a round's input in our words, each with its token count (lib/tokens.py)",
    "split_words": "where a round's input goes: our words, its token counts and figures (lib/tokens.py)",
    "_where": "a run of messages by their indexes: messages[i] to messages[j] (lib/ui/cards.py)",
    "_tokens": "one side's token count of a round, ≈ when estimated, or why it has none: RoundPair.words_left, "
               "lib.summary.tokens_words (lib/ui/compare.py)",
    "_steps_words": "the marks of the steps given, our STEP_MARKS constants (lib/ui/lesson.py)",
    "_shown_words": "what the steps given showed, in our words (lib/ui/lesson.py)",
    "appended_words": "which request a step 4 card's message is new in: our words with a request number, or "
                      "Growth.new_words (lib/presenter.py)",
    "undecoded_words": "an encoding's name of lib.model.UNDECODED_NAMES (never the log's text) and our sentence: a "
                       "failure's body not decoded (lib/failures.py)",
    "sent_again_words": "round numbers, a numeric HTTP status and our sentence: a request sent again after its call "
                        "failed (lib/failures.py)",
    "snowball_words": "our clauses on the input chart's parts, said where the rounds' counts bear them out "
                      "(lib/summary.py)",
    "left_out_words": "a count and a round number in our sentence on the messages a request does not resend "
                      "(lib/growth.py)",
    "against_words": "which request a round's new messages count against, in our words and round numbers (lib/growth.py)",
    "origin_words": "where a new message came from, ORIGIN_WORDS or HUMAN_FEEDBACK_WORDS, or the kinds of parts it came back without in our "
                    "words (LEFT_OUT_WORDS) and a count of the others, never their types (lib/growth.py)",
    "changed_words": "SENT_ON_CHANGED or None: why a resent message changed, our constant (lib/growth.py)",
    "first_read_words": "resent messages by their indexes and the refused requests by round number, in our words "
                        "(lib/slide_words.py)",
    "system_words": "how a top-level system field stands against the request before: our constants, or "
                    "Growth.new_words (lib/growth.py)",
    "login_refusal": "one of two constant sentences on why a signed-in visitor is no editor (lib/access.py)",
}
"""Helpers whose result is our own words, whatever they are given: each checked to quote no trace text."""
FORMATTERS = {"join", "capitalize", "replace", "format", "str", "strip", "rstrip", "lstrip", "lower", "upper",
              "removesuffix", "removeprefix", "items", "values", "keys", "range", "list", "tuple", "enumerate", "zip",
              "columns", "container", "join_path", "sorted", "min", "max", "sum", "abs", "round", "int", "float"}
"""Calls whose result is ours when the callee's receiver and every argument are."""
NUMERIC_SPEC = re.compile(r"[,_]|\.\d*[f%e]|^[+-]?\d*d$|%$")
"""A format spec only numbers take (`,`, `.2f`, `.0%`, `d`): a string given to it raises instead of showing."""
NUMBERS = {"int", "float", "bool"}

LINK = "LinkedRound.problem: our sentence about a link's round, with its number (lib/deeplink.py)"
CHECK_CODE = "Finding.code: a check's code, a constant of lib/checks.py"
NEW_WORDS = "Growth.new_words: what a new message is new against, our words with a round number (lib/growth.py)"
FIELD_RULE = "a FieldRow rule: our words on where each dialect writes a field (lib/dialects/field_table.py)"
VOUCHED: dict[tuple[str, str], str] = {
    ("lib/ui/accounting.py", "usage.source"): "Usage.source: Literal['reported', 'estimated'] (lib/model.py)",
    ("lib/ui/accounting.py", "usage.method"): "the name of the counter that estimated (o200k_base, characters)",
    ("lib/ui/accounting.py", "usage.anchor_round"): "Usage.anchor_round: a round number",
    ("lib/ui/accounting.py", "ball.output_words"):
        "Snowball.output_words: a token sum, ≈ and the calls it leaves out, or a constant (lib.summary.total_words)",
    ("lib/ui/accounting.py", "ball.calls_summed_words"):
        "Snowball.calls_summed_words: counts of calls in our words (lib/summary.py)",
    ("lib/ui/slides.py", "ball.times_one_call_words"):
        "Snowball.times_one_call_words: a ratio to a tenth, or None (lib/summary.py)",
    ("lib/ui/accounting.py", "ball.billing_unknown_words"):
        "Snowball.billing_unknown_words: our sentence with a count of calls, or nothing (lib/summary.py)",
    ("lib/ui/slides.py", "ball.billing_unknown_words"):
        "Snowball.billing_unknown_words: our sentence with a count of calls, or nothing (lib/summary.py)",
    ("lib/ui/accounting.py", "ball.unanswered_words"):
        "Snowball.unanswered_words: our sentence with a count of calls, or nothing (lib/summary.py)",
    ("lib/ui/slides.py", "ball.unanswered_words"):
        "Snowball.unanswered_words: our sentence with a count of calls, or nothing (lib/summary.py)",
    ("lib/ui/accounting.py", "ball.resent_help"):
        "Snowball.resent_help: our sentences with counts of rounds and tokens (lib/summary.py)",
    ("lib/ui/accounting.py", "ball.resent_basis_words"):
        "Snowball.resent_basis_words: our sentence with counts of requests and tokens, or nothing (lib/summary.py)",
    ("lib/ui/accounting.py", "ball.tools_basis_words"):
        "Snowball.tools_basis_words: our sentences with the counter's name (a tiktoken encoding or ours), a token "
        "count and a round number (lib/summary.py)",
    ("pages/overview.py", "ball.one_round_words"):
        "Snowball.one_round_words: our sentence with the metrics' token figures and lib.prices.calls_left_out_words "
        "(lib/summary.py)",
    ("lib/ui/accounting.py", "as_sentence(ball.billed_input_left_out)"):
        "Snowball.billed_input_left_out: lib.prices.calls_left_out_words, our words with counts of calls",
    ("lib/ui/compare.py", "f.input_left_out"):
        "RunFigures.input_left_out: Snowball.billed_input_left_out, lib.prices.calls_left_out_words, our words with "
        "counts of calls",
    ("lib/ui/compare.py", "f.output_left_out"):
        "RunFigures.output_left_out: Snowball.output_left_out, lib.prices.calls_left_out_words, our words with counts "
        "of calls",
    ("lib/ui/compare.py", "cost_notes(f.cost)"): "lib.prices.cost_notes: our words with counts of calls, or nothing",
    ("pages/overview.py", "as_sentence(cost_notes(spent))"):
        "lib.prices.cost_notes: our words with counts of calls, or nothing",
    ("lib/ui/cards.py", "label.title"): "StepLabel.title: STEP_TITLES, narration_title's constants or CUT_OFF_TITLE "
                                        "(lib/steps.py)",
    ("lib/ui/cards.py", "finding.code"): CHECK_CODE,
    ("lib/ui/findings.py", "finding.code"): CHECK_CODE,
    ("lib/ui/cards.py", "placed.new_words"): NEW_WORDS,
    ("lib/ui/lesson.py", "placed.new_words"): NEW_WORDS,
    ("lib/ui/cards.py", "part.path"): "a part's place in its message, written by our readers (content[2])",
    ("lib/ui/compare.py", "found.first_divergence"): "a row number",
    ("lib/ui/compare.py", "pair.left"): "RoundPair.left: a round number or None",
    ("lib/ui/compare.py", "pair.right"): "RoundPair.right: a round number or None",
    ("lib/ui/compare.py", "pair.billing_words"):
        "RoundPair.billing_words: which side's call failed or has no response, in our words",
    ("lib/ui/compare.py", "side"): "'left' or 'right', from the loop's literal pairs",
    ("lib/ui/compare.py", "linked.problem"): LINK,
    ("lib/ui/explorer.py", "linked.problem"): LINK,
    ("lib/ui/fork.py", "lesson.title"): "fork_lessons.LESSONS: our bundled teaching forks (lib/fork_lessons.py)",
    ("lib/ui/fork.py", "lesson.explanation"): "fork_lessons.LESSONS: our bundled teaching forks (lib/fork_lessons.py)",
    ("lib/ui/fork_editor.py", "entry.message"): "an Entry's message position in the body (an int)",
    ("lib/ui/fork_editor.py", "entry.block"): "an Entry's block position in the message (an int or None)",
    ("lib/ui/lesson.py", "reveal(loaded.trace, Position(index, step), lambda k: rounds.view(loaded, k).steps).title"):
        "Reveal.title: a step title of lib/presenter.py (TITLES, FAILED_TITLE, STOPPED_TITLE, COMPACTION_TITLE, "
        "CUT_OFF_TITLE, lib.steps.narration_title)",
    ("lib/ui/presenter.py", "reveal(loaded.trace, Position(here.round, step), _steps_of(loaded)).title"):
        "Reveal.title: a step title of lib/presenter.py (TITLES, FAILED_TITLE, STOPPED_TITLE, COMPACTION_TITLE, "
        "CUT_OFF_TITLE, lib.steps.narration_title)",
    ("lib/ui/presenter.py", "shown.title"): "Reveal.title: a step title of lib/presenter.py",
    ("lib/ui/slides.py", "st.session_state.get(SLIDE, 0)"): "the slide's position: an int our buttons keep",
    ("lib/ui/library.py", "page.shown_total()"): "a count, its digits grouped, '+' when counting stopped",
    ("lib/ui/plan_editor.py", "adjusted"): "our sentence on a round past a trace's end, with its numbers (_add)",
    ("lib/ui/live.py", "scenario.description"): "a scenario of ours (lib/live/scenarios.py)",
    ("lib/ui/live.py", "scenario.options.model"): "a scenario of ours (lib/live/scenarios.py)",
    ("lib/ui/live.py", "scenario.session.items()"): "a scenario of ours: its session fields (lib/live/scenarios.py)",
    ("lib/ui/live.py", "tool.name"): "a scenario's tool, written in lib/live/tools.py",
    ("lib/ui/picker.py", "upload.units"): "Upload.units: our word for what a file is counted in (lines, samples, entries)",
    ("lib/ui/cards.py", "tried.heading"): "ListedTry.heading: try_heading's sentence, two counts and an HTTP status "
                                          "checked to be an int (lib/failures.py tries_listed)",
    ("lib/ui/predict.py", "point.what"): "Point.what: what was predicted, in our words (lib/predict.py)",
    ("lib/ui/side_by_side.py", "r.what"): FIELD_RULE,
    ("lib/ui/side_by_side.py", "r.openai"): FIELD_RULE,
    ("lib/ui/side_by_side.py", "r.anthropic"): FIELD_RULE,
    ("lib/ui/slides.py", "row.what"): FIELD_RULE,
    ("lib/ui/watch.py", "exc.strerror"): "the operating system's words for why the capture file cannot be read",
    ("lib/ui/watch.py", "type(exc).__name__"): "the name of the error class",
    ("lib/ui/accounting.py", "counting.counter.name"): "the name of the counter (o200k_base, cl100k_base, characters)",
}
"""(file, expression) found in a markup call, and why it is ours: the exceptions, each read and explained."""
VOUCHES_USED: set[tuple[str, str]] = set()
"""The vouches an audit relied on: one no audit needs any more is taken out, not left to excuse new code."""


def _classes() -> dict[str, dict[str, str]]:
    """Every class of lib/ with its annotated fields, each as 'number', 'literal' or 'other'."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in (ROOT / "lib").rglob("*.py")]
    aliases = {node.targets[0].id for tree in trees for node in tree.body
               if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
               and ast.unparse(node.value).startswith("Literal[")}
    return {node.name: {field.target.id: _kind(field.annotation, aliases) for field in node.body
                        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)}
            for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def _kind(annotation: ast.expr, aliases: set[str] = frozenset()) -> str:
    """'number', 'literal' or 'other' for an annotation (`X | None` counts as X)."""
    source = ast.unparse(annotation).replace(" | None", "").replace("Optional[", "").rstrip("]").strip("'\"")
    if source in NUMBERS or source in ("int | float", "float | int"):
        return "number"
    if source.startswith("Literal[") or source in aliases:
        return "literal"
    return "other"


def _returns() -> set[str]:
    """Functions of lib/ that return only numbers or closed vocabularies (every function of that name does)."""
    kinds: dict[str, set[str]] = {}
    for path in (ROOT / "lib").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kinds.setdefault(node.name, set()).add(_kind(node.returns) if node.returns is not None else "other")
    return {name for name, found in kinds.items() if found <= {"number", "literal"}}


RETURNS_NUMBERS = _returns()
"""`round_of(target)` is an int or None whatever the target says: its result can make no markup."""
CLASSES = _classes()
"""Field kinds by class: `finding.round` is a number when `finding` is annotated as a Finding."""


def _fields() -> tuple[set[str], set[str]]:
    """Field names every class of lib/ that declares them declares as a number, and those always a Literal."""
    kinds: dict[str, set[str]] = {}
    for fields in CLASSES.values():
        for name, kind in fields.items():
            kinds.setdefault(name, set()).add(kind)
    return ({name for name, found in kinds.items() if found == {"number"}},
            {name for name, found in kinds.items() if found == {"literal"}})


NUMERIC_FIELDS, LITERAL_FIELDS = _fields()


@dataclass(frozen=True)
class Violation:
    """A markup call given a value this test cannot show to be ours."""

    file: str
    """The file, from the repository root."""
    line: int
    """Its line."""
    call: str
    """The call's name (markdown, caption, …)."""
    expression: str
    """The argument that is not ours, as written."""
    culprits: tuple[str, ...] = ()
    """The smallest pieces of it that are not ours."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.call}({self.expression}): not ours: {', '.join(self.culprits)}"


class _Scope:
    """Where a name is looked up: the enclosing functions, innermost first, then the module."""

    def __init__(self, module: ast.Module, functions: list[ast.AST]) -> None:
        self.module = module
        self.functions = functions

    def annotation(self, name: str) -> str:
        """The class a parameter is annotated with, by name ('' when it is not annotated)."""
        for function in reversed(self.functions):
            arguments = getattr(function, "args", None)
            if isinstance(arguments, ast.arguments):
                for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                    if argument.arg == name and argument.annotation is not None:
                        return ast.unparse(argument.annotation).split(" | ")[0].split(".")[-1]
        return ""

    def assignments(self, name: str) -> tuple[list[ast.expr], bool, bool]:
        """What the name is assigned (loop targets as their iterables), whether it is a parameter, and
        whether it is annotated as a number."""
        for function in reversed(self.functions):
            values, found = _assigned_in(function, name)
            arguments = function.args if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
            parameter = None
            if arguments is not None:
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                parameter = next((a for a in every if a.arg == name), None)
            if parameter is not None:
                numeric = parameter.annotation is not None and _kind(parameter.annotation) == "number"
                return values, not numeric, numeric
            if found:
                return values, False, False
        values, _ = _assigned_in(self.module, name, top=True)
        return values, False, False


def _assigned_in(scope: ast.AST, name: str, top: bool = False) -> tuple[list[ast.expr], bool]:
    values: list[ast.expr] = []
    found = False
    nodes = scope.body if top else list(ast.walk(scope))
    if top:
        nodes = [n for statement in nodes for n in ast.walk(statement)
                 if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for node in nodes:
        if isinstance(node, ast.Assign) and any(_binds(t, name) for t in node.targets):
            values.extend(_unpacked(target, node.value, name) for target in node.targets if _binds(target, name))
            found = True
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and _binds(node.target, name) and node.value:
            values.append(node.value)
            found = True
        elif isinstance(node, (ast.For, ast.comprehension)) and _binds(node.target, name):
            counted = isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", "") == "enumerate"
            if counted and isinstance(node.target, ast.Tuple) and _binds(node.target.elts[0], name):
                values.append(ast.Constant(0))  # enumerate's count
            else:
                values.append(_elements_of(node.iter.args[0] if counted and node.iter.args else node.iter))
            found = True
        elif isinstance(node, ast.withitem) and node.optional_vars is not None and _binds(node.optional_vars, name):
            values.append(ast.Constant(None))  # a container (st.columns, st.container): no text of its own
            found = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.func.attr in GROWERS:
            # words.append(x), parts.extend(xs), found[k] = v: what goes in counts as much as what was assigned
            values.extend(ast.List([a], ast.Load()) if node.func.attr in ("append", "add", "insert") else a
                          for a in node.args[-1:])
            found = True
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and _binds(t.value, name)
                                                  for t in node.targets):
            values.append(node.value)
            found = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in node.names):
            values.append(ast.Constant(None))  # a module or a function: its calls are judged where they are made
            found = True
    return values, found


GROWERS = {"append", "extend", "insert", "add", "update", "setdefault"}
"""Methods that put more into a list, set or dict: each is an assignment of what it puts in."""


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _unpacked(target: ast.expr, value: ast.expr, name: str) -> ast.expr:
    """What `name` gets from `target = value`: `a, b = x, y` gives b y; other unpacking, an element of the value."""
    if isinstance(target, ast.Name):
        return value
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return next(_unpacked(t, v, name) for t, v in zip(target.elts, value.elts) if _binds(t, name))
    return _elements_of(value)


def _elements_of(value: ast.expr) -> ast.expr:
    """An element of `value` (a loop's iterable, an unpacked tuple): ours exactly when `value` is."""
    return ast.Subscript(value=value, slice=ast.Constant(0), ctx=ast.Load())


class _Judge:
    """Decides whether an expression is ours, in one scope."""

    def __init__(self, file: str, scope: _Scope, needs: set[str] | None = None) -> None:
        self.file = file
        self.scope = scope
        self.seen: set[str] = set()
        self.needs = needs
        """When a set: the parameters the expression is ours only if its callers pass ours, gathered here."""

    def culprits(self, node: ast.expr) -> tuple[str, ...]:
        """The smallest sub-expressions of `node` that are not ours: what to route through text, or vouch for."""
        def pieces(at: ast.expr):
            """Sub-expressions, an access (`a.b[c].d`, `f(x)`) taken whole rather than split into its parts."""
            if isinstance(at, (ast.Attribute, ast.Subscript, ast.Call, ast.Name)):
                yield at
                return
            for child in ast.iter_child_nodes(at):
                if isinstance(child, ast.expr):
                    yield from pieces(child)

        return tuple(dict.fromkeys(ast.unparse(n) for n in pieces(node) if not self.ours(n)))

    def ours(self, node: ast.expr | None) -> bool:
        if node is None:
            return True
        if (self.file, ast.unparse(node)) in VOUCHED:
            VOUCHES_USED.add((self.file, ast.unparse(node)))
            return True
        method = getattr(self, "_" + type(node).__name__, None)
        return bool(method and method(node))

    def _Constant(self, node):
        return True

    def _JoinedStr(self, node):
        return all(self.ours(part) for part in node.values)

    def _FormattedValue(self, node):
        spec = ast.unparse(node.format_spec)[2:-1] if node.format_spec else ""
        return NUMERIC_SPEC.search(spec) is not None or self.ours(node.value)

    def _BinOp(self, node):
        return self.ours(node.left) and self.ours(node.right)

    def _UnaryOp(self, node):
        return self.ours(node.operand)

    def _BoolOp(self, node):
        return all(self.ours(v) for v in node.values)

    def _Compare(self, node):
        return True  # True or False

    def _IfExp(self, node):
        return (self.ours(node.body) or _guarded(node)) and self.ours(node.orelse)

    def _List(self, node):
        return all(self.ours(e) for e in node.elts)

    _Tuple = _Set = _List

    def _Dict(self, node):
        return all(self.ours(v) for v in node.values)

    def _Starred(self, node):
        return self.ours(node.value)

    def _Subscript(self, node):
        return self._inside(node.value)

    def _inside(self, container: ast.expr) -> bool:
        """Whether a container is ours, for a lookup in it: a parameter's fields are the caller's data, never
        vouched for by the caller's words, so a parameter counts here only as its own value would."""
        needs, self.needs = self.needs, None
        try:
            return self.ours(container)
        finally:
            self.needs = needs

    def _Attribute(self, node):
        if node.attr.isupper() or node.attr in NUMERIC_FIELDS or node.attr in LITERAL_FIELDS:
            return True
        declared = CLASSES.get(self.scope.annotation(node.value.id) if isinstance(node.value, ast.Name) else "", {})
        if declared.get(node.attr) in ("number", "literal"):
            return True
        return self._inside(node.value)  # a field of our own words (STEP_COLORS[n].name, stop_switch(t).field)

    def _Name(self, node):
        if node.id.isupper() or node.id in ("True", "False", "None"):
            return True
        if node.id in self.seen:
            return True  # assigned from itself (x = x + ...): judged by its other assignments
        self.seen.add(node.id)
        try:
            values, parameter, numeric = self.scope.assignments(node.id)
            if numeric:
                return True
            if parameter and self.needs is not None and self.scope.functions:
                self.needs.add(node.id)  # ours when every caller passes words of ours: judged at the calls
                return True
            return not parameter and bool(values) and all(self.ours(v) for v in values)
        finally:
            self.seen.discard(node.id)

    def _Call(self, node):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in WORDS or name in RETURNS_NUMBERS or name == "len":
            return True
        if name == "map" and node.args and getattr(node.args[0], "id", "") in RETURNS_NUMBERS:
            return True
        if name == "get" and isinstance(node.func, ast.Attribute):  # a lookup: the value is the container's, not the key's
            return self.ours(node.func.value) and all(self.ours(a) for a in node.args[1:])
        if name in FORMATTERS:
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            arguments = [*node.args, *(k.value for k in node.keywords)]
            return (receiver is None or self.ours(receiver) or _is_module(receiver)) and all(self.ours(a) for a in arguments)
        return False

    def _GeneratorExp(self, node):
        return self._comprehension(node, [node.elt])

    _ListComp = _SetComp = _GeneratorExp

    def _DictComp(self, node):
        return self._comprehension(node, [node.value])

    def _comprehension(self, node, results) -> bool:
        inner = _Judge(self.file, _Scope(self.scope.module, [*self.scope.functions, node]), self.needs)
        inner.seen = self.seen
        return all(inner.ours(r) for r in results)


def _guarded(node: ast.IfExp) -> bool:
    """`x if x in WORDS else …`: x only when it is one of our constant words."""
    test = node.test
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
            and ast.unparse(test.left) == ast.unparse(node.body)
            and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id.isupper())


def _is_module(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("st", "str")


def _text_arguments(call: ast.Call, name: str) -> list[ast.expr]:
    """The arguments of a markup call that Streamlit renders as markdown."""
    found = [k.value for k in call.keywords if k.arg in MARKUP_KEYWORDS]
    if name in MARKUP_FIRST and call.args:
        found.append(call.args[0])
    if name in OPTIONS_RENDERED:
        shown = next((k.value for k in call.keywords if k.arg == "format_func"), None)
        if shown is None:  # the options themselves are the labels
            found.extend([*call.args[1:2], *(k.value for k in call.keywords if k.arg == "options")])
        elif isinstance(shown, ast.Lambda) and shown.args.args:  # the labels: the lambda's words for each option
            options = call.args[1] if len(call.args) > 1 else next(k.value for k in call.keywords if k.arg == "options")
            found.append(ast.ListComp(elt=shown.body, generators=[ast.comprehension(
                target=ast.Name(shown.args.args[0].arg, ast.Store()), iter=options, ifs=[], is_async=0)]))
        else:  # the labels are what format_func makes of the options
            found.append(shown)
    if name in WHOLE_LIST and call.args:
        found.append(call.args[0])
    return found


@dataclass(frozen=True)
class _Sink:
    """A function of ours that passes one of its parameters on to markup: its callers must give it our words."""

    function: str
    """Its name, as called (`title`, `frame`, `lead`)."""
    position: int
    """The parameter's position (-1 when it can only be given by keyword)."""
    parameter: str
    """The parameter's name."""
    via: str
    """Where it reaches markup, for the report."""


def _calls(modules: dict[str, ast.Module]):
    """Every call of the sources, with its file, module and enclosing functions."""
    for file, module in modules.items():
        def visit(node, functions):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                functions = [*functions, node]
            if isinstance(node, ast.Call):
                yield file, module, functions, node
            for child in ast.iter_child_nodes(node):
                yield from visit(child, functions)
        yield from visit(module, [])


def _callee(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _sinks_of(function: ast.AST, needs: set[str], via: str) -> list[_Sink]:
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    return [_Sink(getattr(function, "name", "<lambda>"), positional.index(name) if name in positional else -1, name, via)
            for name in needs]


def _given(call: ast.Call, sink: _Sink) -> ast.expr | None:
    """What a call passes for the sink's parameter, or None when it leaves the default."""
    if 0 <= sink.position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:sink.position + 1]):
        return call.args[sink.position]
    return next((k.value for k in call.keywords if k.arg == sink.parameter), None)


def violations(sources: dict[str, str]) -> list[Violation]:
    """Every argument of a markup call in the sources (file: text) that is not shown to be ours; a parameter
    passed on to markup is judged at every call of its function instead, as far up as it goes."""
    modules = {file: ast.parse(source) for file, source in sources.items()}
    found: list[Violation] = []
    sinks: list[_Sink] = []

    def judge(file, module, functions, call, argument, what) -> None:
        needs: set[str] = set()
        judged = _Judge(file, _Scope(module, functions), needs)
        innermost = functions[-1] if functions else None
        if judged.ours(argument) and (not needs or isinstance(innermost, (ast.FunctionDef, ast.AsyncFunctionDef))):
            if needs:
                sinks.extend(_sinks_of(innermost, needs, f"{file}:{argument.lineno} {what}"))
            return
        strict = _Judge(file, _Scope(module, functions))
        found.append(Violation(file, argument.lineno, what, ast.unparse(argument), strict.culprits(argument)))

    every_call = list(_calls(modules))
    for file, module, functions, call in every_call:
        name = _callee(call)
        if isinstance(call.func, ast.Attribute) and (name in MARKUP_FIRST or name in WHOLE_LIST) and \
                (call.args or call.keywords) and not _ours_module(module, call.func.value):
            for argument in _text_arguments(call, name):
                judge(file, module, functions, call, argument, name)
    checked: set[_Sink] = set()
    while pending := [sink for sink in sinks if sink not in checked]:
        for sink in pending:
            checked.add(sink)
            callers = [(file, module, functions, call) for file, module, functions, call in every_call
                       if _callee(call) == sink.function]
            if not callers:  # called some other way (a callback's args=): nothing shows what it is given
                file, line = sink.via.split(" ")[0].rsplit(":", 1)
                found.append(Violation(file, int(line), sink.via.split(" ", 1)[1], sink.parameter, ("no call found",)))
            for file, module, functions, call in callers:
                given = _given(call, sink)
                if given is not None:
                    judge(file, module, functions, call, given, f"{sink.function}, which passes {sink.parameter} to {sink.via}")
    return found


def _ours_module(module: ast.Module, receiver: ast.expr) -> bool:
    """Whether the call's receiver is one of our modules (plain, explorer): its functions are judged inside."""
    return isinstance(receiver, ast.Name) and any(
        isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lib")
        and any((alias.asname or alias.name) == receiver.id for alias in node.names) for node in module.body)


def _app_sources() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in SOURCES}


def test_every_markup_call_of_the_app_gets_only_our_own_words():
    assert [str(v) for v in violations(_app_sources())] == []


def test_every_vouch_is_still_needed():
    VOUCHES_USED.clear()
    violations(_app_sources())
    assert sorted(set(VOUCHED) - VOUCHES_USED) == []


# --- the audit catches what it must: violations put in on purpose ---------------------------------------


def _found(source: str) -> list[str]:
    return [f"{v.call}({v.expression})" for v in violations({"lib/ui/injected.py": source})]


INJECTED = {
    "a message's text as markdown": ("def card(round_):\n    st.markdown(round_.response.message.text)\n",
                                     ["markdown(round_.response.message.text)"]),
    "a tool name inside our sentence": ("def card(call):\n    st.caption(f'The model asks for {call.name}.')\n",
                                        ["caption(f'The model asks for {call.name}.')"]),
    "a trace's title as a tooltip": ("def button(trace):\n    st.button('Open', help=trace.title)\n",
                                     ["button(trace.title)"]),
    "a note appended to our words": ("def notes(trace):\n    words = ['Notes:']\n    words.append(trace.annotations[0].note)\n"
                                     "    st.info(' '.join(words))\n", ["info(' '.join(words))"]),
    "a helper of ours given a trace's words": ("def lead(sentence):\n    st.markdown(sentence)\n\n"
                                               "def slide(trace):\n    lead('Our words')\n    lead(trace.description)\n",
                                               ["lead, which passes sentence to lib/ui/injected.py:2 markdown(trace.description)"]),
    "radio options from a trace": ("def pick(trace):\n    st.radio('Tool', [t.name for t in trace.rounds[0].request.tools])\n",
                                   ["radio([t.name for t in trace.rounds[0].request.tools])"]),
    "an expander labeled with an argument": ("def args(call):\n    with st.expander(str(call.arguments)):\n        pass\n",
                                             ["expander(str(call.arguments))"]),
    "a column label from a trace": ("def table(trace):\n    st.column_config.TextColumn(trace.model)\n",
                                    ["TextColumn(trace.model)"]),
}


@pytest.mark.parametrize("case", INJECTED)
def test_a_trace_value_put_into_a_markup_call_is_found(case):
    source, expected = INJECTED[case]
    assert _found(source) == expected


def test_our_words_numbers_and_text_calls_pass():
    source = """
from lib.ui import plain

def overview(trace, count: int):
    st.caption(f"{plural(len(trace.rounds), 'round')}, {trace.rounds[0].response.usage.input_tokens:,} tokens in")
    st.markdown(f"**Round {count}**" if count else "**No round**")
    plain.text(trace.title)
    st.code(trace.rounds[0].response.message.text)
    st.radio("Round", range(1, count + 1), format_func=lambda k: f"Round {k}")
"""
    assert _found(source) == []


def test_a_violation_put_into_the_real_cards_module_is_found():
    sources = _app_sources()
    cards = sources["lib/ui/cards.py"]
    anchor = '    """One new or changed message of a request, with the step marks on its parts."""\n'
    assert anchor in cards
    sources["lib/ui/cards.py"] = cards.replace(anchor, anchor + "    st.caption(entry.message.text)\n")
    line = cards[:cards.index(anchor)].count("\n") + 2
    assert [str(v) for v in violations(sources)] == [
        f"lib/ui/cards.py:{line}: caption(entry.message.text): not ours: entry.message.text"]
