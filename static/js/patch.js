// Applying a JSON Patch (RFC 6902): a `move` or `takeback` event of the game socket says what the
// state became as a patch of the state the page holds (docs/api.md, WebSocket).

/** The tokens of a JSON Pointer (RFC 6901). */
function tokens(path) {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`bad pointer ${path}`);
  return path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The array index a token names (`-` is the end); `max` is the highest allowed. */
function index(token, max) {
  const i = token === "-" ? max : Number(token);
  if (!/^(0|[1-9][0-9]*|-)$/.test(token) || i > max) throw new Error(`bad index ${token}`);
  return i;
}

/**
 * `doc` with the operations `ops` applied, as a new value: `doc` itself is left as it was (the
 * page keeps earlier states to step back through). Throws on an operation that does not apply.
 * @param {any} doc
 * @param {{op: string, path: string, value?: any}[]} ops
 */
export function applyPatch(doc, ops) {
  let root = structuredClone(doc);
  for (const { op, path, value } of ops) {
    const keys = tokens(path);
    if (keys.length === 0) {
      if (op !== "replace" && op !== "add") throw new Error(`cannot ${op} the whole document`);
      root = structuredClone(value);
      continue;
    }
    const last = keys.pop();
    let parent = root;
    for (const k of keys) {
      parent = Array.isArray(parent) ? parent[index(k, parent.length - 1)] : parent?.[k];
      if (parent === null || typeof parent !== "object") throw new Error(`no such path ${path}`);
    }
    if (Array.isArray(parent)) {
      if (op === "add") parent.splice(index(last, parent.length), 0, value);
      else if (op === "remove") parent.splice(index(last, parent.length - 1), 1);
      else if (op === "replace") parent[index(last, parent.length - 1)] = value;
      else throw new Error(`unknown operation ${op}`);
    } else if (op === "add" || op === "replace") {
      if (op === "replace" && !(last in parent)) throw new Error(`no such path ${path}`);
      parent[last] = value;
    } else if (op === "remove") {
      if (!(last in parent)) throw new Error(`no such path ${path}`);
      delete parent[last];
    } else {
      throw new Error(`unknown operation ${op}`);
    }
  }
  return root;
}
