/// What git's configuration says, as `git config --list --show-scope --null` printed it (includes resolved): every
/// entry with the scope it came from. Read before a git run so the run can override, or refuse, what a
/// repository configures; reading configuration runs nothing.
struct GitConfigSnapshot: Sendable, Hashable {
    /// Where an entry came from. Files a repository can change are `local` and `worktree` (and any file they
    /// include, which git reports with the includer's scope).
    enum Scope: String, Sendable, Hashable {
        case system, global, local, worktree, command, unknown
    }

    /// One entry; `key` as git prints it (section and name lowercased, a subsection as written).
    struct Entry: Sendable, Hashable {
        var scope: Scope
        var key: String
        /// nil for a key written without `=` (a boolean true).
        var value: String?
    }

    var entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// Parses `git config --list --show-scope --null` output: `scope NUL key LF value NUL` per entry (no LF and
    /// value for a key without one). Command-line entries (the bridge's own overrides) are left out: this is what
    /// the files say.
    init(listing: [UInt8]) {
        var entries: [Entry] = []
        var fields = listing.split(separator: 0, omittingEmptySubsequences: false)[...]
        while let scopeField = fields.popFirst() {
            guard let body = fields.popFirst() else { break }
            let scope = Scope(rawValue: String(decoding: scopeField, as: UTF8.self)) ?? .unknown
            if scope == .command { continue }
            if let newline = body.firstIndex(of: 0x0A) {
                entries.append(
                    Entry(
                        scope: scope, key: String(decoding: body[body.startIndex..<newline], as: UTF8.self),
                        value: String(decoding: body[(newline + 1)...], as: UTF8.self)))
            } else {
                entries.append(Entry(scope: scope, key: String(decoding: body, as: UTF8.self), value: nil))
            }
        }
        self.entries = entries
    }

    /// Whether an entry's file is one the repository (and so the agent) could have written.
    static func isRepositoryScope(_ scope: Scope) -> Bool { scope == .local || scope == .worktree || scope == .unknown }

    /// The value git would use for a single-valued key (the last one), from any scope.
    func value(_ key: String) -> String? {
        let wanted = key.lowercased()
        return entries.last { $0.key.lowercased() == wanted }.map { $0.value ?? "true" }
    }

    /// The entries in the repository's own files.
    var repositoryEntries: [Entry] { entries.filter { Self.isRepositoryScope($0.scope) } }

    /// The user's global entries, in order.
    var globalEntries: [Entry] { entries.filter { $0.scope == .global } }

    /// `section.<sub>.name` split at the first and last dot: (section, subsection, name); nil without a subsection.
    static func split(_ key: String) -> (section: String, subsection: String, name: String)? {
        guard let first = key.firstIndex(of: "."), let last = key.lastIndex(of: "."), first < last else { return nil }
        return (
            String(key[..<first]).lowercased(), String(key[key.index(after: first)..<last]),
            String(key[key.index(after: last)...]).lowercased()
        )
    }

    /// Filter drivers some file configures with a program (`filter.<driver>.clean|smudge|process`), or marks
    /// required.
    var filterDrivers: Set<String> {
        var drivers: Set<String> = []
        for entry in entries {
            guard let (section, driver, name) = Self.split(entry.key), section == "filter",
                ["clean", "smudge", "process", "required"].contains(name), !driver.isEmpty
            else { continue }
            drivers.insert(driver)
        }
        return drivers
    }

    /// The first entry that configures a program for filter `driver`, for naming it in a refusal.
    func filterKey(_ driver: String) -> String {
        entries.first {
            guard let (section, name, key) = Self.split($0.key) else { return false }
            return section == "filter" && name == driver && key != "required"
        }?.key ?? "filter.\(driver).clean"
    }

    /// Transports some file allows or forbids by name (`protocol.<name>.allow`).
    var protocolNames: Set<String> {
        Set(
            entries.compactMap { entry in
                guard let (section, name, key) = Self.split(entry.key), section == "protocol", key == "allow" else { return nil }
                return name
            })
    }

    /// The first entry in the repository's own files whose key `matches`.
    func firstRepositoryEntry(where matches: (Entry) -> Bool) -> Entry? {
        repositoryEntries.first(where: matches)
    }
}
