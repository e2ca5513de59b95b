// A static file server on 127.0.0.1: `make run` serves the playground with it, and the browser
// tests import it. `serve(dir, { routes, port })` answers the files under `dir` (and any `routes`
// given as path → HTML) and resolves to { url, close }. A file with a precompressed sibling
// (`x.wasm.br`, `x.wasm.gz`, written by scripts/compress.mjs) is sent compressed to a browser
// that accepts it: brotli first, then gzip, with its Content-Encoding and `Vary: Accept-Encoding`.
// Run as a program: `node scripts/static-server.mjs DIR [PORT]`.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
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
  const server = createServer(async (req, res) => {
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
    const headers = { "content-type": types[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-cache", vary: "Accept-Encoding" };
    const ok = accepted(req.headers["accept-encoding"]);
    for (const [encoding, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
      if (!ok.has(encoding)) continue;
      try {
        const body = await readFile(file + ext);
        res.writeHead(200, { ...headers, "content-encoding": encoding, "content-length": body.length }).end(body);
        return;
      } catch {
        // No precompressed sibling: the next encoding, or the file as it is.
      }
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, "content-length": body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
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
