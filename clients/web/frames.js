/* One server frame (a binary WebSocket message, MessagePack) -> the message it carries, or
 * null (not binary, undecodable, not a map). Shared by the player's page and the staff
 * console: both read the same protocol (protocol/README.md). */
"use strict";

function decodeFrame(data) {
  if (!(data instanceof ArrayBuffer)) return null;
  let msg;
  try {
    msg = MessagePack.decode(new Uint8Array(data));
  } catch (e) {
    console.error("undecodable frame", e);
    return null;
  }
  return msg && typeof msg === "object" ? msg : null;
}
