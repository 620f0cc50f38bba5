// While the connection is down: a cheap, frequent look whether the workstation answers again (issue 46 item 1).
//
// A WebSocket attempt every second would cost the bridge a hello each time and, in Chromium, slow the page's own
// later attempts down (it delays a page's new WebSockets by up to seconds once many have failed). So between the
// connection's attempts, which back off up to 10 s apart, a plain `GET /healthz` (no credential, a few bytes) goes
// out every half second; when one is answered after one was not, the connection is told at once (`onBack`), so
// the phone is back within about half a second of the workstation. Bounded: every half second for the first two
// minutes, every second until ten, then every five; only while the page is shown (a hidden page waits for
// `visibilitychange`, which checks at once).
const PLAN = [[120000, 500], [600000, 1000], [Infinity, 5000]]; // [until this long after the start, every]

/** When the next look is due, `elapsed` ms after the probe started. */
export function probeInterval(elapsed) {
  for (const [until, every] of PLAN) if (elapsed < until) return every;
  return PLAN[PLAN.length - 1][1];
}

export class Probe {
  /** url: the bridge's /healthz; onBack(): it answers again after it did not; fetcher: `fetch` (tests give theirs). */
  constructor(url, onBack, fetcher = (...args) => fetch(...args)) {
    this.url = url;
    this.onBack = onBack;
    this.fetcher = fetcher;
    this.timer = null;
    this.started = 0;
    this.sawDown = false;
    this.looking = null; // the AbortController of the look under way
  }

  get running() { return this.started !== 0; }

  /** Starts looking (again): the connection was lost, so the workstation counts as not answering until it does. */
  start() {
    if (this.running) return;
    this.started = Date.now();
    this.sawDown = true;
    this.schedule(0);
  }

  stop() {
    this.started = 0;
    clearTimeout(this.timer);
    this.timer = null;
    this.looking?.abort();
    this.looking = null;
  }

  schedule(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.look(), delay);
  }

  async look() {
    if (!this.running) return;
    const every = probeInterval(Date.now() - this.started);
    this.schedule(every);
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
    this.looking?.abort();
    const controller = new AbortController();
    this.looking = controller;
    const giveUp = setTimeout(() => controller.abort(), Math.max(400, every - 50));
    let up = false;
    try {
      const answer = await this.fetcher(`${this.url}?t=${Date.now().toString(36)}`, { cache: 'no-store', credentials: 'omit', signal: controller.signal });
      up = answer.ok;
    } catch (_) { /* not answering (refused, unreachable, or this look gave up) */ }
    clearTimeout(giveUp);
    if (this.looking === controller) this.looking = null;
    if (!this.running) return;
    if (!up) { this.sawDown = true; return; }
    if (!this.sawDown) return; // answering all along: the connection's own attempts decide (not a loop of attempts)
    this.sawDown = false;
    this.onBack();
  }
}
