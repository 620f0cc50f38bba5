import BridgeProtocol
import Foundation

/// What a client believes of a server's frame: the one place where text from the network becomes a
/// ``ServerMessage`` the client acts on, and where every number it acts on is range-checked before any
/// conversion (issue 44: `pairingPending {expiresAt: 1e300}` trapped in `Int64(wait * 1000)` and took the home
/// bridge down). A frame that breaks a rule is a ``BridgeClientError/protocolViolation(_:)``: the connection
/// closes with that error and nothing else happens. Pure functions, tested without sockets.
///
/// The rules:
/// - a frame is a JSON object with a string `kind`; a kind this client does not know is ignored (servers add
///   kinds), a known one that does not decode (a member missing or of the wrong type, an integer beyond 64 bits)
///   is a violation;
/// - a journaled message's `seq` and `helloAck.lastSeq` are 0 or more;
/// - `pairingPending.expiresAt` is a finite time within a day of this machine's clock, and the wait it gives is
///   at most ``maxPairingWait``.
public enum ServerFrameRules {
    /// The longest a client waits for a workstation to confirm a pairing (a bridge waits 5 minutes; more covers a
    /// clock that differs a little), whatever `expiresAt` says.
    public static let maxPairingWait: TimeInterval = 600
    /// How far `expiresAt` may lie from this machine's clock before it is not believed at all.
    public static let maxClockSkew: TimeInterval = 24 * 3600

    /// The frame as a message; nil for a kind this client does not know.
    /// - Throws: `protocolViolation` for anything else that does not decode, or breaks a range rule.
    public static func decode(_ text: String) throws(BridgeClientError) -> ServerMessage? {
        let data = Data(text.utf8)
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(data)
        } catch {
            guard let kind = Self.kind(of: data) else {
                throw .protocolViolation("not a JSON object with a string kind")
            }
            guard Self.knownKinds.contains(kind) else { return nil }
            throw .protocolViolation("\(shown(kind)): \(shown(Self.describe(error)))")
        }
        try check(message)
        return message
    }

    /// The range rules for a decoded message.
    public static func check(_ message: ServerMessage) throws(BridgeClientError) {
        if let seq = message.seq, seq < 0 {
            throw .protocolViolation("\(message.kind).seq \(seq) is negative")
        }
        if case .helloAck(let ack) = message, let lastSeq = ack.lastSeq, lastSeq < 0 {
            throw .protocolViolation("helloAck.lastSeq \(lastSeq) is negative")
        }
        if case .pairingPending(let pending) = message {
            _ = try pairingWait(expiresAt: pending.expiresAt, now: Date().timeIntervalSince1970)
        }
    }

    /// How long to wait for the workstation after `pairingPending`: until `expiresAt` (at least a second, at most
    /// ``maxPairingWait``), plus 10 s for the answer to travel.
    /// - Throws: `protocolViolation` when `expiresAt` is not finite or not within ``maxClockSkew`` of `now`.
    public static func pairingWait(expiresAt: Double, now: TimeInterval) throws(BridgeClientError) -> Duration {
        guard expiresAt.isFinite, abs(expiresAt - now) <= maxClockSkew else {
            throw .protocolViolation("pairingPending.expiresAt \(expiresAt) is not a time within a day of now")
        }
        let seconds = min(max(1, expiresAt - now), maxPairingWait) + 10
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Every kind a server frame may have that this client decodes.
    static let knownKinds: Set<String> = Set(
        [
            "helloAck", "pong", "error", "event", "approvalRequest", "approvalResolved", "inputRequest", "inputResolved",
            "messageQueued", "messageUnqueued", "queueChanged", "commandStarted", "commandOutput", "commandExited", "pairingPending",
            "scopesChanged", "scopeRequestEnded", "machineChanged",
        ] + ResponseKind.allCases.map(\.rawValue))

    private static func kind(of data: Data) -> String? {
        guard case .object(let object) = try? JSONValue(parsing: data), case .string(let kind) = object["kind"] else { return nil }
        return kind
    }

    /// A decoding error as a short phrase naming the member.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// At most 100 characters of what the server wrote, for an error message.
    private static func shown(_ text: String) -> String {
        text.count > 100 ? String(text.prefix(100)) + "…" : text
    }
}
