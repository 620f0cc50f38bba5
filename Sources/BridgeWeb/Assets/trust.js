// The "Trust this workstation" page: served over plain http:// on the bridge's TLS port to a device that does
// not trust the workstation's certificate authority yet. It shows the CA's fingerprint, opens the steps for this
// device, checks whether the https:// side now loads, and continues there: to the app, with no fragment. No
// credential ever comes to this page (over plain HTTP whoever answers for the address could serve it); the
// app asks for the code, or the workstation's second QR code (https://) brings it. All text goes in with
// textContent.

// A fragment (an old QR code's pairing data) is dropped from the address bar and never passed on.
if (location.hash) history.replaceState(null, '', location.pathname);
const secureBase = 'https://' + location.host + '/';
const target = secureBase;
const $ = (id) => document.getElementById(id);

// As a phone shows it: upper-case byte pairs, in rows of eight.
function grouped(hex) {
  const pairs = hex.toUpperCase().match(/.{1,2}/g) || [];
  const rows = [];
  for (let i = 0; i < pairs.length; i += 8) rows.push(pairs.slice(i, i + 8).join(' '));
  return rows.join('\n');
}

function platform() {
  const ua = navigator.userAgent;
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)) return 'ios';
  if (/Android/.test(ua)) return 'android';
  return 'desktop';
}

function show(state, text) {
  const status = $('status');
  status.className = 'state ' + state;
  status.textContent = text;
  // Continuing before the device trusts the CA would only lead to the browser's warning.
  $('continue').hidden = state !== 'trusted';
  $('check').hidden = state === 'trusted';
}

// A request to the https:// side fails at the TLS handshake until this device trusts the CA.
async function trusted() {
  try {
    await fetch(secureBase + 'healthz', { mode: 'no-cors', cache: 'no-store', credentials: 'omit' });
    return true;
  } catch {
    return false;
  }
}

let moving = false;
async function check() {
  if (moving) return;
  if (await trusted()) {
    moving = true;
    show('trusted', 'This device trusts the workstation. Opening Codex…');
    location.replace(target);
  } else {
    show('untrusted', 'Not trusted yet: follow the steps below, then come back.');
  }
}

async function describe() {
  try {
    const response = await fetch('ca.json', { cache: 'no-store' });
    const info = await response.json();
    $('fingerprint').textContent = grouped(String(info.fingerprint || ''));
    if (info.name) {
      $('who').textContent = 'Codex Bridge on “' + info.name + '” serves this device over an encrypted connection. '
        + 'Trust its certificate once; then the app opens.';
    }
  } catch {
    $('fingerprint').textContent = 'unavailable';
  }
}

$('continue').href = target;
$('check').addEventListener('click', check);
$(platform()).open = true;
describe();
check();
setInterval(() => { if (document.visibilityState === 'visible') check(); }, 3000);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') check(); });
