import Foundation

/// One right a paired device may hold. Every request kind needs exactly one (``RequestKind/scope``).
public enum Scope: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
    /// List, subscribe to and read threads, their events, diffs and files, git status, usage.
    case observe
    /// Start threads, send, steer, queue and interrupt, upload, rename, archive, delete, compact, fork, review, change
    /// a thread's settings; commit, branch, switch, worktrees.
    case operate
    /// Answer approvals and questions (in the app and from notifications), override the automatic reviewer's denials.
    case approve
    /// Push and open pull requests.
    case publish
    /// Run commands (`!command`).
    case run
    /// Pair, list, scope and revoke devices, and read the audit log, from the phone.
    case admin

    /// The order scopes are listed in (the order of the cases).
    public static func < (lhs: Scope, rhs: Scope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A set of ``Scope``s: what one device may do. On the wire and in the database a list of scope names in the
/// canonical order (`["observe","operate","approve"]`; `"observe,operate,approve"` on the command line).
public struct Scopes: Sendable, Hashable, Codable, CustomStringConvertible, Sequence {
    private var members: Set<Scope>

    public init(_ scopes: some Sequence<Scope>) { members = Set(scopes) }

    /// What a device gets when nobody says otherwise: everything a paired phone could do before scopes existed.
    public static let standard = Scopes([.observe, .operate, .approve])
    /// Every scope: the shared secret's rights.
    public static let all = Scopes(Scope.allCases)
    /// No scope at all.
    public static let none = Scopes([])

    public func contains(_ scope: Scope) -> Bool { members.contains(scope) }
    public var isEmpty: Bool { members.isEmpty }
    /// The scopes in canonical order.
    public var sorted: [Scope] { Scope.allCases.filter(members.contains) }
    public func makeIterator() -> IndexingIterator<[Scope]> { sorted.makeIterator() }

    public func union(_ other: Scopes) -> Scopes { Scopes(members.union(other.members)) }
    public func subtracting(_ other: Scopes) -> Scopes { Scopes(members.subtracting(other.members)) }

    /// `observe,operate,approve`: the command-line and database form.
    public var description: String { sorted.map(\.rawValue).joined(separator: ",") }

    /// Parses a comma-separated list (spaces ignored, any case, duplicates allowed). `all` means every scope.
    /// - Throws: ``ScopeListError`` naming the first unknown word, or an empty list.
    public init(parsing text: String) throws(ScopeListError) {
        let words = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        guard !words.isEmpty else { throw ScopeListError(message: "a scope list must name at least one of \(Self.all)") }
        var scopes = Set<Scope>()
        for word in words {
            if word == "all" {
                scopes.formUnion(Scope.allCases)
            } else if let scope = Scope(rawValue: word) {
                scopes.insert(scope)
            } else {
                throw ScopeListError(message: "unknown scope \"\(word.prefix(40))\"; scopes are \(Self.all) (or all)")
            }
        }
        members = scopes
    }

    /// Reads a stored list leniently: unknown names (from a newer version) are skipped.
    public init(stored text: String) {
        members = Set(text.split(separator: ",").compactMap { Scope(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        members = Set(names.compactMap(Scope.init(rawValue:)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(sorted.map(\.rawValue))
    }
}

/// A scope list that cannot be read (`pair --scope`, `devices scope`, `setDeviceScopes`).
public struct ScopeListError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
