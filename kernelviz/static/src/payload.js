// The form a notebook saves (kernelviz/views/payload.py, `saved`): one xz stream, base85-encoded, of the panel's
// JSON on its first line and then the raw bytes of the recorded values (each stored once). In the JSON each
// kernel's source is the [start, end] span of its graph's code that it is, a recorded value of the model is
// {"bytes": [start, end]} of the bytes after the line (the panel shows none of them), and a kernel's repro script
// is a list of text and [start, end] spans whose base64 it holds there. Outputs saved before are xz in base64, or
// gzip (no bytes).
// Decoding gives plain data (JSON.parse and string slices): nothing in it is ever run or made HTML.
import { XzReadableStream } from "xz-decompress";

const XZ = "xz+base85", XZ64 = "xz+base64", GZIP = "gzip+base64";
// Python's base64.b85encode alphabet (RFC 1924): 4 bytes as 5 characters, big-endian. An xz stream's length is a
// multiple of 4 bytes, so the saved text is whole groups of 5.
const B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
const B85_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B85.length; i++) B85_VALUE[B85.charCodeAt(i)] = i;

function base85Bytes(text) {
  if (typeof text !== "string") throw new Error("kernelviz: the saved data is not text");
  if (text.length % 5) throw new Error(`kernelviz: the saved data is cut (${text.length} characters of base85)`);
  const out = new Uint8Array((text.length / 5) * 4);
  const view = new DataView(out.buffer);
  for (let at = 0; at < text.length; at += 5) {
    let word = 0;
    for (let i = at; i < at + 5; i++) {
      const code = text.charCodeAt(i);
      const value = code < 128 ? B85_VALUE[code] : -1;
      if (value < 0) throw new Error(`kernelviz: the saved data is not base85 (character ${i})`);
      word = word * 85 + value;
    }
    if (word > 0xffffffff) throw new Error(`kernelviz: the saved data is not base85 (characters ${at} to ${at + 4})`);
    view.setUint32((at / 5) * 4, word);
  }
  return out;
}

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
  if (data.encoding === XZ || data.encoding === XZ64) {
    [cap, tail] = await xzDecoded(data.encoding === XZ ? base85Bytes(data.data) : base64Bytes(data.data));
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
