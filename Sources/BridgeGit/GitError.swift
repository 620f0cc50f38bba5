import BridgeProtocol

/// Why a git request (or the work tree behind a diff or a worktree) was refused, with the wire code the hub answers
/// it with (``Code/wire``).
package struct GitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a client can act on it.
    package enum Code: Sendable, Hashable {
        /// The request itself is malformed (a bad branch name, a path outside the thread's directory, no repository).
        case badRequest
        /// The repository's state refuses it now (a branch that exists, a push the remote rejects).
        case conflict
        /// What it names does not exist (a branch).
        case notFound
        /// A push with nowhere to go: the repository has no remote of the name it would push to (`origin`).
        case noRemote
        /// The repository asks for something the bridge will not run (a hook, a filter, a `.git` leading elsewhere).
        case unsafeRepository
        /// A directory git made is not inside the roots (a new worktree's, which is removed again).
        case forbiddenPath
        /// git failed (or is not installed).
        case failed
        /// git could not read what it always can (a bug or a broken repository).
        case `internal`

        /// The `error` frame's code.
        package var wire: BridgeErrorCode {
            switch self {
            case .badRequest: .badRequest
            case .conflict: .conflict
            case .notFound: .notFound
            case .noRemote: .noRemote
            case .unsafeRepository: .unsafeRepository
            case .forbiddenPath: .forbiddenPath
            case .failed: .failed
            case .internal: .internal
            }
        }
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.wire.rawValue): \(message)" }
}
