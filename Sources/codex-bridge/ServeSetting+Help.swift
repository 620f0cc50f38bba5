import ArgumentParser
import BridgeServe

/// The flags' names and help, and the README's settings table, from the settings' declarations.
extension ServeSetting {
    /// The README's table of `config.toml` keys (README.md, "Configuration file"), one row per setting; a test
    /// keeps the README equal to it.
    static var readmeTable: String {
        let header = ["| key | type | flag | default |", "|---|---|---|---|"]
        return (header + allCases.map(\.readmeRow)).joined(separator: "\n")
    }

    /// This setting's row in ``readmeTable``.
    var readmeRow: String {
        let descriptor = descriptor
        let key = "`\(fileName)`" + invertedAliases.map { " (or `\($0)`)" }.joined()
        let flags = ([flag] + descriptor.otherFlags).map { "`\($0)`" }.joined(separator: " / ")
        let flagCell = flags + (descriptor.value.isRepeatable ? " (repeatable)" : "")
        let defaultCell = descriptor.defaultText.map { descriptor.defaultIsLiteral ? "`\($0)`" : $0 } ?? "none"
        return "| \(key) | \(descriptor.typeText ?? descriptor.value.typeText) | \(flagCell) | \(defaultCell) |"
    }
}

extension NameSpecification {
    /// The long flag of `setting` (`.customLong("hello-timeout")`).
    static func setting(_ setting: ServeSetting) -> NameSpecification { .customLong(setting.descriptor.flag) }
}

extension ArgumentHelp {
    /// The help of `setting`: its phrase, range and default, and its value's placeholder.
    static func setting(_ setting: ServeSetting) -> ArgumentHelp {
        ArgumentHelp(setting.descriptor.helpText, valueName: setting.descriptor.valueName)
    }
}
