import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// Events by kind (issue 45 item 2): Codex's realtime notifications go to the voice service, never to a phone's frame
/// or the journal as they are (the audio is live: the service sends it on the phone's live stream); what a thread
/// keeps of a voice session is the service's own `bridge/voiceTranscript`; internal kinds reach no phone. A real hub
/// over a real SQLite journal, Codex played by ``FakeCodexPort``. About 0.2 s.
@Suite(.timeLimit(.minutes(1))) struct EventDescriptorTests {
    @Test func realtimeNotificationsGoToTheVoiceServiceAndOnlyItsTranscriptIsJournaled() async throws {
        let harness = try await HubHarness()
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        let before = try harness.storage.journal.lastSeq()
        let audio: JSONValue = ["threadId": "t1", "audio": ["data": "AAAA", "sampleRate": 24000, "numChannels": 1]]
        await harness.codex.notify("thread/realtime/outputAudio/delta", audio)
        // The same through the relay's as-is path (a delta read without a params tree).
        await harness.codex.events.send(
            .inbound(
                .relayed(
                    CodexRelayedNotification(
                        method: "thread/realtime/outputAudio/delta", threadId: "t1", turnId: nil,
                        paramsJSON: #"{"threadId":"t1","audio":{"data":"BBBB","sampleRate":24000,"numChannels":1}}"#))))
        await harness.codex.notify("skills/changed", [:])
        await harness.codex.notify("thread/realtime/transcript/delta", ["threadId": "t1", "role": "user", "delta": "hi"])
        await harness.codex.notify("thread/realtime/transcript/done", ["threadId": "t1", "role": "user", "text": "hi there"])
        try await harness.processed(after: before)
        let rows = try await harness.storage.journal.readFrames(after: before, limit: 100).map(\.text)
        #expect(rows.count == 1 && rows.allSatisfy { $0.contains("bridge/voiceTranscript") && $0.contains("hi there") }, "\(rows)")
        let types = harness.frames(phone).compactMap { frame -> String? in
            if case .event(let event) = frame { return event.type }
            return nil
        }
        #expect(types == ["bridge/voiceTranscript"])
    }

    @Test func theDescriptorTableSaysWhatEachKindIs() {
        #expect(EventDescriptor.of(.threadRealtimeOutputAudioDelta).disposition == .live)
        #expect(EventDescriptor.of(.commandExecOutputDelta).disposition == .internal)
        #expect(EventDescriptor.of(.fsChanged).disposition == .internal)
        #expect(EventDescriptor.of(.itemAgentMessageDelta) == EventDescriptor(disposition: .journaled, observed: false))
        #expect(EventDescriptor.of(.turnCompleted) == EventDescriptor(disposition: .journaled, observed: true))
        #expect(EventDescriptor.of(nil).disposition == .journaled)
        // Every kind that names no thread in Codex's schema is internal, but the rate limits (published under `*`).
        let live = CodexNotification.Kind.allCases.filter { EventDescriptor.of($0).disposition == .live }
        #expect(live == [.threadRealtimeOutputAudioDelta])
    }
}
