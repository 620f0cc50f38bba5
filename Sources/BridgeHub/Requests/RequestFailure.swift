import BridgeGit
import BridgePreview
import BridgeProtocol
import CodexControl

/// How a failed request reaches the client: the error types of the parts behind the hub (Codex, git, previews)
/// are mapped to their wire codes here, at one edge, so the hub and the routes in front of it answer alike.
package enum RequestFailure {
    /// The `error` frame of `error`; nil for an error of a type none of the parts declares (an internal error,
    /// which the caller logs and answers without its text).
    static func message(id: String, for error: any Error) -> ErrorMessage? {
        switch error {
        case let error as HubError: ErrorMessage(id: id, code: error.code, message: error.message)
        case let error as CodexError: codexMessage(id: id, for: error)
        case let error as GitError: ErrorMessage(id: id, code: error.code.wire, message: error.message)
        case let error as PreviewError: ErrorMessage(id: id, code: error.code.wire, message: error.message)
        default: nil
        }
    }

    /// Codex's failure in the bridge's words: not running, no such thread, or Codex's own error. Not an overload of
    /// ``message(id:for:)``: where an optional is expected, the compiler picks that one and it would call itself.
    package static func codexMessage(id: String, for error: CodexError) -> ErrorMessage {
        switch error.code {
        case .unavailable: ErrorMessage(id: id, code: .codexUnavailable, message: error.message)
        case .rpc where error.isThreadNotFound: ErrorMessage(id: id, code: .notFound, message: error.message)
        default: ErrorMessage(id: id, code: .codexError, message: error.message)
        }
    }

    /// Whether a request failed because Codex is not running (stopped, restarting), not because of the request.
    static func codexIsAway(_ error: any Error) -> Bool {
        guard let error = error as? CodexError else { return false }
        return error.code == .unavailable || error.code == .exited
    }
}
