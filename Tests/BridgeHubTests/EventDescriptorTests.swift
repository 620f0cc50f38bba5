import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// Events by kind (issue 45 item 2): a live notification (voice audio) reaches the hub's ``LiveEvents`` and
/// never a phone's frame or the journal; realtime transcripts are journaled like any item; internal kinds are
/// neither. A real hub over a real SQLite journal, Codex played by ``FakeCodexPort``. About 0.2 s.
@Suite(.timeLimit(.minutes(1))) struct EventDescriptorTests {
    /// Records what the hub hands over live.
    final class Recorder: LiveEvents {
        let seen = Mutex<[(method: String, threadId: String, paramsJSON: String?)]>([])
        func live(_ note: CodexNotification, threadId: String) {
            seen.withLock { $0.append((note.method, threadId, note.paramsJSON)) }
        }
    }

    @Test func liveAudioIsHandedOverAndNeverJournaledTranscriptsAre() async throws {
        let recorder = Recorder()
        let harness = try await HubHarness(liveEvents: recorder)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        let before = try harness.storage.journal.lastSeq()
        let audio: JSONValue = ["threadId": "t1", "audio": ["data": "AAAA", "sampleRate": 24000]]
        await harness.codex.notify("thread/realtime/outputAudio/delta", audio)
        // The same through the relay's as-is path (a delta read without a params tree).
        await harness.codex.events.send(
            .inbound(
                .relayed(
                    CodexRelayedNotification(
                        method: "thread/realtime/outputAudio/delta", threadId: "t1", turnId: nil,
                        paramsJSON: #"{"threadId":"t1","audio":{"data":"BBBB"}}"#))))
        await harness.codex.notify("skills/changed", [:])
        await harness.codex.notify("thread/realtime/transcript/delta", ["threadId": "t1", "role": "user", "delta": "hi"])
        try await harness.processed(after: before)
        let rows = try await harness.storage.journal.readFrames(after: before, limit: 100).map(\.text)
        #expect(rows.count == 1 && rows.allSatisfy { $0.contains("thread/realtime/transcript/delta") }, "\(rows)")
        let types = harness.frames(phone).compactMap { frame -> String? in
            if case .event(let event) = frame { return event.type }
            return nil
        }
        #expect(types == ["thread/realtime/transcript/delta"])
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.map(\.method) == ["thread/realtime/outputAudio/delta", "thread/realtime/outputAudio/delta"])
        #expect(seen.allSatisfy { $0.threadId == "t1" })
        #expect(seen.last?.paramsJSON == #"{"threadId":"t1","audio":{"data":"BBBB"}}"#)
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
