/// A Codex CLI's version as `codex --version` prints it (`codex-cli 0.163.0`), and the range this bridge is
/// tested against (issue 46 item 7): the integration suite runs on the oldest and the newest. What the bridge
/// uses of Codex it detects from what Codex sends (e.g. a review turn's `rootTurnId`), not from this number;
/// `doctor` only says when a Codex lies outside the range.
public struct CodexVersion: Comparable, Sendable, CustomStringConvertible {
    public let parts: [Int]

    /// The oldest Codex this bridge works with.
    public static let oldestSupported = CodexVersion(parts: [0, 160, 0])
    /// The newest Codex it was tested with (Scripts/lib.sh installs it).
    public static let newestTested = CodexVersion(parts: [0, 163, 0])

    public init(parts: [Int]) { self.parts = parts }

    /// The first `N.N.N` in `output` (`codex-cli 0.163.0`, `codex 0.160.1-alpha.2`), nil when there is none.
    public init?(output: String) {
        for word in output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            let core = word.prefix { $0.isNumber || $0 == "." }
            let numbers = core.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
            guard numbers.count >= 2, numbers.count <= 4, numbers.allSatisfy({ $0 != nil }) else { continue }
            self.init(parts: numbers.map { $0! })
            return
        }
        return nil
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: CodexVersion, rhs: CodexVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: CodexVersion, rhs: CodexVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }

    /// Newer than every tested release (a patch release of the newest tested one counts as tested).
    public var isNewerThanTested: Bool { Array(parts.prefix(2)) != Array(Self.newestTested.parts.prefix(2)) && self > Self.newestTested }
}
