"""The Workshop plan page's parts: open a plan (bundled or a file), reorder and extend it, save it as a file,
share it as a link, and present it.

lib/workshop_plan.py reads, writes and edits plans; this asks and shows. The plan being edited lives in
the session (`plan.draft`) apart from the one being presented (lib/ui/slides.py), so editing never moves
a slide from under a presenter.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib import workshop_plan
from lib.presenter import steps_in
from lib.text import plural
from lib.catalog import LoadedTrace
from lib.ui import navigation, picker, plain, predict, slides, state, upload_limit
from lib.workshop_plan import VIEWS, Plan, ReadPlan, Slide

DRAFT = "plan.draft"
"""Session key: the plan being edited."""
SELECTED = "plan.selected"
"""Session key: the 0-based slide the move, remove and add buttons act at."""
ADJUSTED = "plan.add.adjusted"
"""Session key: what the last slide added took instead of what was asked (a round past the trace's end), said once."""
TRACES_LISTED = ("The Trace box lists the traces in traces/ (the bundled ones, and live runs an editor saved there "
                 "from the Live run page), which every link and plan file opens, and, after them, the traces open "
                 "in this browser tab only: live runs that ended here and logs uploaded here, named this-tab.…")
"""Under the add form: which traces a slide can show, and which travel with a link."""
TAB_LISTED = ("A this-tab trace is held in this tab's memory, not written to any file: Present shows it here, but a "
              "link or a plan file opened elsewhere cannot.")
"""Under the add form while the Trace box lists a trace of this tab's."""
PLAN_FILE_MB = -(-upload_limit.VIEWER_BYTES // 2**20)
"""The plan file uploader's limit in Streamlit's megabytes (MiB): a plan file of FILE_LIMIT characters fits."""
FIRST_PLAN = "hengxin-workshop"
"""The bundled plan the page opens with."""
HELD_NAMES = ("In predict mode a slide of a trace still to predict is named by the trace's neutral name, not by its "
              "id or the trace's file name, which may tell what happens.")
"""Under the slides table while some slide's trace is named so (held)."""


def draft() -> Plan:
    """The plan being edited: the one last opened, or the bundled Hengxin workshop."""
    if DRAFT not in st.session_state:
        read = workshop_plan.unpack(FIRST_PLAN, slides.trace_rounds())
        st.session_state[DRAFT] = read.plan
    return st.session_state[DRAFT]


def _open(read: ReadPlan) -> None:
    if slides.keep_problems(read):
        st.session_state[DRAFT] = read.plan
        st.session_state[SELECTED] = 0
        st.session_state.pop("plan.title", None)  # the title box shows the new plan's


def _open_bundled() -> None:
    _open(workshop_plan.unpack(st.session_state["plan.bundled"], slides.trace_rounds()))


def _open_file() -> None:
    found = st.session_state.get("plan.upload")
    if found is not None:
        text = found.getvalue().decode("utf-8", errors="replace")
        _open(workshop_plan.read_plan(text, slides.trace_rounds()))


def opener() -> None:
    """Open a bundled plan, or a plan file from this computer."""
    left, right = st.columns(2, vertical_alignment="bottom")
    with left:
        st.selectbox("A bundled plan", list(workshop_plan.bundled_plans()), key="plan.bundled")
        st.button("Open it", key="plan.open_bundled", on_click=_open_bundled)
    # The size it says is the one kept to (Streamlit's default read "200MB per file"): a plan file is read up to
    # FILE_LIMIT characters, and a viewer's session keeps at most upload_limit.VIEWER_BYTES.
    right.file_uploader("Or a plan file (.json)", type=["json"], key="plan.upload", on_change=_open_file,
                        max_upload_size=PLAN_FILE_MB,
                        help="A plan saved from this page; docs/workshop-plan.md describes the format.")
    slides.problems()


def held() -> dict[str, str]:
    """The bundled traces a list names by their neutral name now (predict.titles), each with it: in predict mode,
    those whose title would tell what happens, until each of their rounds is predicted. Their file names would too,
    and so would the ids of their slides (workshop_plan.slide_id)."""
    titles = predict.titles(predict.predicting())
    return {t.name: titles[t.name] for t in state.bundled() if titles[t.name] != t.title}


def slide_table(plan: Plan) -> None:
    """The slides in order, each with the view's name in a teacher's words and the rounds it covers; in predict mode a
    slide of a trace still to predict without its id, and its trace by its neutral name (held)."""
    names, rounds = held(), slides.trace_rounds()
    st.dataframe(pd.DataFrame([{"#": n, "id": None if s.trace in names else s.id, "trace": names.get(s.trace, s.trace),
                                "view": VIEWS[s.view],
                                "round": workshop_plan.rounds_words(s, rounds[s.trace], s.trace in names),
                                "step": s.step if s.view == "step" else None}
                               for n, s in enumerate(plan.slides, start=1)]),
                 hide_index=True, width="stretch", key="plan.table", placeholder="–")
    if any(s.trace in names for s in plan.slides):
        st.caption(HELD_NAMES)


def _slide_words(slide: Slide, names: dict[str, str]) -> str:
    """A slide as the Slide box names it: its id, or, for a trace named by its neutral name, that name and the view."""
    return f"{names[slide.trace]} · {VIEWS[slide.view]}" if slide.trace in names else slide.id


def _edit(change) -> None:
    st.session_state[DRAFT] = change(st.session_state[DRAFT])


def _move(delta: int) -> None:
    index = st.session_state[SELECTED]
    _edit(lambda plan: workshop_plan.moved(plan, index, delta))
    st.session_state[SELECTED] = min(max(index + delta, 0), len(st.session_state[DRAFT].slides) - 1)


def _remove() -> None:
    index = st.session_state[SELECTED]
    _edit(lambda plan: workshop_plan.removed(plan, index))
    st.session_state[SELECTED] = min(index, max(len(st.session_state[DRAFT].slides) - 1, 0))


def _add() -> None:
    get = st.session_state.get
    index = min(get(SELECTED, -1) + 1, len(st.session_state[DRAFT].slides))
    trace, view = get("plan.add.trace"), get("plan.add.view")
    if trace not in slides.trace_rounds():  # a trace of this tab's, let go since the form was drawn
        return
    loaded = slides.load(trace)
    asked, count = int(get("plan.add.round") or 1), len(loaded.trace.rounds)
    round_ = min(asked, count)
    if round_ != asked:
        st.session_state[ADJUSTED] = (f"That trace has {plural(count, 'round')}, not {asked:,}: the slide shows round "
                                      f"{round_:,}, its last.")
    steps = steps_in(loaded.trace.rounds[round_ - 1], loaded.trace)
    step = next((s for s in steps if s >= int(get("plan.add.step") or 1)), steps[-1])
    _edit(lambda plan: workshop_plan.inserted(plan, index, trace, view, round_, step))
    st.session_state[SELECTED] = index


def _retitle() -> None:
    title = (st.session_state.get("plan.title") or "").strip()
    if title:
        _edit(lambda plan: Plan(title, plan.slides))


def editor(plan: Plan) -> None:
    """Reorder, remove and add slides, and rename the plan."""
    st.text_input("Title", value=plan.title, key="plan.title", on_change=_retitle)
    if adjusted := st.session_state.pop(ADJUSTED, None):
        st.info(adjusted)  # our words and numbers only
    count, names = len(plan.slides), held()
    if count:
        st.session_state[SELECTED] = min(st.session_state.get(SELECTED, 0), count - 1)
        pick, up, down, remove = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
        pick.selectbox("Slide", range(count), key=SELECTED,
                       format_func=lambda n: f"{n + 1}. {_slide_words(plan.slides[n], names)}")
        up.button("Move up", key="plan.up", on_click=_move, args=(-1,), disabled=st.session_state[SELECTED] == 0,
                  width="stretch")
        down.button("Move down", key="plan.down", on_click=_move, args=(1,),
                    disabled=st.session_state[SELECTED] == count - 1, width="stretch")
        remove.button("Remove", key="plan.remove", on_click=_remove, width="stretch")
    with st.form("plan.add"):
        st.markdown("**Add a slide after the one chosen**")
        trace, view, round_, step = st.columns([3, 2, 1, 1])
        tab = slides.tab_traces()
        trace.selectbox("Trace", [*(t.name for t in state.bundled()), *tab], key="plan.add.trace",
                        format_func=plain.options(lambda name: names.get(name, name)))
        view.selectbox("View", list(VIEWS), format_func=VIEWS.get, key="plan.add.view")
        round_.number_input("Round", min_value=1, step=1, value=1, key="plan.add.round")
        step.number_input("Step", min_value=1, max_value=5, step=1, value=1, key="plan.add.step",
                          help="For a step slide: the nearest step the round has is taken.")
        st.form_submit_button("Add the slide", key="plan.add.submit", on_click=_add)
    st.caption(TRACES_LISTED)
    if tab:
        st.caption(TAB_LISTED)


def offer_open(loaded: LoadedTrace) -> None:
    """Offer the sidebar's trace to this tab's plans when it is an upload or a run opened from another page (not in
    traces/): the Trace box then lists it, under its this-tab name."""
    files = st.session_state.get(picker.FILES)
    if files and loaded.trace.rounds:
        index = st.session_state.get(picker.CONVERSATION) or 0  # a later conversation of the same file is named apart
        slides.offer(loaded, picker.files_name(files) + (f"-conversation-{index + 1}" if index else ""))


def sharing(plan: Plan) -> None:
    """Save the plan as a file, copy it as a link, or present it now."""
    if not plan.slides:
        st.info("Add a slide to save, share or present the plan.")
        return
    here = sorted({s.trace for s in plan.slides if s.trace.startswith(workshop_plan.THIS_TAB)})
    if here:
        count = sum(s.trace in here for s in plan.slides)
        them = "it" if count == 1 else "them"
        st.warning(f"{plural(count, 'slide')} of this plan {'shows' if count == 1 else 'show'} "
                   f"{'a trace' if len(here) == 1 else f'{len(here)} traces'} open only in this browser tab, named "
                   f"below: Present shows {them} here, but the link and the file cannot carry {them}, and opened "
                   "anywhere else they say the trace is not there. To hand the plan to learners, save a live run into "
                   "traces/ on the Live run page and add its slides from there.")
        plain.text(", ".join(here))
    st.download_button("Download the plan as a file", workshop_plan.dump_plan(plan).encode(), key="plan.download",
                       file_name="workshop-plan.json", mime="application/json")
    st.markdown("**The plan as a link**: add it to this app's address; it opens presenter mode on the first slide.")
    bundled = next((name for name, path in workshop_plan.bundled_plans().items()
                    if workshop_plan.read_plan(path.read_text(encoding="utf-8"), slides.trace_rounds()).plan == plan),
                   None)
    st.code(f"/?plan={bundled or workshop_plan.pack(plan)}", language=None, wrap_lines=True)
    if st.button("Present this plan", key="plan.present", type="primary"):
        # Back to the slide the teacher left to edit the plan, where the plan still holds it, and said so.
        index, said = workshop_plan.resume(plan, slides.left_slide())
        slides.open_plan(ReadPlan(plan, ()), bundled, index)
        st.session_state[slides.RESUMED] = said
        st.session_state[state.PRESENTER] = True
        st.switch_page(navigation.EXPLORER)
