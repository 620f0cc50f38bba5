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
        let request: BridgeRequest
        switch requestKind {
        case .listThreads: request = .listThreads(try payload(ListThreads.self))
        case .startThread: request = .startThread(try payload(StartThread.self))
        case .sendMessage: request = .sendMessage(try payload(SendMessage.self))
        case .interrupt: request = .interrupt(try payload(ThreadRef.self))
        case .subscribe: request = .subscribe(try payload(Subscribe.self))
        case .unsubscribe: request = .unsubscribe(try payload(ThreadRef.self))
        case .readThread: request = .readThread(try payload(ThreadRef.self))
        case .getDiff: request = .getDiff(try payload(ThreadRef.self))
        case .approve: request = .approve(try payload(Approve.self))
        case .listDirectory: request = .listDirectory(try payload(ListDirectory.self))
        case .listModels: request = .listModels(try payload(ListModels.self))
        case .renameThread: request = .renameThread(try payload(RenameThread.self))
        case .archiveThread: request = .archiveThread(try payload(ThreadRef.self))
        case .unarchiveThread: request = .unarchiveThread(try payload(ThreadRef.self))
        case .readFile: request = .readFile(try payload(ReadFile.self))
        case .usage: request = .usage(try payload(UsageRequest.self))
        case .pushSubscribe: request = .pushSubscribe(try payload(PushSubscribe.self))
        case .pushUnsubscribe: request = .pushUnsubscribe(try payload(PushUnsubscribe.self))
        case .presence: request = .presence(try payload(Presence.self))
        case .answerInput: request = .answerInput(try payload(AnswerInput.self))
        case .cancelQueued: request = .cancelQueued(try payload(CancelQueued.self))
        case .searchFiles: request = .searchFiles(try payload(SearchFiles.self))
        case .startReview: request = .startReview(try payload(StartReview.self))
        case .forkThread: request = .forkThread(try payload(ForkThread.self))
        case .listSkills: request = .listSkills(try payload(ListSkills.self))
        case .gitStatus: request = .gitStatus(try payload(ThreadRef.self))
        case .gitCommit: request = .gitCommit(try payload(GitCommit.self))
        case .gitBranch: request = .gitBranch(try payload(GitBranch.self))
        case .gitSwitch: request = .gitSwitch(try payload(GitSwitch.self))
        case .gitPush: request = .gitPush(try payload(GitPush.self))
        case .gitCommitMessage: request = .gitCommitMessage(try payload(ThreadRef.self))
        case .gitPullRequest: request = .gitPullRequest(try payload(GitPullRequest.self))
        case .runCommand: request = .runCommand(try payload(RunCommand.self))
        case .stopCommand: request = .stopCommand(try payload(StopCommand.self))
        case .removeWorktree: request = .removeWorktree(try payload(RemoveWorktree.self))
        case .listDevices: request = .listDevices(try payload(ListDevices.self))
        case .setDeviceScopes: request = .setDeviceScopes(try payload(SetDeviceScopes.self))
        case .renameDevice: request = .renameDevice(try payload(RenameDevice.self))
        case .requestScopes: request = .requestScopes(try payload(RequestScopes.self))
        case .revokeDevice: request = .revokeDevice(try payload(RevokeDevice.self))
        case .pairDevice: request = .pairDevice(try payload(PairDevice.self))
        case .listAudit: request = .listAudit(try payload(ListAudit.self))
        case .setGoal: request = .setGoal(try payload(SetGoal.self))
        case .clearGoal: request = .clearGoal(try payload(ThreadRef.self))
        case .listMachines: request = .listMachines(try payload(ListMachines.self))
        case .addMachine: request = .addMachine(try payload(AddMachine.self))
        case .removeMachine: request = .removeMachine(try payload(RemoveMachine.self))
        case .renameMachine: request = .renameMachine(try payload(RenameMachine.self))
        case .compactThread: request = .compactThread(try payload(ThreadRef.self))
        case .deleteThread: request = .deleteThread(try payload(ThreadRef.self))
        case .searchThreads: request = .searchThreads(try payload(SearchThreads.self))
        case .updateThreadSettings: request = .updateThreadSettings(try payload(UpdateThreadSettings.self))
        case .approveDeniedAction: request = .approveDeniedAction(try payload(ApproveDeniedAction.self))
        case .listPreviews: request = .listPreviews(try payload(ThreadRef.self))
        case .openPreview: request = .openPreview(try payload(OpenPreview.self))
        }
        return .request(id: id, request)
    }

    /// Encodes this message as one JSON text frame.
    public func encoded(encoder: JSONEncoder = JSONEncoder()) throws -> Data {
        switch self {
        case .hello(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .ping(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .ack(let value): return try encoder.encode(Tagged(kind: kind, id: nil, payload: value))
        case .request(let id, let request):
            switch request {
            case .listThreads(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .startThread(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .sendMessage(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .interrupt(let value), .unsubscribe(let value), .readThread(let value), .getDiff(let value):
                return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .subscribe(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .approve(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listDirectory(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listModels(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .renameThread(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .archiveThread(let value), .unarchiveThread(let value):
                return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .readFile(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .usage(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .pushSubscribe(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .pushUnsubscribe(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .presence(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .answerInput(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .cancelQueued(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .searchFiles(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .startReview(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .forkThread(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listSkills(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitStatus(let value), .gitCommitMessage(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitCommit(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitBranch(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitSwitch(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitPush(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .gitPullRequest(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .runCommand(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .stopCommand(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .removeWorktree(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listDevices(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .setDeviceScopes(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .renameDevice(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .requestScopes(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .revokeDevice(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .pairDevice(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listAudit(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listMachines(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .addMachine(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .removeMachine(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .renameMachine(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .setGoal(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .clearGoal(let value), .compactThread(let value), .deleteThread(let value):
                return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .searchThreads(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .updateThreadSettings(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .approveDeniedAction(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .listPreviews(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            case .openPreview(let value): return try encoder.encode(Tagged(kind: kind, id: id, payload: value))
            }
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

    enum CodingKeys: CodingKey { case kind, id }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(id, forKey: .id)
        try payload.encode(to: encoder)
    }
}
