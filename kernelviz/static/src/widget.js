// The widget's side of the panel (static/loader.js, the anywidget _esm, calls this render): the widget syncs
// "payload" (the capture, packed as a notebook saves it), "selected" and "progress" (while Python times the capture)
// with Python, and asks Python for a kernel's tokens, stages and repro when one is selected, and for a graph's HIP
// reading. The panel is live (its Time kernels and Measure counters buttons show) once the kernel has answered a
// "hello": a widget drawn from a notebook's saved widget state, with no kernel behind it, never is.
import { decodePayload } from "./payload.js";
import { renderCapture } from "./panel.js";

const NOTE = "No kernel: to time this capture, run it again with %%kernelviz --bench, or cap.bench().";

export async function render({ model, el }) {
  const live = new Map(), graphs = new Map();
  const host = {
    kernelData: (key) => live.get(key),
    requestKernel: (key) => model.send({ type: "kernel", key }),
    graphData: (key) => graphs.get(key),
    requestGraph: (key) => model.send({ type: "graph", key }),
    select: (key) => { model.set("selected", key); model.save_changes(); },
    bench: () => model.send({ type: "bench" }),
    counters: () => model.send({ type: "counters" }),
    note: NOTE,
  };
  const view = renderCapture(el, await decodePayload(model.get("payload")), host);
  const onMsg = (msg) => {
    if (!msg) return;
    if (msg.type === "kernel") { live.set(msg.key, msg); view.redrawDetail(); }
    if (msg.type === "graph") { graphs.set(msg.key, msg); view.redrawDetail(); }
    if (msg.type === "hello") view.setLive(true);
    if (msg.type === "note") view.setNote(String(msg.text || ""));
  };
  let updates = 0; // a payload decoded after a newer one arrived is dropped
  const onPayload = async () => {
    const n = ++updates, data = await decodePayload(model.get("payload"));
    if (n === updates) view.update(data);
  };
  const onSelected = () => { const key = model.get("selected"); if (key) view.select(key); };
  const onProgress = () => view.setProgress(model.get("progress"));
  model.on("msg:custom", onMsg);
  model.on("change:payload", onPayload);
  model.on("change:selected", onSelected);
  model.on("change:progress", onProgress);
  if (model.get("selected")) view.select(model.get("selected"));
  onProgress();
  model.send({ type: "hello" });
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:payload", onPayload);
    model.off("change:selected", onSelected);
    model.off("change:progress", onProgress);
  };
}
