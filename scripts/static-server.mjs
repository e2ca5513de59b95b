// A static file server on 127.0.0.1: `make run` serves the playground with it, and the browser
// tests import it. `serve(dir, { routes, port })` answers the files under `dir` (and any `routes`
// given as path → HTML) and resolves to { url, close }. A file with a precompressed sibling
// (`x.wasm.br`, `x.wasm.gz`, written by scripts/compress.mjs) is sent compressed to a browser
// that accepts it: brotli first, then gzip, with its Content-Encoding and `Vary: Accept-Encoding`.
// A file whose name holds its content's hash (`style.3f9a0c12d4.css`, scripts/fingerprint.mjs) is
// sent `Cache-Control: public, max-age=31536000, immutable`: a browser keeps it and never asks
// again. Any other file (the HTML) is sent `no-cache` with an ETag (its content's hash) and its
// Last-Modified, and a request that names its ETag in If-None-Match is answered 304, empty.
// Run as a program: `node scripts/static-server.mjs DIR [PORT]`.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";

const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html; charset=utf-8", ".css": "text/css" };

/// The encodings a request accepts (`br`, `gzip`), by its Accept-Encoding (q=0 refuses one).
function accepted(header = "") {
  const ok = new Set();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (!q || Number(q.slice(2)) > 0) ok.add(name.trim().toLowerCase());
  }
  return ok;
}

export async function serve(dir, { routes = {}, index = "index.html", port = 0 } = {}) {
  const root = path.resolve(dir);
  const server = createServer((req, res) => {
    // Whatever a request holds, it gets an answer and the server goes on.
    answer(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400);
      res.end();
    });
  });
  async function answer(req, res) {
    const url = new URL(req.url, "http://127.0.0.1");
    if (routes[url.pathname] !== undefined) {
      res.writeHead(200, { "content-type": "text/html" }).end(routes[url.pathname]);
      return;
    }
    let name;
    try {
      name = decodeURIComponent(url.pathname);
    } catch {
      return res.writeHead(400).end();
    }
    const file = path.join(root, name === "/" ? index : path.normalize(name));
    if (!file.startsWith(root + path.sep)) return res.writeHead(403).end();
    const headers = { "content-type": types[path.extname(file)] ?? "application/octet-stream", vary: "Accept-Encoding" };
    const immutable = /\.[0-9a-f]{10}\.[a-z]+$/.test(file);
    headers["cache-control"] = immutable ? "public, max-age=31536000, immutable" : "no-cache";
    // The representation sent: the precompressed sibling the browser takes first, else the file.
    const ok = accepted(req.headers["accept-encoding"]);
    let body;
    let encoding = "";
    for (const [name, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
      if (!ok.has(name)) continue;
      try {
        body = await readFile(file + ext);
        encoding = name;
        break;
      } catch {
        // No precompressed sibling: the next encoding, or the file as it is.
      }
    }
    try {
      body ??= await readFile(file);
    } catch {
      return res.writeHead(404).end();
    }
    if (encoding) headers["content-encoding"] = encoding;
    if (!immutable) {
      // Each representation its own tag: the content's hash and its encoding.
      const hash = createHash("sha256").update(body).digest("hex").slice(0, 20);
      headers.etag = `"${hash}${encoding ? "-" + encoding : ""}"`;
      headers["last-modified"] = (await stat(file)).mtime.toUTCString();
      const asked = (req.headers["if-none-match"] ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
      if (asked.includes(headers.etag) || asked.includes("*")) return res.writeHead(304, headers).end();
    }
    res.writeHead(200, { ...headers, "content-length": body.length }).end(body);
  }
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, port = "8080"] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: node scripts/static-server.mjs DIR [PORT]");
    process.exit(2);
  }
  try {
    const { url } = await serve(dir, { port: Number(port) });
    console.log(`serving ${dir} on ${url} (brotli and gzip where the browser takes them)`);
  } catch (e) {
    console.error(`static-server: ${e.message}`);
    process.exit(1);
  }
}
