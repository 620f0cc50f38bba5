import Foundation

/// One result of `codex-bridge doctor`.
public struct DoctorFinding: Sendable, Hashable, Codable {
    /// How a finding counts.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// Fine.
        case ok
        /// Something to fix: `doctor` exits 1.
        case problem
        /// Worth knowing, not a problem (e.g. Tailscale is optional).
        case info
    }

    /// The check's short name (`codex`, `codex-login`, `avahi`, `tailscale`, `port`, `state-dir`, `bwrap`, `python3`).
    public var check: String
    public var severity: Severity
    /// One line saying what was found.
    public var summary: String
    /// The command that fixes it, for problems (and optional improvements).
    public var fix: String?

    public init(check: String, severity: Severity, summary: String, fix: String? = nil) {
        self.check = check
        self.severity = severity
        self.summary = summary
        self.fix = fix
    }
}

/// The checks behind `codex-bridge doctor`, over an injectable ``DoctorProbing``.
public struct Doctor: Sendable {
    /// What the command resolved before the checks run.
    public struct Input: Sendable, Hashable {
        /// The codex executable, when found (`--codex`, `PATH`, the PyPI package).
        public var codexPath: String?
        /// Why codex was not found.
        public var codexError: String?
        /// The port `serve` would listen on.
        public var port: Int
        /// The port of the bridge running from this state directory, if any.
        public var runningBridgePort: Int?
        /// The state directory.
        public var stateDirectory: String

        public init(codexPath: String?, codexError: String? = nil, port: Int, runningBridgePort: Int? = nil, stateDirectory: String) {
            self.codexPath = codexPath
            self.codexError = codexError
            self.port = port
            self.runningBridgePort = runningBridgePort
            self.stateDirectory = stateDirectory
        }
    }

    /// How to install codex.
    public static let codexInstallFix = "pip install openai-codex-cli-bin   (or Scripts/run, or put codex on PATH, or pass --codex PATH)"

    public let probe: any DoctorProbing
    /// Deadline of each external command.
    public var commandTimeout: Duration

    public init(probe: any DoctorProbing, commandTimeout: Duration = .seconds(10)) {
        self.probe = probe
        self.commandTimeout = commandTimeout
    }

    /// Runs every check, in a stable order.
    public func run(_ input: Input) async -> [DoctorFinding] {
        await codex(input) + [await avahi(), await tailscale(), port(input)] + stateDirectory(input.stateDirectory) + [
            bubblewrap(), python(),
        ]
    }

    /// Whether any finding is a problem.
    public static func hasProblems(_ findings: [DoctorFinding]) -> Bool {
        findings.contains { $0.severity == .problem }
    }

    /// codex present, its version, logged in.
    public func codex(_ input: Input) async -> [DoctorFinding] {
        guard let path = input.codexPath else {
            return [
                DoctorFinding(
                    check: "codex", severity: .problem, summary: "codex is not installed (threads cannot run)", fix: Self.codexInstallFix)
            ]
        }
        let version = await probe.run(path, ["--version"], timeout: commandTimeout)
        guard version.succeeded else {
            let why = version.timedOut ? "timed out" : firstLine(version.output)
            return [
                DoctorFinding(check: "codex", severity: .problem, summary: "\(path) --version failed: \(why)", fix: Self.codexInstallFix)
            ]
        }
        var findings = [DoctorFinding(check: "codex", severity: .ok, summary: "\(firstLine(version.output)) (\(path))")]
        if let found = CodexVersion(output: version.output) {
            if found < CodexVersion.oldestSupported {
                findings[0] = DoctorFinding(
                    check: "codex", severity: .problem,
                    summary: "codex \(found) is older than \(CodexVersion.oldestSupported), the oldest this bridge works with (\(path))",
                    fix: "pip install --user -U openai-codex-cli-bin   (or install a newer codex on PATH)")
            } else if found.isNewerThanTested {
                findings.append(
                    DoctorFinding(
                        check: "codex-version", severity: .info,
                        summary: "codex \(found) is newer than \(CodexVersion.newestTested), the newest this bridge was tested with: "
                            + "it should work; if something does not, "
                            + "`pip install --user openai-codex-cli-bin==\(CodexVersion.newestTested)` is known to"))
            }
        }
        let login = await probe.run(path, ["login", "status"], timeout: commandTimeout)
        if login.succeeded {
            findings.append(
                DoctorFinding(
                    check: "codex-login", severity: .ok, summary: firstLine(login.output).isEmpty ? "logged in" : firstLine(login.output)))
        } else {
            findings.append(
                DoctorFinding(
                    check: "codex-login", severity: .problem, summary: "codex is not logged in",
                    fix: "\(path) login   (or: printenv OPENAI_API_KEY | \(path) login --with-api-key)"))
        }
        return findings
    }

    /// avahi-daemon installed and running (mDNS discovery).
    public func avahi() async -> DoctorFinding {
        guard let daemon = probe.which("avahi-daemon") else {
            return DoctorFinding(
                check: "avahi", severity: .problem, summary: "avahi-daemon is not installed (phones cannot discover the bridge over mDNS)",
                fix: "sudo apt-get install avahi-daemon && sudo systemctl enable --now avahi-daemon   (or serve --no-mdns)")
        }
        let check = await probe.run(daemon, ["--check"], timeout: commandTimeout)
        guard check.succeeded else {
            return DoctorFinding(
                check: "avahi", severity: .problem, summary: "avahi-daemon is not running (phones cannot discover the bridge over mDNS)",
                fix: "sudo systemctl enable --now avahi-daemon   (or serve --no-mdns)")
        }
        return DoctorFinding(check: "avahi", severity: .ok, summary: "avahi-daemon is running")
    }

