/// `git status --porcelain=v2 --branch -z`, parsed: the branch, its upstream and how far apart they are, and every
/// changed path with its index and work-tree letters.
struct GitStatusReport: Sendable, Hashable {
    /// One changed path. `index` and `worktree` are porcelain v2's letters: `M` modified, `T` type changed, `A`
    /// added, `D` deleted, `R` renamed, `C` copied, `U` unmerged, `.` unchanged; `?` for both when untracked.
    struct File: Sendable, Hashable {
        /// Relative to the top of the work tree (as git prints it).
        var path: String
        var index: String
        var worktree: String
        /// For a rename or copy: where it came from.
        var originalPath: String?
    }

    /// The branch checked out; nil when `HEAD` is detached.
    var branch: String?
    /// The commit `HEAD` names; nil before the first commit.
    var head: String?
    /// `origin/main`, when the branch has an upstream.
    var upstream: String?
    var ahead = 0
    var behind = 0
    var files: [File] = []

    /// Parses the NUL-separated output (entries of kind `1`, `2`, `u`, `?`; `!` ignored).
    init(porcelain output: [UInt8]) {
        var fields = output.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }[...]
        while let field = fields.popFirst() {
            if field.hasPrefix("# ") {
                header(field.dropFirst(2))
                continue
            }
            let parts = field.split(separator: " ", maxSplits: Self.pathColumn(field), omittingEmptySubsequences: false)
            guard let kind = parts.first, let path = parts.last else { continue }
            switch kind {
            case "?":
                files.append(File(path: String(path), index: "?", worktree: "?"))
            case "1", "u":
                guard parts.count > 1, parts[1].count == 2 else { continue }
                files.append(File(path: String(path), index: String(parts[1].prefix(1)), worktree: String(parts[1].suffix(1))))
            case "2":
                guard parts.count > 1, parts[1].count == 2 else { continue }
                // The original path is the next NUL-separated field.
                let original = fields.popFirst()
                files.append(
                    File(
                        path: String(path), index: String(parts[1].prefix(1)), worktree: String(parts[1].suffix(1)),
                        originalPath: original))
            default:
                continue
            }
        }
    }

    /// How many spaces come before the path in an entry of this kind (paths may themselves hold spaces).
    private static func pathColumn(_ field: String) -> Int {
        switch field.first {
        case "1": 8
        case "2": 9
        case "u": 10
        default: 1
        }
    }

    private mutating func header(_ line: Substring) {
        let parts = line.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return }
        let value = String(parts[1])
        switch parts[0] {
        case "branch.oid": head = value == "(initial)" ? nil : value
        case "branch.head": branch = value == "(detached)" ? nil : value
        case "branch.upstream": upstream = value
        case "branch.ab":
            for number in value.split(separator: " ") {
                if number.hasPrefix("+") { ahead = Int(number.dropFirst()) ?? 0 }
                if number.hasPrefix("-") { behind = Int(number.dropFirst()) ?? 0 }
            }
        default: break
        }
    }
}
