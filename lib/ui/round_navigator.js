// The round navigator: every round of a long trace held in the page, its list virtualised, the chosen round
// readable at once; Python hears the choice once the keys rest and the round's cards below follow.
// Trace text is untrusted: it reaches the page only through textContent, never as markup.

const ROW_PX = 28;
const VISIBLE_ROWS = 12;
const OVERSCAN_ROWS = 8;
const SETTLE_MS = 250; // held arrow keys move the list at once, and ask Python for one round, not one per key
const PAGE_ROWS = 10;
const RESEND_MS = 5000; // a choice Python has not drawn by then is told again: a reconnect can lose the message
const RESENDS = 3;

const held = new Map(); // trace digest -> condensed rounds, kept for the page's life: reruns send only the round
const views = new WeakMap(); // the component's root -> its navigator

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

function responseWords(round, messages) {
  if (round.error !== undefined) return "error";
  if (round.response === undefined) return "no response";
  const parts = messages[round.response][1];
  const calls = parts.filter((part) => part[0] === "call").length;
  if (calls) return calls === 1 ? "1 tool call" : `${calls} tool calls`;
  return "answers";
}

function rowText(round, index, messages) {
  const news = round.new.length + round.changed.length;
  return `Round ${index + 1} · ${news} new · ${responseWords(round, messages)}`;
}

function partBlock(part) {
  const [kind, label, text] = part;
  const block = element("div", `part part-${kind}`);
  if (label) block.append(element("div", "label", label));
  if (text) block.append(element("pre", "text", text));
  return block;
}

function messageBlock(message, status, empty) {
  const [role, parts] = message;
  const block = element("div", "message");
  block.append(element("div", "role", status ? `${role} · ${status}` : role));
  if (!parts.length) block.append(element("div", "label", empty ?? "(no content)"));
  for (const part of parts) block.append(partBlock(part));
  return block;
}

function section(title) {
  const block = element("section", "side");
  block.append(element("h4", "", title));
  return block;
}

function detail(round, index, messages) {
  const number = index + 1;
  const shown = element("div", "round");
  shown.append(element("h3", "heading", round.heading));
  const request = section(`Request ${number}: what is new, program → model`);
  for (const id of round.new) request.append(messageBlock(messages[id], "new"));
  for (const id of round.changed) request.append(messageBlock(messages[id], "changed"));
  if (!round.new.length && !round.changed.length) {
    request.append(element("div", "label", "Nothing new: every message is resent."));
  }
  const response = section(`Response ${number}: model → program`);
  // A turn the log did not capture says so (round.response_empty), not that the model wrote nothing.
  if (round.response !== undefined) {
    response.append(messageBlock(messages[round.response], undefined, round.response_empty));
  }
  else response.append(element("pre", "text", round.error ?? "No response in the log."));
  const lane = section(`The program's lane, after response ${number}: tool results`);
  for (const [name, id, ok, output] of round.results) {
    const block = element("div", "message");
    block.append(element("div", "role", `tool result of ${name} · id ${id}${ok ? "" : " · failed"}`));
    block.append(element("pre", "text", output));
    lane.append(block);
  }
  if (!round.results.length) lane.append(element("div", "label", "No tool ran."));
  shown.append(request, response, lane);
  return shown;
}

