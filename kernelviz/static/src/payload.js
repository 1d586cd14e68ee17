// The form a notebook saves (kernelviz/views/payload.py, `saved`): the panel's JSON, gzip-compressed and
// base64-encoded, with each kernel's source stored as the [start, end] span of its graph's code that it is.
// Decoding gives plain data (JSON.parse and string slices): nothing in it is ever run or made HTML.

const ENCODING = "gzip+base64";

function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The panel's data from a saved output: the saved form decoded; any other data as it is. */
export async function decodePayload(data) {
  if (!data || data.encoding === undefined) return data;
  if (data.encoding !== ENCODING) throw new Error(`kernelviz: this panel cannot read data encoded as ${String(data.encoding)}`);
  const stream = new Blob([base64Bytes(data.data)]).stream().pipeThrough(new DecompressionStream("gzip"));
  const cap = JSON.parse(await new Response(stream).text());
  for (const graph of cap.graphs || []) {
    for (const kernel of graph.kernels || []) {
      if (Array.isArray(kernel.source)) kernel.source = graph.code.slice(kernel.source[0], kernel.source[1]);
    }
  }
  return cap;
}
