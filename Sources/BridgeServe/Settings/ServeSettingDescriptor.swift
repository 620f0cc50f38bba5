import Foundation

/// One `serve` setting as it is declared once (``ServeSetting/descriptor``): its kind of value, where that goes in
/// ``ServeOptions``, its range, its help and its default. The flag's name and help, the config file's reader,
/// the range check, the merge of flag over file and the README's table are all derived from it.
package struct ServeSettingDescriptor {
    /// The long flag without its dashes (`hello-timeout`).
    package var flag: String
    /// What the value is and where it goes.
    package var value: SettingValue
    /// One phrase for `--help` and nothing else (the range and the default are added from ``value`` and
    /// ``defaultText``).
    package var help: String
    /// The placeholder in `--help` (`seconds`), for settings that take a value.
    package var valueName: String?
    /// The built-in default as the README and `--help` say it, read from ``ServeSettings`` where it is a value;
    /// nil: nothing to say (a switch that is off).
    package var defaultText: String?
    /// Whether ``defaultText`` is a literal value (shown as code in the README) rather than a description.
    package var defaultIsLiteral = true
    /// The README's type column when the kind and range alone do not say it.
    package var typeText: String?
    /// More flags that set it too, for the README (`--no-tls`).
    package var otherFlags: [String] = []
    /// Whether the file also takes the flag's spelling, inverted (`no_qr = true` is `qr = false`).
    package var invertedKey = false

    /// The flag's help: the phrase, then whether it repeats, its range and its default.
    package var helpText: String {
        var notes: [String] = []
        if value.isRepeatable { notes.append("repeatable") }
        if let range = value.rangeText { notes.append(range) }
        if !value.isSwitch, let defaultText { notes.append(defaultIsLiteral ? "default \(defaultText)" : "default: \(defaultText)") }
        return notes.isEmpty ? help + "." : "\(help) (\(notes.joined(separator: "; ")))."
    }
}

/// What kind of value a setting holds, how `config.toml` spells it, and its field in ``ServeOptions``.
package enum SettingValue {
    /// `HOST:PORT`, `:PORT`, `tailscale[:PORT]`.
    case listen(WritableKeyPath<ServeOptions, ListenAddress?>)
    /// `true`/`false`; `inverted`: the flag says the opposite (`--no-qr` sets `qr = false`).
    case bool(WritableKeyPath<ServeOptions, Bool?>, inverted: Bool = false)
    /// A string, one of `choices` when there are any.
    case string(WritableKeyPath<ServeOptions, String?>, choices: [String] = [])
    /// A program: a name looked up on PATH, or a path (relative to the config file's directory in the file).
    case program(WritableKeyPath<ServeOptions, String?>)
    /// A path; in the file relative to its directory, `~/` the home directory.
    case path(WritableKeyPath<ServeOptions, String?>)
    /// An array of strings (a repeatable flag).
    case strings(WritableKeyPath<ServeOptions, [String]?>)
    /// An array of paths (a repeatable flag).
    case paths(WritableKeyPath<ServeOptions, [String]?>)
    /// An integer within `limit`.
    case integer(WritableKeyPath<ServeOptions, Int?>, SettingLimits.Limit<Int>)
    /// A 64-bit integer within `limit`.
    case integer64(WritableKeyPath<ServeOptions, Int64?>, SettingLimits.Limit<Int64>)
    /// A number of seconds within `limit`.
    case seconds(WritableKeyPath<ServeOptions, Double?>, SettingLimits.Limit<Double>)
    /// A duration string (`7d`) or a positive number of seconds, whole seconds within `limit` when given.
    case duration(WritableKeyPath<ServeOptions, DurationArgument?>, SettingLimits.Limit<Int64>?)
    /// A switch the file spells as the value of another key (`tls = "tailscale"`).
    case fileValue(WritableKeyPath<ServeOptions, Bool?>, key: String, value: String)

    /// The field, whatever its type: whether a source set it, and the merge of two sources.
    package var field: OptionField {
        switch self {
        case .listen(let path): OptionField(path)
        case .bool(let path, _), .fileValue(let path, _, _): OptionField(path)
        case .string(let path, _), .program(let path), .path(let path): OptionField(path)
        case .strings(let path), .paths(let path): OptionField(path)
        case .integer(let path, _): OptionField(path)
        case .integer64(let path, _): OptionField(path)
        case .seconds(let path, _): OptionField(path)
        case .duration(let path, _): OptionField(path)
        }
    }

    /// What the value is, for the README: the kind and its range.
    package var typeText: String {
        switch self {
        case .listen: "string `HOST:PORT`, `:PORT`, `tailscale[:PORT]`"
        case .bool: "bool"
        case .string(_, let choices) where !choices.isEmpty: SettingValue.alternatives(choices.map { "`\($0)`" })
        case .string, .fileValue: "string"
        case .program, .path: "string (path)"
        case .strings: "array of strings"
        case .paths: "array of strings (paths)"
        case .integer(_, let limit): "integer (\(limit.rangeText))"
        case .integer64(_, let limit): "integer (\(limit.rangeText))"
        case .seconds(_, let limit):
            "number (\(limit.unit), \(limit.rangeText)\(limit.also.map { ", \(SettingLimits.text($0)) = off" } ?? ""))"
        case .duration(_, let limit?): "duration string (`7d`, `12h`) or seconds (\(limit.durationRangeText))"
        case .duration: "duration string (`20s`, `7d`) or seconds"
        }
    }

    /// The range, for `--help` (nil: none to state).
    package var rangeText: String? {
        switch self {
        case .integer(_, let limit): limit.rangeText
        case .integer64(_, let limit): limit.rangeText
        case .seconds(_, let limit): "\(limit.rangeText)\(limit.also.map { ", \(SettingLimits.text($0)) = off" } ?? "")"
        case .string(_, let choices) where !choices.isEmpty: choices.joined(separator: ", ")
        case .duration(_, let limit?): limit.durationRangeText
        default: nil
        }
    }

    /// Whether the flag takes no value.
    package var isSwitch: Bool {
        switch self {
        case .bool, .fileValue: true
        default: false
        }
    }

    /// Whether the flag may be given more than once (an array in the file).
    package var isRepeatable: Bool {
        switch self {
        case .strings, .paths: true
        default: false
        }
    }

    /// `a or b`, `one of a, b, c`.
    package static func alternatives(_ words: [String]) -> String {
        words.count == 2 ? "\(words[0]) or \(words[1])" : "one of \(words.joined(separator: ", "))"
    }
}

/// A ``ServeOptions`` field of any type, through its key path.
package struct OptionField {
    /// Whether `options` says something about it.
    package let isSet: (ServeOptions) -> Bool
    /// Sets `merged`'s field to `top`'s where it says something, else to `base`'s.
    package let merge: (_ top: ServeOptions, _ base: ServeOptions, _ merged: inout ServeOptions) -> Void

    package init<Value>(_ path: WritableKeyPath<ServeOptions, Value?>) {
        isSet = { $0[keyPath: path] != nil }
        merge = { top, base, merged in merged[keyPath: path] = top[keyPath: path] ?? base[keyPath: path] }
    }
}
