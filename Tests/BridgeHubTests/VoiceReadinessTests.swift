import BridgeProtocol
import Foundation
import Testing

@testable import BridgeHub

/// Voice's refusals from what Codex reports (`account/read`, `experimentalFeature/list`, `thread/turns/list`), and
/// the voice sessions' state machine, without a socket.
@Suite struct VoiceReadinessTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func aChatGPTSignInOnOpenAIsProviderIsReady() throws {
        let account = try Self.json(#"{"account":{"type":"chatgpt","email":"a@b","planType":"plus"},"requiresOpenaiAuth":true}"#)
        #expect(VoiceReadiness.refusal(account: account) == nil)
    }

    @Test func eachMissingPieceHasItsCode() throws {
        let cases: [(String, BridgeErrorCode)] = [
            (#"{"account":null,"requiresOpenaiAuth":true}"#, .voiceNoLogin),
            (#"{"requiresOpenaiAuth":true}"#, .voiceNoLogin),
            (#"{"account":{"type":"apiKey"},"requiresOpenaiAuth":true}"#, .voiceAPIKey),
            (#"{"account":{"type":"amazonBedrock"},"requiresOpenaiAuth":true}"#, .voiceAPIKey),
            // A custom provider: Codex reports no account even with a ChatGPT auth.json.
            (#"{"account":null,"requiresOpenaiAuth":false}"#, .voiceAPIKey),
        ]
        for (text, code) in cases {
            #expect(VoiceReadiness.refusal(account: try Self.json(text))?.code == code, "\(text)")
        }
    }

    @Test func theFeatureMustBeListedAndOn() throws {
        let on = try Self.json(#"{"data":[{"name":"other","enabled":false},{"name":"realtime_conversation","enabled":true}]}"#)
        #expect(VoiceReadiness.refusal(features: on) == nil)
        let off = try Self.json(#"{"data":[{"name":"realtime_conversation","enabled":false}]}"#)
        #expect(VoiceReadiness.refusal(features: off)?.code == .voiceDisabled)
        #expect(VoiceReadiness.refusal(features: try Self.json(#"{"data":[]}"#))?.code == .voiceDisabled)
    }

    @Test func aThreadWithoutTurnsIsRefused() throws {
        #expect(VoiceReadiness.refusal(turns: try Self.json(#"{"data":[]}"#), threadId: "t")?.code == .voiceNoTurn)
        #expect(VoiceReadiness.refusal(turns: try Self.json(#"{"data":[{"id":"u1"}]}"#), threadId: "t") == nil)
    }

    @Test func voicesAreEachTransportsVersionsCheckedAndBounded() throws {
        let many = (0..<100).map { "\"v\($0)\"" }.joined(separator: ",")
        let result = try Self.json(
            #"{"voices":{"v1":["cove","Bad Name","\#(String(repeating: "a", count: 40))",\#(many)],"v2":["marin"],"defaultV1":"cove","defaultV2":"marin"}}"#
        )
        let list = VoiceReadiness.voices(result)
        #expect(list.voices.first == "cove")
        #expect(list.voices.count == VoiceList.maxVoices)
        #expect(!list.voices.contains("Bad Name"))
        #expect(list.defaultVoice == "cove")
        #expect(list.websocketVoices == ["marin"] && list.websocketDefaultVoice == "marin")
    }

    @Test func aThreadHasOneSessionOwnedByOneConnection() {
        var sessions = VoiceSessions()
        guard case .admitted(let first, nil) = sessions.admit(threadId: "t", owner: 1, transport: .webrtc, deviceId: "d") else {
            Issue.record("first start refused")
            return
        }
        // Another connection: refused while it lasts.
        #expect(sessions.admit(threadId: "t", owner: 2, transport: .websocket, deviceId: nil) == .conflict(first))
        #expect(sessions.started("t", attempt: first.attempt)?.phase == .running)
        // The same connection again: replaces it; the old start's answer no longer counts.
        guard case .admitted(let second, let replaced?) = sessions.admit(threadId: "t", owner: 1, transport: .websocket, deviceId: "d")
        else {
            Issue.record("restart refused")
            return
        }
        #expect(replaced.phase == .running)
        #expect(sessions.started("t", attempt: first.attempt) == nil)
        #expect(sessions.end("t", attempt: first.attempt) == nil)
        // Its connection closes: it ends, once.
        #expect(sessions.endAll(ownedBy: 1).map(\.attempt) == [second.attempt])
        #expect(sessions.end("t") == nil)
        #expect(sessions.count == 0)
    }

    /// The start publishes `started` through the hub's port after it marked the session running; an end in between
    /// (Codex's `closed`, the connection going, handled in the hub's step) waits for that `started`.
    @Test func anEndWhileTheStartIsAnnouncedGoesOutAfterIt() {
        var desk = VoiceDesk()
        guard case .admitted(let first, nil) = desk.sessions.admit(threadId: "t", owner: 1, transport: .websocket, deviceId: nil) else {
            Issue.record("start refused")
            return
        }
        // Ended before Codex answered: never announced, so no end either.
        let early = desk.sessions.end("t")
        #expect(early.map { desk.announcesEnd(of: $0, reason: .closed, message: nil) } == false)

        guard case .admitted(let second, nil) = desk.sessions.admit(threadId: "t", owner: 1, transport: .websocket, deviceId: nil),
            desk.announcing("t", attempt: second.attempt) != nil
        else {
            Issue.record("restart refused")
            return
        }
        #expect(desk.announcing("t", attempt: first.attempt) == nil)
        // Ended while its started is on its way: not now; the start tells it right after.
        let ended = desk.sessions.end("t")
        #expect(ended.map { desk.announcesEnd(of: $0, reason: .closed, message: "bye") } == false)
        let late = desk.announced(second.attempt)
        #expect(late?.reason == .closed && late?.message == "bye")
        #expect(desk.announced(second.attempt) == nil)

        // Announced, then ended: now.
        guard case .admitted(let third, nil) = desk.sessions.admit(threadId: "t", owner: 1, transport: .websocket, deviceId: nil),
            desk.announcing("t", attempt: third.attempt) != nil
        else {
            Issue.record("third start refused")
            return
        }
        #expect(desk.announced(third.attempt) == nil)
        #expect(desk.sessions.end("t").map { desk.announcesEnd(of: $0, reason: .stopped, message: nil) } == true)
    }
}
