import BridgeLive
import BridgeProtocol
import CodexControl
import Foundation
import Logging
import NIOCore

/// A websocket voice session's audio (BRIDGE.md, Voice, through the bridge): the phone's microphone comes on its
/// live stream and goes to Codex (`thread/realtime/appendAudio`); the model's voice (`thread/realtime/outputAudio/
/// delta`) goes back on the same stream. Never journaled, never stored; only the phone that started the session
/// has the stream, and it ends with the session (an `end` from the phone stops the session).
extension VoiceService {
    /// The audio's format on the stream, both ways: 16-bit little-endian PCM, mono, 24 kHz.
    static let sampleRate = 24000
    /// Most model audio chunks waiting for a slow phone (Codex sends ~10 per second of speech).
    static let maxQueuedAudio = 4096
    /// How long a stream's end waits for its connection's close (BRIDGE.md: an `end` stops the session).
    static let closeGrace: Duration = .milliseconds(250)

    /// Opens the session's stream on its phone's live channel and starts moving the audio (two jobs, which end with
    /// the stream); the stream's id, or nil when the connection has no live channel. In the step that marks the
    /// session running, so a session that ended meanwhile opens nothing.
    func openAudio(_ threadId: String, attempt: UInt64, session: ClientSession, hub: any HubPort, _ desk: inout VoiceDesk) -> UInt32? {
        guard let stream = session.live?.open() else { return nil }
        let (outgoing, out) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingOldest(Self.maxQueuedAudio))
        desk.audio[threadId] = VoiceDesk.Audio(attempt: attempt, stream: stream, out: out)
        jobs.start {
            for await chunk in outgoing {
                do { try await stream.send(chunk) } catch { return }
            }
        }
        let codex = self.codex
        let timeout = codexTimeout
        jobs.start {
            await Self.pumpMicrophone(stream.received, threadId: threadId, codex: codex, timeout: timeout)
            // The phone ended the stream (or its connection went): the session is over.
            await self.streamEnded(threadId, attempt: attempt, hub: hub)
        }
        return stream.id
    }

    /// The model's audio of a session, to its stream (dropped when the session has none).
    static func audioOut(_ params: JSONValue, to audio: VoiceDesk.Audio?) {
        guard let audio, let text = params["audio"]?["data"]?.stringValue, let bytes = Data(base64Encoded: text), !bytes.isEmpty
        else { return }
        audio.out.yield(ByteBuffer(bytes: bytes))
    }

    /// Ends the session's audio: the stream (the phone gets `end`, and the microphone's pump ends), and the queue
    /// of the model's audio (its sender ends).
    func closeAudio(_ threadId: String, attempt: UInt64, _ desk: inout VoiceDesk) {
        guard desk.audio[threadId]?.attempt == attempt, let audio = desk.audio.removeValue(forKey: threadId) else { return }
        audio.out.finish()
        audio.stream.end()
    }

    /// The session's stream ended while the session runs: the phone's `end` (a stop), or its connection going. The
    /// live channel of a closing connection ends its streams before the hub hears of the close, and tells neither
    /// apart: the close has ``closeGrace`` to arrive (it then ends the session as `disconnected`).
    private func streamEnded(_ threadId: String, attempt: UInt64, hub: any HubPort) async {
        guard hasAudio(threadId, attempt: attempt) else { return }
        try? await Task.sleep(for: Self.closeGrace)
        // Cancelled: the hub stops (Codex's stop ends the session).
        guard !Task.isCancelled, hasAudio(threadId, attempt: attempt) else { return }
        await stop(threadId, attempt: attempt, hub: hub)
    }

    /// The phone's microphone to Codex, chunk by chunk as the stream delivers it (its pace is what pauses the
    /// phone): whole 16-bit samples only, an odd byte carried to the next chunk.
    static func pumpMicrophone(
        _ received: LiveStream.Received, threadId: String, codex: any CodexRequesting, timeout: Duration
    ) async {
        var carry: UInt8?
        for await buffer in received {
            var bytes = [UInt8]()
            bytes.reserveCapacity(buffer.readableBytes + 1)
            if let byte = carry { bytes.append(byte) }
            bytes.append(contentsOf: buffer.readableBytesView)
            carry = bytes.count % 2 == 1 ? bytes.removeLast() : nil
            guard !bytes.isEmpty else { continue }
            let audio: JSONValue = [
                "data": .string(Data(bytes).base64EncodedString()), "sampleRate": .number(Double(sampleRate)), "numChannels": 1,
                "samplesPerChannel": .number(Double(bytes.count / 2)),
            ]
            do {
                _ = try await codex.request(
                    "thread/realtime/appendAudio", params: ["threadId": .string(threadId), "audio": audio], timeout: timeout)
            } catch {
                return  // the session is over at Codex; its end comes as a notification
            }
        }
    }
}