    /// Tailscale: optional, informational.
    public func tailscale() async -> DoctorFinding {
        guard let cli = probe.which("tailscale") else {
            return DoctorFinding(
                check: "tailscale", severity: .info, summary: "tailscale is not installed (optional: reach the bridge away from the LAN)",
                fix: "see https://tailscale.com/download/linux, then: sudo tailscale up")
        }
        let ip = await probe.run(cli, ["ip", "-4"], timeout: commandTimeout)
        if ip.succeeded, !ip.output.isEmpty {
            return DoctorFinding(check: "tailscale", severity: .ok, summary: "tailscale is up (\(firstLine(ip.output)))")
        }
        return DoctorFinding(
            check: "tailscale", severity: .info, summary: "tailscale is installed but not up (optional)", fix: "sudo tailscale up")
    }

    /// The listen port is free, or held by this bridge.
    public func port(_ input: Input) -> DoctorFinding {
        if input.runningBridgePort == input.port {
            return DoctorFinding(check: "port", severity: .ok, summary: "port \(input.port) is in use by the running bridge")
        }
        if probe.isPortFree(input.port) {
            return DoctorFinding(check: "port", severity: .ok, summary: "port \(input.port) is free")
        }
        return DoctorFinding(
            check: "port", severity: .problem, summary: "port \(input.port) is in use by another program",
            fix: "ss -ltnp 'sport = :\(input.port)'   (to see which), or: codex-bridge serve --listen 0.0.0.0:\(input.port + 1)")
    }

    /// The state directory is 0700 and its files 0600 (they hold secrets).
    public func stateDirectory(_ directory: String) -> [DoctorFinding] {
        guard let mode = probe.permissions(ofItemAt: directory) else {
            return [DoctorFinding(check: "state-dir", severity: .ok, summary: "\(directory) does not exist yet (serve creates it, 0700)")]
        }
        var findings: [DoctorFinding] = []
        if mode & 0o077 != 0 {
            findings.append(
                DoctorFinding(
                    check: "state-dir", severity: .problem, summary: "\(directory) is \(octal(mode)); others can read the bridge's secrets",
                    fix: tighten([directory], to: "700")))
        }
        let loose = probe.regularFiles(in: directory).filter { name in
            (probe.permissions(ofItemAt: "\(directory)/\(name)") ?? 0) & 0o077 != 0
        }
        if !loose.isEmpty {
            findings.append(
                DoctorFinding(
                    check: "state-dir", severity: .problem, summary: "readable by others: \(loose.joined(separator: ", "))",
                    fix: tighten(loose.map { "\(directory)/\($0)" }, to: "600")))
        }
        if findings.isEmpty {
            findings.append(DoctorFinding(check: "state-dir", severity: .ok, summary: "\(directory) is \(octal(mode)), its files private"))
        }
        return findings
    }

    /// bubblewrap, which codex's Linux sandbox uses.
    public func bubblewrap() -> DoctorFinding {
        if let path = probe.which("bwrap") {
            return DoctorFinding(check: "bwrap", severity: .ok, summary: "bubblewrap is installed (\(path))")
        }
        return DoctorFinding(
            check: "bwrap", severity: .problem, summary: "bubblewrap (bwrap) is not installed: codex cannot sandbox commands",
            fix: "sudo apt-get install bubblewrap")
    }

    /// python3, which codex's tooling and the PyPI codex package use.
    public func python() -> DoctorFinding {
        if let path = probe.which("python3") {
            return DoctorFinding(check: "python3", severity: .ok, summary: "python3 is installed (\(path))")
        }
        return DoctorFinding(
            check: "python3", severity: .problem, summary: "python3 is not installed", fix: "sudo apt-get install python3 python3-venv")
    }

    /// The command that gives `paths` the mode: a plain `chmod` when they are the user's, else first taking them
    /// back (a `chmod` of another user's file fails; they were most likely made by `sudo codex-bridge`).
    private func tighten(_ paths: [String], to mode: String) -> String {
        let quoted = paths.map(shellQuoted).joined(separator: " ")
        let chmod = "chmod \(mode) \(quoted)"
        guard paths.contains(where: probe.isOwnedByAnotherUser) else { return chmod }
        return "sudo chown \"$(id -un)\" \(quoted) && \(chmod)"
    }

    private func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", omittingEmptySubsequences: true).first ?? "")
    }

    private func octal(_ mode: UInt16) -> String {
        "0" + String(mode, radix: 8)
    }

    private func shellQuoted(_ path: String) -> String {
        path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@".contains($0) }
            ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension DoctorFinding {
    /// The finding as text: `ok      codex    …`, and for problems a `fix:` line.
    public var text: String {
        let label: String
        switch severity {
        case .ok: label = "ok"
        case .problem: label = "PROBLEM"
        case .info: label = "info"
        }
        var line =
            label.padding(toLength: 8, withPad: " ", startingAt: 0) + check.padding(toLength: 12, withPad: " ", startingAt: 0) + summary
        if let fix, severity != .ok { line += "\n" + String(repeating: " ", count: 20) + "fix: " + fix }
        return line
    }
}
