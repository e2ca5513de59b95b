// A static file server on 127.0.0.1 for the browser tests: `serve(dir, { routes })` answers the
// files under `dir` (and any `routes` given as path → HTML), and resolves to { url, close }.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";

const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html", ".css": "text/css" };

export async function serve(dir, { routes = {}, index = "index.html" } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (routes[url.pathname] !== undefined) {
      res.writeHead(200, { "content-type": "text/html" }).end(routes[url.pathname]);
      return;
    }
    const file = path.join(dir, url.pathname === "/" ? index : path.normalize(url.pathname));
    if (!file.startsWith(dir)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}
