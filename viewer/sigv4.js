// sigv4.js: AWS Signature Version 4 in the browser (WebCrypto), for the requests of the
// viewer to singletable-gateway. The secret stays in this page: only the signature is sent.
// WebCrypto exists in secure contexts only: open the viewer on localhost / 127.0.0.1 or
// through an HTTPS proxy (docs/viewer.md).
const enc = new TextEncoder();

function hex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256hex(text) {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode(text)));
}

async function hmac(key, text) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, enc.encode(text)));
}

// The headers of a signed POST of body to path "/" of host: Content-Type, X-Amz-Date,
// X-Amz-Target and Authorization (host, x-amz-date, x-amz-target and content-type signed,
// as the gateway requires).
export async function signedHeaders({ accessKeyId, secretAccessKey, region }, host, target, body, now = new Date()) {
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const contentType = "application/x-amz-json-1.0";
  const names = "content-type;host;x-amz-date;x-amz-target";
  const canonical = ["POST", "/", "",
    `content-type:${contentType}`, `host:${host}`, `x-amz-date:${amzDate}`, `x-amz-target:${target}`, "",
    names, await sha256hex(body)].join("\n");
  const scope = `${day}/${region}/dynamodb/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256hex(canonical)].join("\n");
  let key = await hmac(enc.encode("AWS4" + secretAccessKey), day);
  key = await hmac(key, region);
  key = await hmac(key, "dynamodb");
  key = await hmac(key, "aws4_request");
  const signature = hex(await hmac(key, toSign));
  return {
    "Content-Type": contentType,
    "X-Amz-Date": amzDate,
    "X-Amz-Target": target,
    Authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signature}`,
  };
}
