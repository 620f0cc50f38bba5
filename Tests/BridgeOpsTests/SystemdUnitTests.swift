import BridgeOps
import Foundation
import Testing

@Suite struct SystemdUnitTests {
    let unit = SystemdUnit(
        executable: "/opt/codex bridge/codex-bridge",
        arguments: SystemdUnit.serveArguments(stateDirectory: "/home/me/state", extra: ["--root", "/home/me/src"]),
        environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "CODEX_HOME": "/home/me/.codex"],
        workingDirectory: "/home/me"
    )

    @Test func serviceSection() {
        let text = unit.render()
        #expect(text.contains("\n[Service]\n"))
        #expect(text.contains(#"ExecStart="/opt/codex bridge/codex-bridge" serve --no-qr --state-dir /home/me/state --root /home/me/src"#))
        #expect(text.contains("\nRestart=on-failure\n"))
        #expect(text.contains("\nRestartSec=2\n"))
        #expect(text.contains("\nWorkingDirectory=/home/me\n"))
        #expect(text.contains("\nEnvironment=CODEX_HOME=/home/me/.codex\nEnvironment=PATH=/usr/local/bin:/usr/bin:/bin\n"))
    }

    @Test func installSection() {
        let text = unit.render()
        #expect(text.contains("\n[Install]\nWantedBy=default.target\n"))
        #expect(text.hasSuffix("\n"))
    }

    @Test func serveArgumentsWithoutStateDirectory() {
        #expect(SystemdUnit.serveArguments(stateDirectory: nil) == ["serve", "--no-qr"])
    }

    @Test(arguments: [
        ("plain", "plain"), ("with space", #""with space""#), ("100%", "100%%"), ("$HOME", "$$HOME"), (#"a"b"#, #""a\"b""#),
    ])
    func quoting(word: String, expected: String) {
        let line = SystemdUnit(executable: word, arguments: []).render().split(separator: "\n").first { $0.hasPrefix("ExecStart=") }
        #expect(line == Substring("ExecStart=" + expected))
    }

    @Test func directoryHonoursXDGConfigHome() {
        #expect(SystemdUnit.directory(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"]).path == "/x/cfg/systemd/user")
        #expect(SystemdUnit.directory(environment: ["HOME": "/h"]).path == "/h/.config/systemd/user")
    }

    @Test func commands() {
        #expect(SystemdUnit.enableCommands(now: true).last == ["systemctl", "--user", "enable", "--now", "codex-bridge.service"])
        #expect(SystemdUnit.enableCommands(now: false).last == ["systemctl", "--user", "enable", "codex-bridge.service"])
        #expect(SystemdUnit.lingerHint(user: "me").contains("loginctl enable-linger me"))
    }

    /// `systemd-analyze verify` when the machine has it (no running systemd needed).
    @Test func systemdAnalyzeVerify() async throws {
        let runner = CommandRunner()
        guard runner.which("systemd-analyze") != nil else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // ExecStart must name an existing executable for verify to pass.
        let verifiable = SystemdUnit(
            executable: "/bin/true", arguments: unit.arguments, environment: unit.environment, workingDirectory: "/tmp")
        let file = directory.appendingPathComponent(SystemdUnit.fileName)
        try verifiable.render().write(to: file, atomically: true, encoding: .utf8)
        let outcome = await runner.run("systemd-analyze", ["verify", "--user", file.path], timeout: .seconds(30))
        // Lines about the machine's own units or a missing user bus are not about our file.
        let ours = outcome.output.split(separator: "\n").filter { $0.contains(SystemdUnit.fileName) }
        #expect(ours.isEmpty, "\(outcome.output)")
    }
}
