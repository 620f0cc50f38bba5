import NIOCore
import NIOWebSocket

/// The rules for a close frame a peer sent (RFC 6455 §5.5.1, §7.4): what the server answers.
enum PeerClose: Equatable {
    /// A well-formed close: answer with this code (the peer's own, or 1000 for an empty payload).
    case answer(code: UInt16)
    /// A malformed close: answer with 1002 (bad length or code) or 1007 (a reason that is not UTF-8).
    case violation(code: UInt16)

    init(payload: ByteBuffer) {
        var payload = payload
        guard payload.readableBytes > 0 else {
            self = .answer(code: 1000)
            return
        }
        guard let code = payload.readInteger(as: UInt16.self) else {
            self = .violation(code: 1002)
            return
        }
        guard Self.isValidReceived(code) else {
            self = .violation(code: 1002)
            return
        }
        guard String(validating: payload.readableBytesView, as: UTF8.self) != nil else {
            self = .violation(code: 1007)
            return
        }
        self = .answer(code: code)
    }

    /// Codes a peer may send: the ones RFC 6455 defines for use in a close frame, and the ranges for
    /// libraries (3000–3999) and applications (4000–4999). 1004–1006 and 1015 are reserved and never sent;
    /// the rest of 0–2999 is unassigned.
    static func isValidReceived(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }
}
