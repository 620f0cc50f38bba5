import BridgeHub
import BridgeProtocol
import Synchronization

/// Voice on a linked machine's thread (BRIDGE.md, Voice): only the WebRTC path goes through the link (the audio
/// then flows between the phone and the model, not through either bridge); the live channel's audio reaches
/// only this bridge's own threads. A session belongs to the link's connection at that machine, so when the phone
/// that started it leaves this bridge, this bridge stops it there (nothing stays open). A machine whose bridge
/// has no voice (an older one answers `unknown_kind`) is `voice_unavailable`.
final class FleetVoices: Sendable {
    /// The voice sessions each phone's session started on linked machines: session id → (machine, thread).
    private let started = Mutex<[UInt64: [(machine: String, threadId: String)]]>([:])

    static let kinds: Set<RequestKind> = [.listVoices, .startVoice, .stopVoice]

    /// The refusal of a voice request for `machine` before it goes there, if any.
    static func refusal(_ request: BridgeRequest, id: String, machine: MachineRef) -> ErrorMessage? {
        guard let start = request.payload(as: StartVoice.self), start.sdp == nil else { return nil }
        return ErrorMessage(
            id: id, code: .voiceUnavailable,
            message:
                "audio through the bridge reaches only this workstation's own threads; \(machine.name)'s threads take voice over WebRTC (startVoice with sdp)",
            machine: machine.id)
    }

    /// The machine's error for a voice request, in voice's words when its bridge has none.
    static func translated(_ error: ErrorMessage, _ request: BridgeRequest, machine: MachineRef) -> ErrorMessage {
        guard kinds.contains(request.requestKind), error.code == .unknownKind else { return error }
        return ErrorMessage(
            id: error.id, code: .voiceUnavailable,
            message: "\(machine.name)'s bridge has no voice (an older version); update codex-bridge there", machine: machine.id)
    }

    /// The machine answered `request`: remember a start, forget a stop.
    func answered(_ request: BridgeRequest, _ answer: ServerMessage, session: UInt64, machine: String) {
        guard case .response = answer, let threadId = request.threadId else { return }
        started.withLock { started in
            var mine = started[session, default: []].filter { $0.threadId != threadId || $0.machine != machine }
            if request.requestKind == .startVoice { mine.append((machine, threadId)) }
            started[session] = mine.isEmpty ? nil : mine
        }
    }

    /// The phone's session closed: the sessions it started on linked machines, forgotten.
    func take(session: UInt64) -> [(machine: String, threadId: String)] {
        started.withLock { $0.removeValue(forKey: session) ?? [] }
    }
}
