import Foundation

/// Every frame a client can send.
public enum ClientMessage: Sendable, Hashable {
    case hello(Hello)
    case ping(Ping)
    case ack(Ack)
    /// A request with its client-chosen `id`; it gets exactly one answer with that `id`.
    case request(id: String, BridgeRequest)

    /// The wire `kind`.
    public var kind: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .ack: "ack"
        case .request(_, let request): request.kind
        }
    }
}

/// Why a client frame could not be decoded; carries what could be read of it so the answer can echo `id`.
public struct FrameDecodingError: Error, Sendable, Hashable {
    /// The `kind` member, when it was a string.
    public var kind: String?
    /// The `id` member, when it was a string.
    public var id: String?
    /// `bad_request` or `unknown_kind`.
    public var code: BridgeErrorCode
    /// What was wrong, for a human.
    public var message: String
}

private struct Envelope: Decodable {
    var kind: String?
    var id: String?

    enum CodingKeys: CodingKey { case kind, id }

    /// `onBehalfOf`, read only for requests (strictly: a malformed one is refused).
    struct Behalf: Decodable {
        var onBehalfOf: OnBehalfOf?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Lenient: a wrongly typed kind or id is reported as missing rather than failing the envelope.
        kind = try? container.decodeIfPresent(String.self, forKey: .kind)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
    }
}

extension ClientMessage {
    /// Decodes one text frame. Unknown members are ignored.
    /// - Throws: ``FrameDecodingError`` describing what was wrong.
    public static func decode(_ data: Data, decoder: JSONDecoder = JSONDecoder()) throws(FrameDecodingError) -> ClientMessage {
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: data)
        } catch {
            throw FrameDecodingError(kind: nil, id: nil, code: .badRequest, message: "frame is not a JSON object")
        }
        guard let kind = envelope.kind else {
            throw FrameDecodingError(kind: nil, id: envelope.id, code: .badRequest, message: "missing string member 'kind'")
        }
        func payload<T: Decodable>(_ type: T.Type) throws(FrameDecodingError) -> T {
            do {
                return try decoder.decode(T.self, from: data)
            } catch {
                throw FrameDecodingError(
                    kind: kind, id: envelope.id, code: .badRequest, message: "invalid '\(kind)': \(Self.describe(error))")
            }
        }
        switch kind {
        case "hello": return .hello(try payload(Hello.self))
        case "ping": return .ping(try payload(Ping.self))
        case "ack": return .ack(try payload(Ack.self))
        default: break
        }
        guard let requestKind = RequestKind(rawValue: kind) else {
            throw FrameDecodingError(kind: kind, id: envelope.id, code: .unknownKind, message: "unknown kind '\(kind.prefix(64))'")
        }
        guard let id = envelope.id, !id.isEmpty, id.utf8.count <= 128 else {
            throw FrameDecodingError(
                kind: kind, id: nil, code: .badRequest, message: "request '\(kind)' needs a string 'id' of 1 to 128 bytes")
        }
        func decodePayload<Payload: RequestPayload>(_ type: Payload.Type) throws -> any RequestPayload {
            try decoder.decode(Payload.self, from: data)
        }
        let request: any RequestPayload
        do {
            request = try decodePayload(requestKind.descriptor.payload)
        } catch {
            throw FrameDecodingError(kind: kind, id: envelope.id, code: .badRequest, message: "invalid '\(kind)': \(Self.describe(error))")
        }
        var decoded = BridgeRequest(decoded: requestKind, request)
        do {
            decoded.onBehalfOf = try decoder.decode(Envelope.Behalf.self, from: data).onBehalfOf
        } catch {
            throw FrameDecodingError(kind: kind, id: id, code: .badRequest, message: "invalid 'onBehalfOf': \(Self.describe(error))")
        }
        if let problem = decoded.onBehalfOf?.problem { throw FrameDecodingError(kind: kind, id: id, code: .badRequest, message: problem) }
        return .request(id: id, decoded)
    }

    /// Encodes this message as one JSON text frame.
    public func encoded(encoder: JSONEncoder = JSONEncoder()) throws -> Data {
        switch self {
        case .hello(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .ping(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .ack(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .request(let id, let request):
            return try encoder.encode(Tagged(kind: kind, id: id, payload: AnyEncodable(request.payload), onBehalfOf: request.onBehalfOf))
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing member '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted(let context):
            "invalid value for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        default: "malformed"
        }
    }
}

/// Encodes `kind` (and `id`) next to a payload's own members in one JSON object.
struct Tagged<Payload: Encodable>: Encodable {
    var kind: String
    var id: String?
    var payload: Payload
    var onBehalfOf: OnBehalfOf? = nil

    enum CodingKeys: CodingKey { case kind, id, onBehalfOf }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(onBehalfOf, forKey: .onBehalfOf)
        try payload.encode(to: encoder)
    }
}

/// Encodes the value it wraps (a payload known only by its protocol).
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
