// The form a notebook saves (kernelviz/views/payload.py, `saved`): one xz stream, base64-encoded, of the panel's
// JSON on its first line and then the raw bytes of the recorded values (each stored once). In the JSON each
// kernel's source is the [start, end] span of its graph's code that it is, a recorded value of the model is
// {"bytes": [start, end]} of the bytes after the line (the panel shows none of them), and a kernel's repro script
// is a list of text and [start, end] spans whose base64 it holds there. Outputs saved before are gzip, no bytes.
// Decoding gives plain data (JSON.parse and string slices): nothing in it is ever run or made HTML.
import { XzReadableStream } from "xz-decompress";

const XZ = "xz+base64", GZIP = "gzip+base64";

function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function xzDecoded(bytes) {
  const whole = new Uint8Array(await new Response(new XzReadableStream(new Blob([bytes]).stream())).arrayBuffer());
  const end = whole.indexOf(10);
  const line = end < 0 ? whole : whole.subarray(0, end);
  return [JSON.parse(new TextDecoder().decode(line)), end < 0 ? new Uint8Array() : whole.subarray(end + 1)];
}

function isSpan(part, size) {
  return Array.isArray(part) && part.length === 2 && Number.isInteger(part[0]) && Number.isInteger(part[1])
    && 0 <= part[0] && part[0] <= part[1] && part[1] <= size;
}

/** The panel's data from a saved output: the saved form decoded; any other data as it is. */
export async function decodePayload(data) {
  if (!data || data.encoding === undefined) return data;
  let cap, tail = new Uint8Array();
  if (data.encoding === XZ) {
    [cap, tail] = await xzDecoded(base64Bytes(data.data));
  } else if (data.encoding === GZIP) {
    const stream = new Blob([base64Bytes(data.data)]).stream().pipeThrough(new DecompressionStream("gzip"));
    cap = JSON.parse(await new Response(stream).text());
  } else {
    throw new Error(`kernelviz: this panel cannot read data encoded as ${String(data.encoding)}`);
  }
  for (const graph of cap.graphs || []) {
    for (const kernel of graph.kernels || []) {
      if (Array.isArray(kernel.source)) kernel.source = graph.code.slice(kernel.source[0], kernel.source[1]);
    }
  }
  for (const extras of Object.values((cap.view && cap.view.deep) || {})) {
    const repro = extras && extras.repro;
    if (repro && Array.isArray(repro.script)) {
      repro.script = repro.script.map((part) => typeof part === "string" ? part
        : isSpan(part, tail.length) ? bytesBase64(tail.subarray(part[0], part[1])) : "").join("");
    }
  }
  return cap;
}