function build(root, trace) {
  const { rounds, messages } = trace;
  const frame = element("div", "navigator");
  frame.setAttribute("role", "region");
  frame.setAttribute("aria-label", "Round navigator");
  const help = element("div", "help", `${rounds.length.toLocaleString("en")} rounds, held in the page. In the list: ` +
    "↑ ↓ one round, Page Up / Page Down ten, Home / End the first and the last. The cards below follow.");
  const list = element("div", "list");
  list.tabIndex = 0;
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Rounds");
  list.style.height = `${VISIBLE_ROWS * ROW_PX}px`;
  const spacer = element("div", "spacer");
  spacer.style.height = `${rounds.length * ROW_PX}px`;
  list.append(spacer);
  const shown = element("div", "detail");
  shown.setAttribute("aria-live", "polite");
  const body = element("div", "body");
  body.append(list, shown);
  frame.append(help, body);
  // Streamlit puts the component's stylesheet in the root too: replace only the navigator's own frame.
  for (const child of [...root.children]) if (child.classList.contains("navigator")) child.remove();
  root.append(frame);

  // told: the round Python last drew; sent: the last round this list told it; asked: the rounds told and not yet drawn.
  const view = { trace, selected: 0, told: null, sent: null, asked: [], timer: null, resend: null, tell: null };

  function drawRows() {
    const first = Math.max(0, Math.floor(list.scrollTop / ROW_PX) - OVERSCAN_ROWS);
    const last = Math.min(rounds.length, first + VISIBLE_ROWS + 2 * OVERSCAN_ROWS);
    const rows = [];
    for (let index = first; index < last; index++) {
      const selected = index === view.selected;
      const row = element("div", selected ? "row selected" : "row", rowText(rounds[index], index, messages));
      row.id = `round-${index + 1}`;
      row.setAttribute("role", "option");
      row.setAttribute("aria-selected", String(selected));
      row.style.top = `${index * ROW_PX}px`;
      row.addEventListener("click", () => view.select(index, true));
      rows.push(row);
    }
    spacer.replaceChildren(...rows);
    list.setAttribute("aria-activedescendant", `round-${view.selected + 1}`);
  }

  view.select = (index, chosenHere) => {
    view.selected = Math.min(Math.max(index, 0), rounds.length - 1);
    const top = view.selected * ROW_PX;
    if (!chosenHere) list.scrollTop = top - (list.clientHeight - ROW_PX) / 2; // a round from elsewhere: centred
    else if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW_PX > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + ROW_PX - list.clientHeight;
    }
    drawRows();
    shown.replaceChildren(detail(rounds[view.selected], view.selected, messages));
    if (!chosenHere) return;
    clearTimeout(view.timer);
    clearTimeout(view.resend);
    view.timer = setTimeout(() => {
      view.timer = null;
      view.sent = view.selected + 1;
      view.asked.push(view.sent);
      view.tell(view.sent);
      view.resend = setTimeout(() => resend(RESENDS), RESEND_MS);
    }, SETTLE_MS);
  };

  // Until Python draws the round told (follow() hears it back), tell it again, a few times at most.
  function resend(left) {
    if (view.sent === null || left === 0) return;
    view.tell(view.sent);
    view.resend = setTimeout(() => resend(left - 1), RESEND_MS);
  }

  // Python's round moved (its own buttons, a deep link): follow it, unless it is one of this list's own choices
  // coming back (a busy server draws an earlier one after the keys have moved on) or the keys have moved on since.
  view.follow = (round) => {
    const moved = round !== view.told;
    view.told = round;
    const own = view.asked.indexOf(round);
    if (own >= 0) {
      view.asked.splice(0, own + 1); // Python draws choices in the order told: the ones before it are passed
      if (!view.asked.length) {
        clearTimeout(view.resend);
        view.sent = null;
      }
      return;
    }
    if (!moved) return;
    clearTimeout(view.resend); // Python moved on by itself: what the list told is overtaken
    view.sent = null;
    view.asked = [];
    if (view.timer === null && round !== view.selected + 1) view.select(round - 1, false);
  };

  const keys = { ArrowDown: 1, ArrowUp: -1, PageDown: PAGE_ROWS, PageUp: -PAGE_ROWS };
  list.addEventListener("keydown", (event) => {
    let target = null;
    if (event.key in keys) target = view.selected + keys[event.key];
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = rounds.length - 1;
    if (target === null) return;
    event.preventDefault();
    view.select(target, true);
  });
  list.addEventListener("scroll", drawRows, { passive: true });
  return view;
}

const decoder = new TextDecoder();

// The condensed rounds come gzip-compressed (a tenth of the bytes the page's main thread must take off the websocket);
// the browser's own decompressor reads them off the main thread.
async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

// Python sends bytes: a line of JSON with the trace and the round on screen, then, on a session's first run, the
// condensed rounds compressed (JSON escapes the newlines inside strings, so the first newline ends the first line).
function unpack(data) {
  const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  const cut = bytes.indexOf(10);
  if (cut < 0) return [JSON.parse(decoder.decode(bytes)), null];
  return [JSON.parse(decoder.decode(bytes.subarray(0, cut))), inflate(bytes.slice(cut + 1))];
}

function show(component, data, trace) {
  const { parentElement, setTriggerValue } = component;
  let view = views.get(parentElement);
  if (!view || view.trace !== trace) {
    view = build(parentElement, trace);
    views.set(parentElement, view);
    view.select(data.round - 1, false);
  }
  view.tell = (round) => setTriggerValue("chosen", round);
  view.follow(data.round);
}

export default function (component) {
  const [data, condensed] = unpack(component.data);
  if (condensed) held.set(data.trace, condensed);
  const trace = held.get(data.trace); // the rounds, or the promise of them while they are still being read
  if (!trace) {
    // This page never got the rounds (a reconnect): Python sends them again.
    component.setTriggerValue("missing", data.trace);
    return;
  }
  // Runs after any earlier call's: a round chosen while the rounds were still being read is followed in order.
  Promise.resolve(trace).then((rounds) => show(component, data, rounds), () => unreadable(component.parentElement));
}

// A browser without DecompressionStream (before Chrome 80, Firefox 113, Safari 16.4) cannot open the rounds.
function unreadable(parent) {
  parent.replaceChildren(element("div", "help", "This browser cannot read the round list (it lacks " +
    "DecompressionStream). The round field above still moves between rounds."));
}
