// anywidget entry point: the widget syncs "payload" (the capture) and "selected" with Python and
// asks Python for a kernel's tokens, stages and repro when one is selected, and for a graph's HIP reading.
import { renderCapture } from "./panel.js";

export function render({ model, el }) {
  const live = new Map(), graphs = new Map();
  const host = {
    kernelData: (key) => live.get(key),
    requestKernel: (key) => model.send({ type: "kernel", key }),
    graphData: (key) => graphs.get(key),
    requestGraph: (key) => model.send({ type: "graph", key }),
    select: (key) => { model.set("selected", key); model.save_changes(); },
    bench: () => model.send({ type: "bench" }),
    canBench: true,
  };
  const view = renderCapture(el, model.get("payload"), host);
  const onMsg = (msg) => {
    if (msg && msg.type === "kernel") { live.set(msg.key, msg); view.redrawDetail(); }
    if (msg && msg.type === "graph") { graphs.set(msg.key, msg); view.redrawDetail(); }
  };
  const onPayload = () => view.update(model.get("payload"));
  const onSelected = () => { const key = model.get("selected"); if (key) view.select(key); };
  model.on("msg:custom", onMsg);
  model.on("change:payload", onPayload);
  model.on("change:selected", onSelected);
  if (model.get("selected")) view.select(model.get("selected"));
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:payload", onPayload);
    model.off("change:selected", onSelected);
  };
}
