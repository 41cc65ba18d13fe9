// The deal check's arithmetic: canonical JSON exactly as the server writes it (Python's
// json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)) and its SHA-256 in hex.

// Python sorts dict keys by code point; JavaScript's default sort compares UTF-16 units, which differs
// for characters beyond the BMP. Compare code points.
function byCodePoint(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const SHORT_ESCAPES = { 0x22: '\\"', 0x5c: "\\\\", 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t" };

// ensure_ascii: everything outside space..tilde is escaped, per UTF-16 unit, as \uXXXX in lower-case hex
// (so an emoji becomes its surrogate pair, as in Python).
function quote(text) {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit in SHORT_ESCAPES) out += SHORT_ESCAPES[unit];
    else if (unit < 0x20 || unit > 0x7e) out += "\\u" + unit.toString(16).padStart(4, "0");
    else out += text[i];
  }
  return out + '"';
}

// Python's repr of a float: the shortest digits that read back the same (as JavaScript's), written in
// positional form for exponents -4..15 (always with a fractional part) and as d.ddde±XX otherwise.
// A number that is a whole number is written as an integer: JSON.parse cannot tell 3.0 from 3, and deals
// hold only whole numbers.
function number(value) {
  if (!Number.isFinite(value)) throw new Error("canonical JSON has no NaN or Infinity");
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 53) return String(value);
  const [mantissa, exp] = value.toExponential().split("e");
  const e = Number(exp);
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = value < 0 ? "-" : "";
  if (e >= -4 && e < 16) {
    let whole;
    let fraction;
    if (e >= 0) {
      const padded = digits.padEnd(e + 1, "0");
      whole = padded.slice(0, e + 1);
      fraction = padded.slice(e + 1) || "0";
    } else {
      whole = "0";
      fraction = "0".repeat(-e - 1) + digits;
    }
    return `${sign}${whole}.${fraction}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

// Objects are read through their own entries only (Object.entries: a "__proto__" key JSON.parse made is an own
// property like any other), and a Map (the signed record without its signature) the same way, so that no key
// is lost to, or taken from, Object.prototype.
function objectJSON(entries) {
  return (
    "{" +
    entries
      .sort((a, b) => byCodePoint(a[0], b[0]))
      .map(([key, item]) => quote(key) + ":" + canonicalJSON(item))
      .join(",") +
    "}"
  );
}

export function canonicalJSON(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return number(value);
    case "string":
      return quote(value);
    case "object":
      if (Array.isArray(value)) return "[" + value.map(canonicalJSON).join(",") + "]";
      if (value instanceof Map) return objectJSON(Array.from(value.entries()));
      return objectJSON(Object.entries(value));
    default:
      throw new Error(`canonical JSON cannot hold a ${typeof value}`);
  }
}

// --- the signature of a record (docs/protocol.md) -------------------------------------------------------------

// Every number in a record the site signs is an integer a double holds exactly (|n| < 2**53). JSON.parse
// cannot tell 25.0 from 25 (Python can), so the record's own text is read: a number written with a fraction
// or an exponent, or an integer beyond that range, means the record is not one the site signed.
export function onlySafeIntegers(text) {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j])) j++;
      const token = text.slice(i, j);
      if (!/^-?(0|[1-9][0-9]*)$/.test(token)) return false;
      if (!Number.isSafeInteger(Number(token))) return false;
      i = j;
    } else i++;
  }
  return true;
}

function bytesOfHex(text) {
  if (typeof text !== "string" || !/^([0-9a-f]{2})*$/i.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// The signed bytes: the canonical JSON of the record without its "signature" field.
export function signedBytes(record) {
  const rest = new Map(Object.entries(record).filter(([key]) => key !== "signature"));
  return new TextEncoder().encode(canonicalJSON(rest));
}

// Whether the record in `text` holds a signature by one of `publicKeys` (hex; the site's and its retired
// keys): "ok", "bad" (altered, or not what the site signs), "foreign" (another key), "none" (no signature),
// or "unavailable" (no WebCrypto with Ed25519 here).
export async function signatureState(text, publicKeys) {
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    return "none";
  }
  if (!record || typeof record !== "object" || Array.isArray(record)) return "none";
  const signature = Object.hasOwn(record, "signature") ? record.signature : null;
  if (!signature || typeof signature !== "object" || Array.isArray(signature)) return "none";
  const value = bytesOfHex(Object.hasOwn(signature, "value") ? signature.value : null);
  if (signature.algorithm !== "Ed25519" || value === null || value.length !== 64) return "bad";
  if (typeof signature.public_key !== "string" || !publicKeys.includes(signature.public_key)) return "foreign";
  if (!onlySafeIntegers(text)) return "bad";
  if (!globalThis.crypto || !globalThis.crypto.subtle) return "unavailable";
  let key;
  try {
    key = await crypto.subtle.importKey("raw", bytesOfHex(signature.public_key), { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return "unavailable"; // a browser without Ed25519 in WebCrypto
  }
  let bytes;
  try {
    bytes = signedBytes(record);
  } catch {
    return "bad";
  }
  return (await crypto.subtle.verify({ name: "Ed25519" }, key, value, bytes)) ? "ok" : "bad";
}

// SHA-256 (hex) of the canonical JSON; null where the browser offers no WebCrypto (it needs HTTPS or
// localhost).
export async function dealHash(deal) {
  if (!globalThis.crypto || !globalThis.crypto.subtle) return null;
  const bytes = new TextEncoder().encode(canonicalJSON(deal));
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

