/// Names the bridge hands to git as branch and remote names: git's `check-ref-format --branch` rules, checked
/// before git sees them (so no name can read as an option or a revision expression).
enum GitRefName {
    /// Whether `name` is a branch name git accepts (`refs/heads/<name>` would be a valid ref), at most 200 bytes.
    static func isValidBranch(_ name: String) -> Bool {
        guard (1...200).contains(name.utf8.count), name != "@", name != "HEAD", !name.hasPrefix("-"), !name.hasPrefix("/"),
            !name.hasSuffix("/"), !name.hasSuffix("."), !name.contains(".."), !name.contains("//"), !name.contains("@{")
        else { return false }
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || " ~^:?*[\\".unicodeScalars.contains(scalar) { return false }
        }
        for component in name.split(separator: "/") where component.hasPrefix(".") || component.hasSuffix(".lock") {
            return false
        }
        return true
    }

    /// Whether `name` is a remote name the bridge passes to git: a branch name without `/`.
    static func isValidRemote(_ name: String) -> Bool {
        isValidBranch(name) && !name.contains("/")
    }
}
