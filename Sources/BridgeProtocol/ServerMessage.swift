import Foundation

/// Every frame the server sends.
public enum ServerMessage: Sendable, Hashable {
    case helloAck(HelloAck)
    case pong(Pong)
    case error(ErrorMessage)
    /// The successful answer to the request with this `id`.
    case response(id: String, BridgeResponse)
    case event(ThreadEvent)
    case approvalRequest(ApprovalRequest)
    case approvalResolved(ApprovalResolved)
    case inputRequest(InputRequest)
    case inputResolved(InputResolved)
    case messageQueued(MessageQueued)
    case messageUnqueued(MessageUnqueued)
    case queueChanged(QueueChanged)
    case commandStarted(CommandStarted)
    case commandOutput(CommandOutput)
    case commandExited(CommandExited)
    /// Sent instead of `helloAck` while the workstation confirms a pairing (`serve --confirm-pairing`).
    case pairingPending(PairingPending)
    /// The device's scopes changed; the connection has these from now on.
    case scopesChanged(ScopesChanged)
    /// The device's request for scopes was denied or expired.
    case scopeRequestEnded(ScopeRequestEnded)
    /// A machine of the fleet changed state (fleet sessions only).
    case machineChanged(MachineChanged)

    /// The wire `kind`.
    public var kind: String {
        switch self {
        case .helloAck: "helloAck"
        case .pong: "pong"
        case .error: "error"
        case .response(_, let response): response.kind
        case .event: "event"
        case .approvalRequest: "approvalRequest"
        case .approvalResolved: "approvalResolved"
        case .inputRequest: "inputRequest"
        case .inputResolved: "inputResolved"
        case .messageQueued: "messageQueued"
        case .messageUnqueued: "messageUnqueued"
        case .queueChanged: "queueChanged"
        case .commandStarted: "commandStarted"
        case .commandOutput: "commandOutput"
        case .commandExited: "commandExited"
        case .pairingPending: "pairingPending"
        case .scopesChanged: "scopesChanged"
        case .scopeRequestEnded: "scopeRequestEnded"
        case .machineChanged: "machineChanged"
        }
    }

    /// The journal sequence number of journaled messages.
    public var seq: Int64? {
        switch self {
        case .event(let event): event.seq
        case .approvalRequest(let request): request.seq
        case .approvalResolved(let resolved): resolved.seq
        case .inputRequest(let request): request.seq
        case .inputResolved(let resolved): resolved.seq
        case .messageQueued(let queued): queued.seq
        case .messageUnqueued(let unqueued): unqueued.seq
        case .queueChanged(let changed): changed.seq
        case .commandStarted(let started): started.seq
        case .commandOutput(let output): output.seq
        case .commandExited(let exited): exited.seq
        default: nil
        }
    }

    /// Encodes this message as one JSON text frame.
    public func encoded(encoder: JSONEncoder = ServerMessage.defaultEncoder) throws -> Data {
        switch self {
        case .helloAck(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .pong(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .error(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .event(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .approvalRequest(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .approvalResolved(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .inputRequest(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .inputResolved(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .messageQueued(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .messageUnqueued(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .queueChanged(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .commandStarted(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .commandOutput(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .commandExited(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .pairingPending(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .scopesChanged(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .scopeRequestEnded(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .machineChanged(let value): return try encoder.encode(Tagged(kind: kind, payload: value))
        case .response(let id, let response):
            return try encoder.encode(Tagged(kind: kind, id: id, payload: AnyEncodable(response.parts.payload)))
        }
    }

    /// This message as one JSON text frame. Events (the relay's hot path) are written directly; the text is the
    /// same as `encoded()` produces.
    ///
    /// `eventDataJSON`: for an `event`, the JSON text to send as `data` instead of encoding `data` (a relay
    /// passes on the text it received; it must be valid JSON for the same value).
    public func encodedText(encoder: JSONEncoder = ServerMessage.defaultEncoder, eventDataJSON: String? = nil) throws -> String {
        if case .event(let event) = self {
            var out = "{\"data\":"
            if let eventDataJSON {
                out += eventDataJSON
            } else {
                event.data.write(to: &out)
            }
            out += ",\"kind\":\"event\",\"seq\":"
            out += String(event.seq)
            out += ",\"threadId\":"
            JSONValue.writeString(event.threadId, to: &out)
            if let turnId = event.turnId {
                out += ",\"turnId\":"
                JSONValue.writeString(turnId, to: &out)
            }
            out += ",\"type\":"
            JSONValue.writeString(event.type, to: &out)
            out += "}"
            return out
        }
        return String(decoding: try encoded(encoder: encoder), as: UTF8.self)
    }

    /// Sorted keys keep frames byte-stable (journal, tests); slashes stay unescaped for readability.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Decodes one server frame (for clients).
    public static func decode(_ data: Data, decoder: JSONDecoder = JSONDecoder()) throws -> ServerMessage {
        struct Head: Decodable {
            var kind: String
            var id: String?
        }
        let head = try decoder.decode(Head.self, from: data)
        func payload<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, from: data) }
        func response(_ response: BridgeResponse) throws -> ServerMessage {
            guard let id = head.id else {
                throw DecodingError.keyNotFound(
                    Tagged<Ping>.CodingKeys.id, .init(codingPath: [], debugDescription: "answer without id"))
            }
            return .response(id: id, response)
        }
        switch head.kind {
        case "helloAck": return .helloAck(try payload(HelloAck.self))
        case "pong": return .pong(try payload(Pong.self))
        case "error": return .error(try payload(ErrorMessage.self))
        case "event": return .event(try payload(ThreadEvent.self))
        case "approvalRequest": return .approvalRequest(try payload(ApprovalRequest.self))
        case "approvalResolved": return .approvalResolved(try payload(ApprovalResolved.self))
        case "inputRequest": return .inputRequest(try payload(InputRequest.self))
        case "inputResolved": return .inputResolved(try payload(InputResolved.self))
        case "messageQueued": return .messageQueued(try payload(MessageQueued.self))
        case "messageUnqueued": return .messageUnqueued(try payload(MessageUnqueued.self))
        case "queueChanged": return .queueChanged(try payload(QueueChanged.self))
        case "commandStarted": return .commandStarted(try payload(CommandStarted.self))
        case "commandOutput": return .commandOutput(try payload(CommandOutput.self))
        case "commandExited": return .commandExited(try payload(CommandExited.self))
        case "pairingPending": return .pairingPending(try payload(PairingPending.self))
        case "scopesChanged": return .scopesChanged(try payload(ScopesChanged.self))
        case "scopeRequestEnded": return .scopeRequestEnded(try payload(ScopeRequestEnded.self))
        case "machineChanged": return .machineChanged(try payload(MachineChanged.self))
        default:
            guard let kind = ResponseKind(rawValue: head.kind) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown kind \(head.kind)"))
            }
            return try response(kind.decode(data, decoder: decoder))
        }
    }
}
