# Shared by Scripts/run and Scripts/test: install what is missing on Debian 12.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# apt_install PKG...: installs the packages that are not installed yet.
apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "==> apt-get install ${missing[*]}"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# python_venv DIR PKG...: a venv at DIR with the packages installed.
python_venv() {
    local dir="$1"; shift
    if [ ! -x "$dir/bin/python" ]; then
        python3 -m venv "$dir" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$dir"; }
    fi
    "$dir/bin/pip" install -q --disable-pip-version-check "$@"
}

require_swift() {
    if ! command -v swift >/dev/null; then
        echo "error: swift is not on PATH; install Swift 6.x from swift.org (/opt/swift/usr/bin on this image)" >&2
        exit 1
    fi
}

# The build needs these C libraries; the runtime needs avahi and bubblewrap (codex's sandbox).
BUILD_PACKAGES=(libavahi-client-dev libqrencode-dev libsqlite3-dev pkg-config)
CODEX_PACKAGE="openai-codex-cli-bin==0.163.0"
# The oldest Codex the bridge works with (BridgeOps/CodexVersion.swift): Scripts/test runs the Codex-facing
# integration files against it too.
CODEX_OLDEST_PACKAGE="openai-codex-cli-bin==0.160.1"
