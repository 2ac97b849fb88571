// A deployment of several servers (protocol/README.md, "A deployment of several servers"):
// the page follows a `table_elsewhere` answer on its own (it reconnects to the server named,
// with the same token, and joins there), waits out `table_moving`, and joins again a table
// that moved (`left` with reason "moved": its server lost it; the new owner voided the round
// and sent the stakes home). app.js calls these hooks; without this file nothing changes.
// The page's Content-Security-Policy names the deployment's live servers beside its own
// origin (server/net/http.py, Gate.peers); the other server must also accept the page's
// origin (--origin).
"use strict";

window.Deployment = (() => {
  let joinAfterWelcome = null;  // the join to send once the other server welcomed us

  /** An error about a table another server serves, or one changing servers: handled here
   *  (true) with `api` {moveTo(url), send(msg)}; anything else is app.js's (false). */
  function handle(msg, api) {
    if (msg.code === "table_elsewhere" && msg.url && msg.ref === "join") {
      joinAfterWelcome = { type: "join", table: msg.table };
      api.moveTo(msg.url);
      return true;
    }
    if (msg.code === "table_moving" && msg.ref === "join") {
      setTimeout(() => api.send({ type: "join", table: msg.table }), 500);
      return true;
    }
    return false;
  }

  /** After `welcome`: send the join a redirect was for (true), or nothing (false). */
  function afterWelcome(send) {
    if (!joinAfterWelcome) return false;
    send(joinAfterWelcome);
    joinAfterWelcome = null;
    return true;
  }

  /** `left`: a table that moved is joined again (the answer is a redirect). */
  function moved(msg, send) {
    if (msg.reason !== "moved") return false;
    setTimeout(() => send({ type: "join", table: msg.table }), 500);
    return true;
  }

  return { handle, afterWelcome, moved };
})();
