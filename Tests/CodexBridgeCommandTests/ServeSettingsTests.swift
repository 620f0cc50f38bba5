import Foundation
import Testing

@testable import BridgeServe
@testable import codex_bridge

@Suite struct ServeSettingsTests {
    /// The README's config table: one row per setting, naming its key and its flag.
    @Test func readmeTableListsEverySettingWithItsFlag() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "| key | type | flag | default |"))
        let rows = text[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        var documented: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // The keys are the `quoted` parts of the first cell.
            let parts = cells[1].split(separator: "`", omittingEmptySubsequences: false)
            for (index, key) in parts.enumerated() where index % 2 == 1 {
                documented[String(key)] = cells[3]
            }
        }
        for setting in ServeSetting.allCases {
            let flagCell = try #require(documented[setting.fileName], "README's config table has no row for \(setting.fileName)")
            #expect(flagCell.contains("`\(setting.flag)"), "README row \(setting.fileName) does not name \(setting.flag)")
        }
        let known = Set(ServeSetting.allCases.map(\.fileName) + ServeSetting.allCases.flatMap(\.invertedAliases))
        #expect(Set(documented.keys).subtracting(known).isEmpty, "README documents keys serve does not know")
    }

    @Test func theCommandLineWinsAndTLSIsChosenWhole() {
        let file = ServeOptions(helloTimeout: 3, qr: false, roots: ["/a"], tlsTailscale: true)
        let flags = ServeOptions(helloTimeout: 5, roots: ["/b"], tls: true)
        let settings = ServeSettings(flags.overriding(file))
        #expect(settings.helloTimeout == 5 && settings.roots == ["/b"] && settings.qr == false)
        // `--tls` is the self-signed certificate: the file's Tailscale choice does not survive it.
        #expect(settings.tls && !settings.tlsTailscale)
        let offline = ServeSettings(ServeOptions(tls: false).overriding(ServeOptions(tlsCert: "/c", tlsKey: "/k")))
        #expect(!offline.tls && offline.tlsCert == nil)
        let implied = ServeSettings(ServeOptions().overriding(ServeOptions(tlsCert: "/c", tlsKey: "/k")))
        #expect(implied.tls && implied.tlsCert == "/c")
        #expect(ServeSettings(ServeOptions()) == ServeSettings())
    }

    @Test func oneCheckNamesTheFlagOrTheKey() {
        func problem(_ options: ServeOptions, _ name: (ServeSetting) -> String) -> String? {
            do {
                try options.check(naming: name)
                return nil
            } catch {
                return "\(name(error.setting)) \(error.message)"
            }
        }
        let late = ServeOptions(helloTimeout: 900)
        #expect(problem(late, \.flag) == "--hello-timeout must be between 0.5 and 300.0 seconds, not 900.0")
        #expect(problem(late, \.fileName) == "hello_timeout must be between 0.5 and 300.0 seconds, not 900.0")
        #expect(problem(ServeOptions(tlsCert: "/c"), \.flag) == "--tls-cert and --tls-key go together: give both files")
        #expect(
            problem(ServeOptions(tlsCert: "/c", tlsKey: "/k", tlsTailscale: true), \.fileName)?.hasPrefix(
                #"tls = "tailscale" and tls_cert"#) == true)
        #expect(problem(ServeOptions(logFormat: "xml"), \.flag) == #"--log-format must be text or json, not "xml""#)
        #expect(problem(ServeOptions(codexConfig: ["model"]), \.flag) == #"--codex-config expects KEY=VALUE entries, got "model""#)
        #expect(problem(ServeOptions(roots: ["/nonexistent/x"]), \.flag) == #"--root entry "/nonexistent/x" is not an existing directory"#)
        #expect(problem(ServeOptions(helloTimeout: 10, roots: ["/"]), \.flag) == nil)
    }
}
