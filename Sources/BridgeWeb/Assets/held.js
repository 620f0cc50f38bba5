// Messages for a linked machine that cannot be reached now (issue 46 item 1): held here in the order they were
// sent and, once the home bridge says the machine is online again (`machineChanged`), sent one after another, each
// with the id it was first given, so one that did reach the machine before the link dropped counts once there (the
// home forwards the same id for the same phone). A message for the workstation itself waits in the connection the
// same way (connection.js). Kept in memory, as the connection's are. No DOM (Tests/webunit runs it in node).

/** The error that means the machine could not be reached: the message waits for it (anything else is an answer). */
export const UNREACHABLE = 'machine_unavailable';

export class HeldMessages {
  /**
   * request(kind, fields, {id}): the session's; newId(): a request id of this connection's; online(machineId):
   * whether the machine is reachable now, as the phone last heard.
   */
  constructor({ request, newId, online }) {
    this.requestFn = request;
    this.newId = newId;
    this.online = online;
    this.queues = new Map(); // machineId -> [{order, kind, fields, id, resolve, reject}]
    this.order = 0;
    this.flushing = new Set();
  }

  /** How many messages wait for `machineId`. */
  waiting(machineId) { return (this.queues.get(machineId) || []).length; }

  /**
   * Sends `kind` to a linked machine's thread now, or holds it while the machine is away (or earlier ones still
   * wait: the order holds); `onHeld()` is called when it starts waiting. Resolves with the answer.
   */
  send(machineId, kind, fields, { onHeld } = {}) {
    const entry = { order: ++this.order, kind, fields, id: this.newId(), onHeld };
    const answered = new Promise((resolve, reject) => Object.assign(entry, { resolve, reject }));
    if (!this.online(machineId) || this.waiting(machineId)) this.hold(machineId, entry);
    else this.attempt(machineId, entry);
    return answered;
  }

  hold(machineId, entry) {
    const queue = this.queues.get(machineId) || [];
    queue.push(entry);
    queue.sort((a, b) => a.order - b.order); // one sent at once and refused comes back among the held ones
    this.queues.set(machineId, queue);
    entry.onHeld?.();
    if (this.online(machineId)) this.flush(machineId); // it came back while this one was on its way
  }

  attempt(machineId, entry) {
    this.requestFn(entry.kind, entry.fields, { id: entry.id }).then(entry.resolve, (err) => {
      if (err && err.code === UNREACHABLE) this.hold(machineId, entry);
      else entry.reject(err);
    });
  }

  /** The machine is online (again): its messages go, in order, one at a time, while it stays reachable. */
  async flush(machineId) {
    if (this.flushing.has(machineId)) return;
    this.flushing.add(machineId);
    try {
      const queue = this.queues.get(machineId) || [];
      while (queue.length && this.online(machineId)) {
        const entry = queue[0];
        try {
          entry.resolve(await this.requestFn(entry.kind, entry.fields, { id: entry.id }));
        } catch (err) {
          if (err && err.code === UNREACHABLE) break; // gone again: the rest waits with it
          entry.reject(err);
        }
        queue.shift();
      }
      if (!queue.length) this.queues.delete(machineId);
    } finally {
      this.flushing.delete(machineId);
    }
  }

  /** The machine left the fleet (unlinked or revoked): what waited for it is not sent. */
  drop(machineId, err) {
    for (const entry of this.queues.get(machineId) || []) entry.reject(err);
    this.queues.delete(machineId);
  }
}
