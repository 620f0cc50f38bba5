import ArgumentParser
import Foundation
import Testing

@testable import BridgeServe
@testable import codex_bridge

/// Each setting is declared once (``ServeSetting/descriptor``); these tests fail when a flag, a config key or the
/// README's table disagrees with the declarations.
@Suite struct ServeSettingDeclarationTests {
    /// A value `serve` accepts for `setting`, as a command-line argument.
    static func sample(_ setting: ServeSetting) -> String {
        switch setting {
        case .pushSubject: return "mailto:ana@example.org"
        case .notifyActionURL: return "https://127.0.0.1:9099"
        case .notify: return "https://127.0.0.1/hook"
        case .allowPushHosts: return "127.0.0.1"
        case .codexConfig: return "model=o3"
        case .roots: return "/"
        case .sharedSocket: return "/tmp/app-server.sock"
        default: break
        }
        switch setting.descriptor.value {
        case .listen: return "127.0.0.1:0"
        case .string(_, let choices): return choices.first ?? "name"
        case .program, .path, .paths: return "/x"
        case .strings: return "x"
        case .integer(_, let limit): return "\(limit.range.lowerBound)"
        case .integer64(_, let limit): return "\(limit.range.lowerBound)"
        case .seconds(_, let limit): return "\(limit.range.lowerBound)"
        case .duration: return "1m"
        case .bool, .fileValue: return "true"
        }
    }

    /// The same value as a TOML value.
    static func tomlSample(_ setting: ServeSetting) -> String {
        switch setting.descriptor.value {
        case .fileValue(_, _, let value): #""\#(value)""#
        case .bool: "true"
        case .integer, .integer64, .seconds: sample(setting)
        case .strings, .paths: #"["\#(sample(setting))"]"#
        default: #""\#(sample(setting))""#
        }
    }

    /// The flags `serve --help` lists, each spelling (`--tls`, `--no-tls`).
    static var listedFlags: Set<String> {
        var flags = Set<String>()
        for line in ServeCommand.helpMessage(columns: 10_000).split(separator: "\n") where line.hasPrefix("  -") {
            let names = line.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]
            for name in names.split(separator: "/") where name.hasPrefix("--") { flags.insert(String(name)) }
        }
        return flags
    }

    @Test func everyFlagHasASettingAndEverySettingAFlag() {
        let declared = Set(ServeSetting.allCases.flatMap { [$0.flag] + $0.descriptor.otherFlags })
        #expect(Self.listedFlags.subtracting(["--state-dir", "--help"]) == declared)
    }

    @Test(arguments: ServeSetting.allCases) func theFlagSetsItsSetting(_ setting: ServeSetting) throws {
        var arguments = [setting.flag]
        if !setting.descriptor.value.isSwitch { arguments.append(Self.sample(setting)) }
        // The two files go together.
        if setting == .tlsCert { arguments += ["--tls-key", "/k"] }
        if setting == .tlsKey { arguments += ["--tls-cert", "/c"] }
        let command = try ServeCommand.parse(arguments)
        #expect(setting.descriptor.value.field.isSet(command.options), "\(setting.flag) does not set \(setting.rawValue)")
    }

    @Test(arguments: ServeSetting.allCases) func theKeySetsItsSetting(_ setting: ServeSetting) throws {
        var text = "\(setting.key) = \(Self.tomlSample(setting))\n"
        if setting == .tlsCert { text += "tls_key = \"/k\"\n" }
        if setting == .tlsKey { text += "tls_cert = \"/c\"\n" }
        let options = try ServeConfigFile.parse(text, path: "config.toml", baseDirectory: "/", home: "/home/ana")
        #expect(setting.descriptor.value.field.isSet(options), "\(setting.fileName) does not set \(setting.rawValue)")
    }

    /// The README's config table is exactly the one the declarations make.
    @Test func theReadmeTableIsTheDeclaredOne() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "| key | type | flag | default |"))
        let table = lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(table == ServeSetting.readmeTable, "README.md's config table should read:\n\(ServeSetting.readmeTable)")
    }

    @Test func theHelpStatesRangeAndDefault() {
        #expect(ServeSetting.helloTimeout.descriptor.helpText == "Seconds a client has to send hello (0.5–300; default 10).")
        #expect(ServeSetting.pingInterval.descriptor.helpText == "Seconds between WebSocket pings (0.1–3600, 0 = off; default 20).")
        #expect(ServeSetting.roots.descriptor.helpText == "A directory threads may run in (repeatable; default: the current directory).")
        #expect(ServeSetting.journalMaxAge.descriptor.helpText.hasSuffix("(1s–3650d; default 7d)."))
    }
}
