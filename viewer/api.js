// api.js: the calls of the viewer, each a signed POST to the endpoint that served the page:
// DynamoDB's operations (DynamoDB_20120810.<Op>), DynamoDB Streams' (DynamoDBStreams_20120810.<Op>)
// and the extension's own (SingleTable_20261201.<Op>: singletable.viewer_api).
import { signedHeaders } from "./sigv4.js";

let creds = null;

export function setCredentials(c) { creds = c; }
export function credentials() { return creds; }

export class ApiError extends Error {
  constructor(type, message, status) {
    super(`${type}: ${message}`);
    this.type = type;
    this.status = status;
  }
}

async function call(target, request) {
  if (!creds) throw new ApiError("NotSignedIn", "sign in first", 0);
  const body = JSON.stringify(request);
  const headers = await signedHeaders(creds, location.host, target, body);
  const resp = await fetch("/", { method: "POST", headers, body, credentials: "omit", cache: "no-store" });
  const text = await resp.text();
  let doc = null;
  try { doc = JSON.parse(text); } catch { doc = null; }
  if (!resp.ok) {
    const type = doc && typeof doc.__type === "string" ? doc.__type.replace(/.*#/, "") : `HTTP ${resp.status}`;
    const message = doc && (doc.message || doc.Message) ? String(doc.message || doc.Message) : "";
    throw new ApiError(type, message, resp.status);
  }
  const warning = resp.headers.get("x-singletable-warning");
  if (doc && warning) Object.defineProperty(doc, "$warning", { value: warning, enumerable: false });
  return doc;
}

export const ddb = (op, request) => call(`DynamoDB_20120810.${op}`, request);
export const streams = (op, request) => call(`DynamoDBStreams_20120810.${op}`, request);
export const st = (op, request) => call(`SingleTable_20261201.${op}`, request);
