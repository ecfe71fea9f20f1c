"""MLflow traces, as an engineer who traces an agent with MLflow reads them in the app."""

from tests.screen import round_shown, uploaded


def test_an_mlflow_trace_opens_through_the_sidebar_naming_its_format_and_rule(app):
    at = uploaded(app, "mlflow-databricks-agent-openai.json")
    sidebar = [t.value for t in at.sidebar.text]
    assert "1 document: 1 round in 1 conversation; 0 documents skipped" in sidebar
    assert "1 document read as mlflow: 'info' beside 'data.spans' (an MLflow trace)" in " ".join(sidebar)
    shown = round_shown(app, "mlflow-databricks-agent-openai.json", 1)
    assert "What is a good apple pie recipe to use on Thanksgiving" in shown
    assert "Absolutely! Here’s a classic, crowd-pleasing **Apple Pie Recipe**" in shown


def test_a_chat_models_round_says_its_instructions_and_tool_list_are_not_in_the_trace_never_0(app):
    # A pyfunc ChatModel's span holds the messages it was given, not the Bedrock agent's prompt or tools.
    shown = round_shown(app, "mlflow-bedrock-chat-model.json", 1)
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions 0" not in split and "tool definitions 0" not in split
    assert "instructions not in the log · tool definitions not in the log" in split
    assert "Whether a system prompt went with them is not in the trace" in shown
    assert "Read from an MLflow trace" not in shown and shown.count("Converted from an MLflow trace's span") == 1


def test_a_chat_models_rounds_table_has_no_token_count_where_mlflow_kept_only_nulls(app):
    at = uploaded(app, "mlflow-bedrock-chat-model.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}
    assert set(rounds["tokens are"]) == {"estimated"}  # MLflow kept a usage of nulls: counted by us, never 0


def test_the_tokens_page_does_not_say_a_chat_models_unkept_prompt_and_tools_were_sent_where_the_round_doubts_it(app):
    # The span holds the messages a ChatModel was given and the model called no tool: whether a system prompt or a
    # tool list went with them is not in the trace, as the round says; the Tokens page said "they were sent and billed".
    from lib.summary import TOOL_LIST_NOT_LOGGED
    shown = round_shown(app, "mlflow-bedrock-chat-model.json", 1)
    assert TOOL_LIST_NOT_LOGGED in shown
    at = uploaded(app, "mlflow-bedrock-chat-model.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.main.caption)
    assert "keeps neither the instructions nor the tool list: whether they were sent is not in it" in captions
    assert "were sent and billed" not in captions and "an agent's session log" not in captions
