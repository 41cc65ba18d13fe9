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
      return (
        "{" +
        Object.keys(value)
          .sort(byCodePoint)
          .map((key) => quote(key) + ":" + canonicalJSON(value[key]))
          .join(",") +
        "}"
      );
    default:
      throw new Error(`canonical JSON cannot hold a ${typeof value}`);
  }
}

// SHA-256 (hex) of the canonical JSON; null where the browser offers no WebCrypto (it needs HTTPS or
// localhost).
export async function dealHash(deal) {
  if (!globalThis.crypto || !globalThis.crypto.subtle) return null;
  const bytes = new TextEncoder().encode(canonicalJSON(deal));
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

