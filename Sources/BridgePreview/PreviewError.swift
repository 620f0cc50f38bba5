import BridgeProtocol

/// Why a preview request was refused, with the wire code it is answered with.
public struct PreviewError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a client can act on it.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case notFound, badRequest, forbidden, tooBroad, unavailable
        }
        fileprivate let value: Value

        /// The port is not one of the thread's servers (or no longer listens).
        public static let notFound = Code(value: .notFound)
        /// The request itself is malformed (a port out of range).
        public static let badRequest = Code(value: .badRequest)
        /// This session may not open previews (a revoked device).
        public static let forbidden = Code(value: .forbidden)
        /// The thread's directory is `/` or a home directory (or holds one): it owns no server.
        public static let tooBroad = Code(value: .tooBroad)
        /// The preview origins are not listening (yet, or any more), or all are held by other previews.
        public static let unavailable = Code(value: .unavailable)

        /// The `error` frame's code.
        public var wire: BridgeErrorCode {
            switch value {
            case .notFound: .notFound
            case .badRequest: .badRequest
            case .forbidden, .tooBroad: .forbidden
            case .unavailable: .failed
            }
        }

        public var description: String { wire.rawValue }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
